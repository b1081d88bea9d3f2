/// The part of an advertised payload that names a device: bytes `byteRange` of it, taken only when the
/// payload also matches `expected` (if given). Manufacturer-data and service-data rules each hold one.
public struct PayloadSlice: Hashable, Sendable {
    public let byteRange: Range<Int>
    public let expected: BytePattern?

    /// `what` names the rule in the error, e.g. "service data rule for 180d".
    init(byteRange: Range<Int>, expected: BytePattern?, what: String) throws(IdentityError) {
        try IdentityRule.validate(byteRange: byteRange, what: what)
        self.byteRange = byteRange
        self.expected = expected
    }

    /// The identity bytes, or nil when the payload is too short for the range or does not match.
    @inline(__always)
    func key(in payload: [UInt8]) -> IdentityKey? {
        payload.withUnsafeBufferPointer { p -> IdentityKey? in
            guard p.count >= byteRange.upperBound else { return nil }
            if let expected, !expected.matches(p) { return nil }
            return IdentityKey(UnsafeBufferPointer(rebasing: p[byteRange]))
        }
    }

    // Stored flat beside the rule's own key (companyID or uuid): {"start", "end", "expected"}.
    private enum CodingKeys: String, CodingKey { case start, end, expected }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(byteRange.lowerBound, forKey: .start)
        try c.encode(byteRange.upperBound, forKey: .end)
        try c.encodeIfPresent(expected, forKey: .expected)
    }

    init(from decoder: any Decoder, what: String) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let start = try c.decode(Int.self, forKey: .start), end = try c.decode(Int.self, forKey: .end)
        guard start <= end else { throw IdentityError(.invalidByteRange, "\(what): start \(start) is after end \(end)") }
        try self.init(byteRange: start..<end, expected: c.decodeIfPresent(BytePattern.self, forKey: .expected), what: what)
    }
}
