/// The one fleet identity of a physical device, whatever address it advertises from today.
///
/// Every identity has a `stableID` string (see `FleetIdentity+StableID.swift`) that survives restarts and
/// is what snapshots, logs and `fleetctl` use.
public enum FleetIdentity: Hashable, Sendable, Comparable {
    /// A serial taken from company `companyID`'s manufacturer data.
    case manufacturer(companyID: UInt16, key: IdentityKey)
    /// A serial taken from service `uuid`'s service data.
    case service(uuid: ServiceUUID, key: IdentityKey)
    /// The holder of the resolving key labelled `label`.
    case resolvingKey(label: String)
    /// The address itself: an identity address, or (when no rule matched) whatever address was seen.
    case address(BluetoothAddress)

    public static func < (a: Self, b: Self) -> Bool { a.stableID < b.stableID }
}

extension FleetIdentity: Codable {
    /// Encoded as its stable id plus, for addresses, the type the id does not carry.
    private enum CodingKeys: String, CodingKey { case id, addressType }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(stableID, forKey: .id)
        if case .address(let a) = self { try c.encode(a.type, forKey: .addressType) }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            stableID: c.decode(String.self, forKey: .id),
            addressType: c.decodeIfPresent(AddressType.self, forKey: .addressType) ?? .public)
    }
}
