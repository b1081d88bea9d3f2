/// A characteristic value that does not decode as its specification says. It names the field and the byte offset,
/// so a person can find the fault in the raw bytes (which fleetd still delivers next to this error).
public struct ProfileDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong at `offset`.
    public enum Problem: Sendable, Hashable {
        /// The value ends before the field: `needed` bytes from `offset`, `available` left.
        case tooShort(needed: Int, available: Int)
        /// Bytes left after the last field the flags announce: the length contradicts the flags.
        case trailingBytes(count: Int)
        /// A flag or field value the specification reserves for future use.
        case reserved(value: UInt32)
        /// A value outside the field's defined range (a month of 13, a size byte that contradicts the length).
        case outOfRange(value: Int64)
        /// The E2E-CRC in the value does not match the CRC computed over it.
        case crcMismatch(sent: UInt16, computed: UInt16)
    }

    /// The characteristic the value came on.
    public var characteristic: AssignedNumber
    /// The field's name as the specification calls it, in kebab case (`flags`, `rr-interval`, `time-stamp.month`).
    public var field: String
    /// Byte offset of the field in the value.
    public var offset: Int
    public var problem: Problem

    public init(characteristic: AssignedNumber, field: String, offset: Int, problem: Problem) {
        self.characteristic = characteristic
        self.field = field
        self.offset = offset
        self.problem = problem
    }

    public var description: String {
        let what: String
        switch problem {
        case .tooShort(let needed, let available): what = "needs \(needed) byte\(needed == 1 ? "" : "s"), \(available) left"
        case .trailingBytes(let count): what = "\(count) byte\(count == 1 ? "" : "s") after the last field the flags announce"
        case .reserved(let value): what = "reserved value 0x\(String(value, radix: 16))"
        case .outOfRange(let value): what = "value \(value) is out of range"
        case .crcMismatch(let sent, let computed):
            what = "E2E-CRC 0x\(String(sent, radix: 16)) sent, 0x\(String(computed, radix: 16)) computed"
        }
        return "\(characteristic): \(field) at byte \(offset): \(what)"
    }
}

// The wire form: {"characteristic":"2A37","field":"rr-interval","offset":3,"problem":"too-short","needed":2,
// "available":1,"text":"2A37: rr-interval at byte 3: needs 2 bytes, 1 left"}.
extension ProfileDecodeError: Codable {
    private enum CodingKeys: String, CodingKey { case characteristic, field, offset, problem, needed, available, count, value, sent, computed, text }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        characteristic = try c.decode(AssignedNumber.self, forKey: .characteristic)
        field = try c.decode(String.self, forKey: .field)
        offset = try c.decode(Int.self, forKey: .offset)
        switch try c.decode(String.self, forKey: .problem) {
        case "too-short": problem = .tooShort(needed: try c.decode(Int.self, forKey: .needed), available: try c.decode(Int.self, forKey: .available))
        case "trailing-bytes": problem = .trailingBytes(count: try c.decode(Int.self, forKey: .count))
        case "reserved": problem = .reserved(value: try c.decode(UInt32.self, forKey: .value))
        case "out-of-range": problem = .outOfRange(value: try c.decode(Int64.self, forKey: .value))
        case "crc-mismatch": problem = .crcMismatch(sent: try c.decode(UInt16.self, forKey: .sent), computed: try c.decode(UInt16.self, forKey: .computed))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .problem, in: c, debugDescription: "unknown decode problem \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(characteristic, forKey: .characteristic)
        try c.encode(field, forKey: .field)
        try c.encode(offset, forKey: .offset)
        switch problem {
        case .tooShort(let needed, let available):
            try c.encode("too-short", forKey: .problem)
            try c.encode(needed, forKey: .needed)
            try c.encode(available, forKey: .available)
        case .trailingBytes(let count):
            try c.encode("trailing-bytes", forKey: .problem)
            try c.encode(count, forKey: .count)
        case .reserved(let value):
            try c.encode("reserved", forKey: .problem)
            try c.encode(value, forKey: .value)
        case .outOfRange(let value):
            try c.encode("out-of-range", forKey: .problem)
            try c.encode(value, forKey: .value)
        case .crcMismatch(let sent, let computed):
            try c.encode("crc-mismatch", forKey: .problem)
            try c.encode(sent, forKey: .sent)
            try c.encode(computed, forKey: .computed)
        }
        try c.encode(description, forKey: .text)
    }
}
