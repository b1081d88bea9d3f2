/// A GATT service UUID in one canonical form, so `180d`, `0x180D`, `0000180d` and
/// `0000180d-0000-1000-8000-00805f9b34fb` (BlueZ's `ServiceData` key) are the same key.
public struct ServiceUUID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The 128 bits, most significant half first.
    public let high: UInt64
    public let low: UInt64

    /// The Bluetooth base UUID `00000000-0000-1000-8000-00805f9b34fb` that short UUIDs expand into.
    static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A 16- or 32-bit assigned number expanded over the base UUID.
    public init(assigned value: UInt32) {
        self.init(high: Self.baseHigh | UInt64(value) << 32, low: Self.baseLow)
    }

    /// Parses 4, 8 or 32 hex digits (optionally `0x`-prefixed, optionally with dashes in the 128-bit form).
    public init(_ text: String) throws(IdentityError) {
        guard let bytes = Self.parse(text) else {
            throw IdentityError(.invalidServiceUUID, "'\(text)' is not a 16-bit (180d), 32-bit or 128-bit service UUID")
        }
        if bytes.count == 16 {
            let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self.init(high: high, low: low)
        } else {
            self.init(assigned: bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
    }

    private static func parse(_ text: String) -> [UInt8]? {
        let dashes = text.utf8.filter { $0 == UInt8(ascii: "-") }.count
        // A dashed form must be the standard 8-4-4-4-12 layout; other separators are not UUID spellings.
        if dashes > 0 {
            let groups = text.split(separator: "-", omittingEmptySubsequences: false).map(\.utf8.count)
            guard groups == [8, 4, 4, 4, 12] else { return nil }
        }
        guard !text.contains(":"), !text.contains("_"), !text.contains(" "),
            let bytes = Hex.bytes(text), [2, 4, 16].contains(bytes.count)
        else { return nil }
        return bytes
    }

    /// The 16-bit assigned number when this UUID is one expanded over the base UUID.
    public var shortValue: UInt16? {
        guard low == Self.baseLow, high & 0xFFFF_FFFF == Self.baseHigh, high >> 48 == 0 else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// Lowercase 128-bit form with dashes, as BlueZ spells `ServiceData` keys.
    public var description: String {
        let hex = Array(Hex.string(bigEndianBytes(high) + bigEndianBytes(low)))
        return String(hex[0..<8]) + "-" + String(hex[8..<12]) + "-" + String(hex[12..<16]) + "-"
            + String(hex[16..<20]) + "-" + String(hex[20..<32])
    }

    /// The shortest unambiguous form for ids: `180d` for a 16-bit UUID, otherwise 32 hex digits.
    public var compactDescription: String {
        if let short = shortValue { return Hex.string(bigEndianBytes(UInt64(short)).suffix(2)) }
        return Hex.string(bigEndianBytes(high) + bigEndianBytes(low))
    }

    public static func < (a: Self, b: Self) -> Bool { (a.high, a.low) < (b.high, b.low) }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        try self.init(text)
    }
}

func bigEndianBytes(_ v: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * UInt64($0))) }
}
