import FleetPlatform

/// One client's SetDiscoveryFilter settings, with BlueZ 5.66's defaults (adapter.c parse_discovery_filter_dict).
public struct DiscoveryFilter: Sendable, Hashable {
    public var uuids: [String] = []
    public var rssi: Int16?
    public var pathloss: UInt16?
    public var transport: String = "auto"
    public var duplicateData = false
    public var discoverable = false
    public var pattern: String?

    public init() {}

    /// The keys GetDiscoveryFilters lists.
    public static let supportedKeys = ["UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData", "Discoverable", "Pattern"]

    /// Parses the a{sv} argument. An empty dictionary means "no filter" (nil), as in BlueZ; an unknown key,
    /// a wrong type, RSSI together with Pathloss, or a bad transport is InvalidArguments.
    public static func parse(_ dict: [String: DBusValue]) throws(BlueZError) -> DiscoveryFilter? {
        guard !dict.isEmpty else { return nil }
        var filter = DiscoveryFilter()
        for (key, wrapped) in dict {
            let value = wrapped.unwrapped
            switch (key, value) {
            case ("UUIDs", .array(.string, let items)):
                filter.uuids = try items.map { (item) throws(BlueZError) -> String in
                    guard let text = item.string, let uuid = BluetoothUUID.normalise(text) else { throw BlueZError.invalidArguments }
                    return uuid
                }
            case ("RSSI", .int16(let rssi)): filter.rssi = rssi
            case ("Pathloss", .uint16(let loss)): filter.pathloss = loss
            case ("Transport", .string(let t)):
                guard ["auto", "bredr", "le"].contains(t) else { throw BlueZError.invalidArguments }
                filter.transport = t
            case ("DuplicateData", .boolean(let b)): filter.duplicateData = b
            case ("Discoverable", .boolean(let b)): filter.discoverable = b
            case ("Pattern", .string(let p)): filter.pattern = p
            default: throw BlueZError.invalidArguments
            }
        }
        if filter.rssi != nil && filter.pathloss != nil { throw BlueZError.invalidArguments }
        return filter
    }

    /// Whether an advert passes this filter (is_filter_match plus the Pattern and Transport rules).
    func matches(uuids advertised: [String], rssi: Int16, txPower: Int16?, address: BluetoothAddress, name: String?) -> Bool {
        if transport == "bredr" { return false }
        if !uuids.isEmpty && !uuids.contains(where: advertised.contains) { return false }
        if let threshold = self.rssi, rssi < threshold { return false }
        if let pathloss, let txPower, Int(txPower) - Int(rssi) > Int(pathloss) { return false }
        if let pattern, !pattern.isEmpty {
            return address.description.hasPrefix(pattern.uppercased()) || (name?.hasPrefix(pattern) ?? false)
        }
        return true
    }
}
