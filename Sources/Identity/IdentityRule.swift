/// One way the operator tells fleetd how to recognise a physical device whatever address it uses.
///
/// ## Order of evaluation
/// `IdentityResolver` tries rules by kind, and within a kind in the order they were configured; the first
/// match wins:
/// 1. `manufacturerData` rules — a serial the device itself advertises is the strongest evidence, and is
///    cheap to check on every advert;
/// 2. `serviceData` rules, for the same reason;
/// 3. the address cache: an address resolved earlier (by any rule) within the cache lifetime keeps its
///    identity, so an advert that lacks the payload this time, or a repeated RPA, costs one lookup;
/// 4. `resolvingKeys`, only for resolvable private addresses not in the negative cache;
/// 5. `identityAddress`: a public or static random address is the identity (BlueZ reports a bonded device
///    whose IRK it holds under its identity address, so bonded devices land here too);
/// 6. no rule: the device is keyed by the address it used (`FleetIdentity.address`), with no matched rule.
public enum IdentityRule: Hashable, Sendable, Codable {
    case manufacturerData(ManufacturerDataRule)
    case serviceData(ServiceDataRule)
    case resolvingKeys([IdentityResolvingKey])
    case identityAddress

    /// The kind of a rule, without its parameters.
    public enum Kind: String, Hashable, Sendable, Codable {
        case manufacturerData, serviceData, resolvingKeys, identityAddress
    }

    public var kind: Kind {
        switch self {
        case .manufacturerData: .manufacturerData
        case .serviceData: .serviceData
        case .resolvingKeys: .resolvingKeys
        case .identityAddress: .identityAddress
        }
    }

    /// The largest AD payload an extended advertisement can carry (one length byte covers type + data).
    public static let maximumPayloadLength = 254

    static func validate(byteRange: Range<Int>, what: String) throws(IdentityError) {
        guard byteRange.lowerBound >= 0, !byteRange.isEmpty, byteRange.upperBound <= maximumPayloadLength else {
            throw IdentityError(.invalidByteRange, "\(what): byte range \(byteRange.lowerBound)..<\(byteRange.upperBound) must be non-empty and within 0..<\(maximumPayloadLength)")
        }
        guard byteRange.count <= IdentityKey.capacity else {
            throw IdentityError(.invalidByteRange, "\(what): byte range \(byteRange.lowerBound)..<\(byteRange.upperBound) takes \(byteRange.count) bytes; an identity is at most \(IdentityKey.capacity) bytes")
        }
    }
}

/// Identity from manufacturer data: the bytes `byteRange` of company `companyID`'s payload, when the payload
/// also matches `expected` (if given). `byteRange` and `expected.offset` index the full AD payload, whose
/// bytes 0 and 1 are the little-endian company id: for `[0x59, 0x00, 1, 2, 3, 4, 5, 6]`, bytes `2..<8` are
/// `1…6`. (BlueZ's value bytes therefore start at index 2.) A payload too short for the range is no match.
public struct ManufacturerDataRule: Hashable, Sendable, Codable {
    public let companyID: UInt16
    let slice: PayloadSlice
    public var byteRange: Range<Int> { slice.byteRange }
    public var expected: BytePattern? { slice.expected }

    public init(companyID: UInt16, byteRange: Range<Int>, expected: BytePattern? = nil) throws(IdentityError) {
        self.companyID = companyID
        slice = try PayloadSlice(byteRange: byteRange, expected: expected, what: Self.name(companyID))
    }

    private static func name(_ companyID: UInt16) -> String { String(format4: companyID, prefix: "manufacturer data rule for company 0x") }

    /// The identity bytes, or nil when this advert does not carry a matching payload.
    func key(in observation: Observation) -> IdentityKey? {
        for data in observation.manufacturerData where data.companyID == companyID { return slice.key(in: data.payload) }
        return nil
    }

    private enum CodingKeys: String, CodingKey { case companyID }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(companyID, forKey: .companyID)
        try slice.encode(to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        companyID = try decoder.container(keyedBy: CodingKeys.self).decode(UInt16.self, forKey: .companyID)
        slice = try PayloadSlice(from: decoder, what: Self.name(companyID))
    }
}

/// Identity from service data: bytes `byteRange` of the value BlueZ reports for service `uuid` (the bytes
/// after the UUID; index 0 is the first value byte), when it also matches `expected` (if given).
public struct ServiceDataRule: Hashable, Sendable, Codable {
    public let uuid: ServiceUUID
    let slice: PayloadSlice
    public var byteRange: Range<Int> { slice.byteRange }
    public var expected: BytePattern? { slice.expected }

    public init(uuid: ServiceUUID, byteRange: Range<Int>, expected: BytePattern? = nil) throws(IdentityError) {
        self.uuid = uuid
        slice = try PayloadSlice(byteRange: byteRange, expected: expected, what: "service data rule for \(uuid)")
    }

    /// Config form: the UUID as text (`180d`, `0x180D` or the 128-bit form).
    public init(uuid text: String, byteRange: Range<Int>, expected: BytePattern? = nil) throws(IdentityError) {
        try self.init(uuid: ServiceUUID(text), byteRange: byteRange, expected: expected)
    }

    func key(in observation: Observation) -> IdentityKey? {
        for data in observation.serviceData where data.uuid == uuid { return slice.key(in: data.value) }
        return nil
    }

    private enum CodingKeys: String, CodingKey { case uuid }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uuid, forKey: .uuid)
        try slice.encode(to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        uuid = try decoder.container(keyedBy: CodingKeys.self).decode(ServiceUUID.self, forKey: .uuid)
        slice = try PayloadSlice(from: decoder, what: "service data rule for \(uuid)")
    }
}

extension String {
    init(format4 value: UInt16, prefix: String) {
        self = prefix + Hex.string([UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
    }
}
