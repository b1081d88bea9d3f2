/// Characteristic values on the wire and on the command line: bytes as hex text.
public enum HexBytes {
    /// Lowercase hex, two digits a byte, no separators.
    public static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses hex in either case; an optional `0x` prefix and `:`, `-` or space separators between bytes are
    /// accepted. Returns nil for an odd number of digits or any other character.
    public static func decode(_ text: String) -> [UInt8]? {
        var body = Substring(text)
        if body.hasPrefix("0x") || body.hasPrefix("0X") { body = body.dropFirst(2) }
        var digits: [UInt8] = []
        for byte in body.utf8 {
            if byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: " ") {
                guard digits.count % 2 == 0 else { return nil }
                continue
            }
            guard let digit = digitValue(byte) else { return nil }
            digits.append(digit)
        }
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var position = 0
        while position + 1 < digits.count {
            bytes.append(digits[position] << 4 | digits[position + 1])
            position += 2
        }
        return bytes
    }

    private static func digitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension KeyedDecodingContainer {
    /// A hex string member as bytes; text that is not hex is a decoding error naming the member.
    func decodeHex(forKey key: Key) throws -> [UInt8] {
        let text = try decode(String.self, forKey: key)
        guard let bytes = HexBytes.decode(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not hex: \(text)")
        }
        return bytes
    }
}
