/// Appends one flat JSON object to a byte buffer. Readings are published tens of thousands of times a second, so
/// this writes the payload in one pass instead of building a dictionary and serialising it.
struct JSONWriter {
    private(set) var bytes: [UInt8]
    private var needsComma = false

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() { bytes.append(UInt8(ascii: "{")); needsComma = false }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")) }

    mutating func member(_ key: StaticString, string value: String) {
        writeKey(key)
        quoted(value)
    }

    mutating func member(_ key: StaticString, integer value: Int64) {
        writeKey(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func member(_ key: StaticString, unsigned value: UInt64) {
        writeKey(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func member(_ key: StaticString, hex value: [UInt8]) {
        writeKey(key)
        bytes.append(UInt8(ascii: "\""))
        for byte in value {
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0f)])
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `value` is already one JSON value (an encoded object or array), written as it is.
    mutating func member(_ key: StaticString, json value: [UInt8]) {
        writeKey(key)
        bytes.append(contentsOf: value)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func writeKey(_ key: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// RFC 8259 string: quote, backslash and control characters escaped; other UTF-8 passes through.
    private mutating func quoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0a: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0d: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0f)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
