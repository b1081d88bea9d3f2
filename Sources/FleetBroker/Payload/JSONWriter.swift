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
    /// A closed object or array is an item of the level around it: what follows it there needs a comma.
    mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    mutating func beginArray() { bytes.append(UInt8(ascii: "[")); needsComma = false }
    mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// Starts a member whose value the caller writes next (an object or an array).
    mutating func key(_ key: StaticString) { writeKey(key) }

    /// Starts an array element: the comma before all but the first.
    mutating func element() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    mutating func element(string value: String) {
        element()
        quoted(value)
    }

    /// `text` is already a JSON number (an exact decimal's plain text).
    mutating func member(_ key: StaticString, number text: String) {
        writeKey(key)
        bytes.append(contentsOf: text.utf8)
    }

    mutating func memberNull(_ key: StaticString) {
        writeKey(key)
        bytes.append(contentsOf: "null".utf8)
    }

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
