/// Writes JSON straight into bytes, byte for byte as `VarlinkJSON.encoder` (Foundation's `JSONEncoder`, sorted
/// keys, slashes unescaped) writes the same values, for the one reply worth writing by hand: Status, which
/// monitoring polls. Under FleetBench's 50 polling clients, `JSONEncoder` was 46 % of fleetd's CPU per Status
/// call (issue 18). The caller writes an object's members in sorted order (UTF-8, as `JSONEncoder` sorts on
/// Linux) and leaves out a nil optional (as `encodeIfPresent` does); `StatusWritingTests` holds both codecs to the
/// same bytes.
struct JSONByteWriter {
    private(set) var bytes: [UInt8] = []
    /// A value was written at this level, so the next member or element needs a comma first.
    private var needsComma = false

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    mutating func beginObject() { bytes.append(UInt8(ascii: "{")); needsComma = false }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    mutating func beginArray() { bytes.append(UInt8(ascii: "[")); needsComma = false }
    mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// The next member's name; its value comes next.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma = false
    }

    /// Before an array's next element.
    mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        needsComma = true
    }

    mutating func int<Integer: FixedWidthInteger>(_ value: Integer) {
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// `JSONEncoder`'s form: the shortest text that reads back as the same double, without a trailing `.0`. JSON
    /// has no NaN or infinity, so `member` names the value that cannot be written.
    mutating func double(_ value: Double, member: String) throws(VarlinkError) {
        guard value.isFinite else { throw FleetControlError.failed("cannot encode \(member) as JSON: \(value) is not a number JSON can carry").varlinkError }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    /// Escapes what `JSONEncoder` escapes: the quote, the backslash, and control characters (`\b \f \n \r \t`
    /// by name, the rest as `\u00xx`).
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }
}
