/// One manufacturer-specific data field of an advertisement (AD type 0xFF).
///
/// Held as the full AD payload, the two little-endian company-id bytes followed by the value, because
/// rules index that payload. BlueZ's `ManufacturerData` (`a{qv}`) reports the company id as the key and only
/// the bytes after it as the value; `init(companyID:value:)` rebuilds the full payload from that form.
public struct ManufacturerData: Hashable, Sendable, Codable {
    /// `companyID` little-endian, then the value bytes.
    public let payload: [UInt8]

    /// From BlueZ's form: the dictionary key and the bytes after the company id.
    public init(companyID: UInt16, value: [UInt8]) {
        var payload: [UInt8] = [UInt8(truncatingIfNeeded: companyID), UInt8(truncatingIfNeeded: companyID >> 8)]
        payload.append(contentsOf: value)
        self.payload = payload
    }

    /// From the raw AD payload; nil when it is too short to hold a company id.
    public init?(payload: [UInt8]) {
        guard payload.count >= 2 else { return nil }
        self.payload = payload
    }

    public var companyID: UInt16 { UInt16(payload[0]) | UInt16(payload[1]) << 8 }
    /// The bytes after the company id, as BlueZ reports them.
    public var value: ArraySlice<UInt8> { payload[2...] }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let bytes = Hex.bytes(text), let data = ManufacturerData(payload: bytes) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "manufacturer data '\(text)' is not hex of at least 2 bytes")
        }
        self = data
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(Hex.string(payload))
    }
}

/// One service data field of an advertisement: a service UUID and the bytes after it, which is exactly how
/// BlueZ's `ServiceData` (`a{sv}`) reports it.
public struct ServiceData: Hashable, Sendable, Codable {
    public let uuid: ServiceUUID
    public let value: [UInt8]

    public init(uuid: ServiceUUID, value: [UInt8]) {
        self.uuid = uuid
        self.value = value
    }

    /// From BlueZ's form: the UUID string key and the value bytes.
    public init(uuid text: String, value: [UInt8]) throws(IdentityError) {
        self.init(uuid: try ServiceUUID(text), value: value)
    }
}
