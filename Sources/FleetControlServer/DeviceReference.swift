import FleetProtocol

/// What `DeviceReference.resolve` needs to know about a device to match a user's reference against it.
public protocol ReferableDevice {
    /// Stable identity id.
    var id: String { get }
    var displayName: String { get }
    /// Current Bluetooth address, if known.
    var address: String? { get }
}

/// How a user names a device (`fleetctl show lamp-3`): resolution rules shared by the daemon and tests.
///
/// Tried in order, the first rule with any match wins:
/// 1. the identity id, exactly;
/// 2. a current Bluetooth address, ignoring case and accepting `-` for `:`;
/// 3. a display name, exactly, then ignoring case;
/// 4. a prefix of identity ids.
/// A rule matching more than one device is `ambiguousDevice` listing the candidates' ids (sorted);
/// no match anywhere is `deviceNotFound`.
public enum DeviceReference {
    public static func resolve<Device: ReferableDevice>(_ reference: String, in devices: [Device]) throws(FleetControlError) -> Device {
        let trimmed = reference.trimmingWhitespace
        guard !trimmed.isEmpty else { throw .deviceNotFound(reference: reference) }
        let address = normalisedAddress(trimmed)
        let lowered = trimmed.lowercased()
        let rules: [(Device) -> Bool] = [
            { $0.id == trimmed },
            { device in device.address.map(normalisedAddress) == address },
            { $0.displayName == trimmed },
            { $0.displayName.lowercased() == lowered },
            { $0.id.hasPrefix(trimmed) },
        ]
        for rule in rules {
            let matches = devices.filter(rule)
            if matches.count == 1, let only = matches.first { return only }
            if matches.count > 1 {
                throw .ambiguousDevice(reference: reference, candidates: matches.map(\.id).sorted())
            }
        }
        throw .deviceNotFound(reference: reference)
    }

    private static func normalisedAddress(_ text: String) -> String {
        text.uppercased().replacingAll("-", with: ":")
    }
}

extension String {
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.isWhitespace { scalars = scalars.dropLast() }
        return String(scalars)
    }

    func replacingAll(_ target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}

extension DeviceInfo: ReferableDevice {}
