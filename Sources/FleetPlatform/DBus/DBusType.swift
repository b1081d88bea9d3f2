/// A D-Bus type, as written in a signature (`a{sv}`, `(ii)`, `ay`, …).
///
/// Values carry their type so that empty arrays and dictionaries still marshal with the right signature.
public indirect enum DBusType: Sendable, Hashable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD, variant
    case array(DBusType)
    case dictionary(key: DBusType, value: DBusType)
    case structure([DBusType])

    /// The type's signature text, e.g. `a{sv}`.
    public var description: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .variant: "v"
        case .array(let element): "a" + element.description
        case .dictionary(let key, let value): "a{" + key.description + value.description + "}"
        case .structure(let fields): "(" + fields.map(\.description).joined() + ")"
        }
    }

    /// Whether this is a basic type, the only kind allowed as a dictionary key.
    public var isBasic: Bool {
        switch self {
        case .array, .dictionary, .structure, .variant: false
        default: true
        }
    }

    /// Parses a complete signature (zero or more complete types).
    public static func parseSignature(_ text: String) throws(DBusError) -> [DBusType] {
        var parser = SignatureParser(Array(text.utf8))
        var types: [DBusType] = []
        while !parser.atEnd { types.append(try parser.completeType(depth: 0)) }
        if text.utf8.count > 255 { throw DBusError(.invalidSignature, "signature '\(text)' is longer than 255 bytes") }
        return types
    }

    /// Parses exactly one complete type, e.g. the element type `{sv}` is not one, `a{sv}` is.
    public static func parse(_ text: String) throws(DBusError) -> DBusType {
        let types = try parseSignature(text)
        guard types.count == 1 else {
            throw DBusError(.invalidSignature, "'\(text)' is \(types.count) complete types, expected exactly one")
        }
        return types[0]
    }
}

/// A recursive-descent reader of signature bytes; it never traps on bad input.
private struct SignatureParser {
    let bytes: [UInt8]
    var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var atEnd: Bool { index >= bytes.count }

    private func fail(_ why: String) -> DBusError {
        DBusError(.invalidSignature, "invalid signature '\(String(decoding: bytes, as: UTF8.self))' at \(index): \(why)")
    }

    mutating func completeType(depth: Int) throws(DBusError) -> DBusType {
        // The D-Bus specification caps nesting at 32 arrays plus 32 structs.
        guard depth < 64 else { throw fail("nested too deeply") }
        guard index < bytes.count else { throw fail("unexpected end") }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                index += 1
                let key = try completeType(depth: depth + 1)
                guard key.isBasic else { throw fail("dictionary key must be a basic type") }
                let value = try completeType(depth: depth + 1)
                guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else { throw fail("expected '}'") }
                index += 1
                return .dictionary(key: key, value: value)
            }
            return .array(try completeType(depth: depth + 1))
        case UInt8(ascii: "("):
            var fields: [DBusType] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
                fields.append(try completeType(depth: depth + 1))
            }
            guard index < bytes.count else { throw fail("expected ')'") }
            index += 1
            guard !fields.isEmpty else { throw fail("empty struct") }
            return .structure(fields)
        default:
            throw fail("unknown type code '\(Character(Unicode.Scalar(c)))'")
        }
    }
}
