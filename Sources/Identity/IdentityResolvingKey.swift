/// A device's 128-bit identity resolving key (IRK), with the operator's label that names the identity.
///
/// Key bytes are in the order Core spec Vol 3 Part H Appendix D prints them (most significant first), which
/// is also how `btmon`, BlueZ's `info` files (`[IdentityResolvingKey] Key=`) and most tools show them.
public struct IdentityResolvingKey: Hashable, Sendable, Codable {
    public let label: String
    public let key: [UInt8]

    /// Validates a configured key: exactly 32 hex digits (16 bytes; `:`/`-`/space separators allowed) and
    /// a label of 1–64 characters from `[A-Za-z0-9._-]`, which becomes the id `irk-<label>`.
    public init(hex: String, label: String) throws(IdentityError) {
        guard let bytes = Hex.bytes(hex) else {
            throw IdentityError(.invalidResolvingKey, "IRK '\(label)': '\(hex)' is not hex")
        }
        try self.init(key: bytes, label: label)
    }

    public init(key: [UInt8], label: String) throws(IdentityError) {
        guard key.count == 16 else {
            throw IdentityError(.invalidResolvingKey, "IRK '\(label)' is \(key.count) bytes; an IRK is 16 bytes (32 hex digits)")
        }
        try Self.validate(label: label)
        self.key = key
        self.label = label
    }

    static func validate(label: String) throws(IdentityError) {
        let ok = label.utf8.allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
        }
        guard ok, (1...64).contains(label.utf8.count) else {
            throw IdentityError(.invalidLabel, "IRK label '\(label)' must be 1–64 characters from A–Z a–z 0–9 . _ -")
        }
    }

    private enum CodingKeys: String, CodingKey { case label, key }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(label, forKey: .label)
        try c.encode(Hex.string(key), forKey: .key)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(hex: c.decode(String.self, forKey: .key), label: c.decode(String.self, forKey: .label))
    }
}
