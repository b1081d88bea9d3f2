/// A Bluetooth SIG 16-bit characteristic or service UUID (Assigned Numbers, §3.8 and §3.4): `0x2A37` is Heart Rate
/// Measurement wherever it appears, so a standard value can be decoded by its UUID alone.
public struct AssignedNumber: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible, Comparable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// Upper-case four hex digits, as the SIG writes them: `2A37`.
    public var description: String {
        let digits = String(rawValue, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// The 16-bit number inside a UUID text: `2a37`, `0x2A37` or the SIG base form
    /// `00002a37-0000-1000-8000-00805f9b34fb`; nil for a vendor UUID.
    public init?(uuid text: String) {
        let lower = text.lowercased()
        let body: Substring
        if lower.count == 36 {
            guard lower.hasPrefix("0000"), lower.hasSuffix("-0000-1000-8000-00805f9b34fb") else { return nil }
            body = lower.dropFirst(4).prefix(4)
        } else if lower.hasPrefix("0x"), lower.count == 6 {
            body = lower.dropFirst(2)
        } else if lower.count == 4 {
            body = Substring(lower)
        } else {
            return nil
        }
        guard let n = UInt16(body, radix: 16) else { return nil }
        self.init(n)
    }

    /// The full 128-bit UUID text in lower case.
    public var uuid: String { "0000" + description.lowercased() + "-0000-1000-8000-00805f9b34fb" }

    public static func < (a: AssignedNumber, b: AssignedNumber) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let n = AssignedNumber(uuid: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a 16-bit assigned number: \(text)")
        }
        self = n
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
