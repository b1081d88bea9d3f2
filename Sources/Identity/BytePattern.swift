/// An expected value for some payload bytes, under a mask: the payload matches when
/// `payload[offset + i] & mask[i] == bytes[i] & mask[i]` for every i. Lets one company's rule pick out only
/// its product line (e.g. Apple's iBeacon type `02 15` at offset 2) before taking a serial.
public struct BytePattern: Hashable, Sendable, Codable {
    /// Where `bytes[0]` sits, indexed like the rule's byte range.
    public let offset: Int
    public let bytes: [UInt8]
    public let mask: [UInt8]

    /// `mask` defaults to all ones (an exact prefix); it must be as long as `bytes`.
    public init(offset: Int, bytes: [UInt8], mask: [UInt8]? = nil) throws(IdentityError) {
        let mask = mask ?? Array(repeating: 0xFF, count: bytes.count)
        guard !bytes.isEmpty, mask.count == bytes.count else {
            throw IdentityError(.invalidPattern, "expected bytes must be non-empty and the mask (\(mask.count) bytes) as long as them (\(bytes.count) bytes)")
        }
        guard offset >= 0, offset + bytes.count <= IdentityRule.maximumPayloadLength else {
            throw IdentityError(.invalidPattern, "expected bytes at offset \(offset) run past the largest advertisement payload (\(IdentityRule.maximumPayloadLength) bytes)")
        }
        self.offset = offset
        self.bytes = bytes
        self.mask = mask
    }

    /// Config form: hex text for bytes and mask.
    public init(offset: Int, hex: String, maskHex: String? = nil) throws(IdentityError) {
        guard let bytes = Hex.bytes(hex) else {
            throw IdentityError(.invalidPattern, "expected bytes '\(hex)' are not hex")
        }
        var mask: [UInt8]? = nil
        if let maskHex {
            guard let m = Hex.bytes(maskHex) else {
                throw IdentityError(.invalidPattern, "mask '\(maskHex)' is not hex")
            }
            mask = m
        }
        try self.init(offset: offset, bytes: bytes, mask: mask)
    }

    /// False, never a trap, when the payload is too short to hold the pattern.
    func matches(_ payload: UnsafeBufferPointer<UInt8>) -> Bool {
        guard payload.count >= offset + bytes.count else { return false }
        for i in 0..<bytes.count where payload[offset + i] & mask[i] != bytes[i] & mask[i] {
            return false
        }
        return true
    }
}

extension BytePattern {
    private enum CodingKeys: String, CodingKey { case offset, bytes, mask }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(offset, forKey: .offset)
        try c.encode(Hex.string(bytes), forKey: .bytes)
        try c.encode(Hex.string(mask), forKey: .mask)
    }

    /// Decoding goes through the validating initialiser, so a bad file is a typed error, not a bad rule.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            offset: c.decode(Int.self, forKey: .offset), hex: c.decode(String.self, forKey: .bytes),
            maskHex: c.decodeIfPresent(String.self, forKey: .mask))
    }
}
