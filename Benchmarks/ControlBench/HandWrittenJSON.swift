// The hand-written JSON codec fleetd used before ControlBench chose Foundation's (kept here, and only here,
// so that every `make bench` measures the choice again): a JSON value enum, a recursive-descent parser, a
// serialiser, and a reader that names the member it could not read.
import FleetProtocol

/// A member the reader could not read, with its dotted path.
struct HandReadError: Error {
    var parameter: String
    static func invalidParameter(_ parameter: String) -> HandReadError { HandReadError(parameter: parameter) }
}

/// A JSON document as a value: what varlink messages are made of on the wire.
///
/// Numbers are kept as `Double` because varlink `int` and `float` share JSON's one number type;
/// integer accessors check that the value is integral and in range.
enum HandJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([HandJSON])
    case object([String: HandJSON])
}

extension HandJSON {
    /// The members of an object, or nil when this is not an object.
    var objectValue: [String: HandJSON]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of an array, or nil when this is not an array.
    var arrayValue: [HandJSON]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The text of a string, or nil when this is not a string.
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The truth value of a bool, or nil when this is not a bool.
    var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The number, or nil when this is not a number.
    var doubleValue: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The number as an integer, or nil when it is not a number, not integral or out of `Int` range.
    var intValue: Int? {
        guard case .number(let number) = self, number.rounded() == number,
              number >= -9.007_199_254_740_992e15, number <= 9.007_199_254_740_992e15 else { return nil }
        return Int(number)
    }

    /// True for `.null`.
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Wraps an optional, using `.null` for nil.
    static func optional(_ text: String?) -> HandJSON { text.map(HandJSON.string) ?? .null }

    /// Wraps an optional number, using `.null` for nil.
    static func optional(_ number: Double?) -> HandJSON { number.map(HandJSON.number) ?? .null }

    /// Wraps an optional integer, using `.null` for nil.
    static func optional(_ number: Int?) -> HandJSON { number.map { .number(Double($0)) } ?? .null }

    /// Wraps an integer.
    static func int(_ number: Int) -> HandJSON { .number(Double(number)) }
}

/// Why a byte sequence is not a JSON document, and where the parser gave up.
struct HandJSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Byte offset of the problem in the input.
    let offset: Int
    /// What was wrong, for a human.
    let reason: String

    var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension HandJSON {
    /// Nesting deeper than this is refused so a hostile frame cannot exhaust the stack.
    static let maximumDepth = 64

    /// Parses one complete JSON document (RFC 8259) from UTF-8 bytes; trailing non-whitespace is an error.
    static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(HandJSONError) -> HandJSON {
        var parser = HandJSONParser(bytes: Array(bytes))
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("unexpected trailing data") }
        return value
    }

    /// Parses one JSON document from a string.
    static func parse(_ text: String) throws(HandJSONError) -> HandJSON {
        try parse(Array(text.utf8))
    }
}

/// A recursive-descent reader over a byte array; separate from `HandJSON` so its cursor state stays private.
private struct HandJSONParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func failure(_ reason: String) -> HandJSONError { HandJSONError(offset: index, reason: reason) }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func parseValue(depth: Int) throws(HandJSONError) -> HandJSON {
        guard depth < HandJSON.maximumDepth else { throw failure("nesting deeper than \(HandJSON.maximumDepth)") }
        skipWhitespace()
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: String) throws(HandJSONError) {
        for expected in literal.utf8 {
            guard index < bytes.count, bytes[index] == expected else { throw failure("invalid literal") }
            index += 1
        }
    }

    mutating func parseObject(depth: Int) throws(HandJSONError) -> HandJSON {
        index += 1
        var members: [String: HandJSON] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            members[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw failure("expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(HandJSONError) -> HandJSON {
        index += 1
        var elements: [HandJSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw failure("expected ',' or ']'")
        }
    }

    mutating func parseString() throws(HandJSONError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ run: ArraySlice<UInt8>) throws(HandJSONError) {
            guard !run.isEmpty else { return }
            guard let text = String(validating: run, as: UTF8.self) else {
                throw HandJSONError(offset: run.startIndex, reason: "invalid UTF-8 in string")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flush(bytes[runStart..<index])
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw failure("control character in string") }
            if byte == UInt8(ascii: "\\") {
                try flush(bytes[runStart..<index])
                index += 1
                scalars.append(try parseEscape())
                runStart = index
                continue
            }
            index += 1
        }
    }

    mutating func parseEscape() throws(HandJSONError) -> Unicode.Scalar {
        guard index < bytes.count else { throw failure("unterminated escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHex4()
            if (0xD800...0xDBFF).contains(first) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("unpaired surrogate")
                }
                index += 2
                let second = try parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw failure("invalid low surrogate") }
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(combined) else { throw failure("invalid code point") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw failure("unpaired surrogate") }
            return scalar
        default:
            throw failure("invalid escape")
        }
    }

    mutating func parseHex4() throws(HandJSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hexDigitValue(bytes[index]) else { throw failure("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(HandJSONError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid fraction") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            throw HandJSONError(offset: start, reason: "number out of range")
        }
        return number
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

/// The value of one hexadecimal digit, shared by JSON escapes and characteristic values.
func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}

extension HandJSON {
    /// The compact JSON text of this value, with object members sorted so output is reproducible.
    var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The compact JSON text as UTF-8 bytes.
    var serializedBytes: [UInt8] { Array(serialized.utf8) }

    /// An indented rendering for humans (`fleetctl --json`).
    func prettyPrinted(indent: String = "  ") -> String {
        var output = ""
        writePretty(to: &output, level: 0, indent: indent)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): output += Self.format(number)
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let elements):
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (position, key) in members.keys.sorted().enumerated() {
                if position > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                members[key, default: .null].write(to: &output)
            }
            output += "}"
        }
    }

    private func writePretty(to output: inout String, level: Int, indent: String) {
        let inner = String(repeating: indent, count: level + 1)
        let outer = String(repeating: indent, count: level)
        switch self {
        case .array(let elements) where !elements.isEmpty:
            output += "[\n"
            for (position, element) in elements.enumerated() {
                output += inner
                element.writePretty(to: &output, level: level + 1, indent: indent)
                output += position == elements.count - 1 ? "\n" : ",\n"
            }
            output += outer + "]"
        case .object(let members) where !members.isEmpty:
            output += "{\n"
            let keys = members.keys.sorted()
            for (position, key) in keys.enumerated() {
                output += inner
                Self.writeString(key, to: &output)
                output += ": "
                members[key, default: .null].writePretty(to: &output, level: level + 1, indent: indent)
                output += position == keys.count - 1 ? "\n" : ",\n"
            }
            output += outer + "}"
        default:
            write(to: &output)
        }
    }

    private static func format(_ number: Double) -> String {
        // Integral values print without a fraction so ids and counters read as integers to other clients.
        if number.rounded() == number, abs(number) < 9.007_199_254_740_992e15 {
            return String(Int(number))
        }
        return number.isFinite ? String(number) : "null"
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

/// Typed access to the members of a varlink object (call parameters or reply fields).
///
/// Every accessor throws `org.varlink.service.InvalidParameter` naming the offending member (with a
/// dotted path for nested records), which is exactly the error varlink prescribes for bad parameters.
struct HandReader: Sendable {
    /// The object being read.
    let members: [String: HandJSON]
    /// Dotted prefix for nested records, empty at the top level.
    let path: String

    init(_ members: [String: HandJSON], path: String = "") {
        self.members = members
        self.path = path
    }

    /// Reads a nested JSON value as a record.
    init(_ value: HandJSON?, path: String) throws(HandReadError) {
        guard let members = value?.objectValue else { throw .invalidParameter(path) }
        self.init(members, path: path)
    }

    private func name(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    private func present(_ key: String) -> HandJSON? {
        guard let value = members[key], !value.isNull else { return nil }
        return value
    }

    func string(_ key: String) throws(HandReadError) -> String {
        guard let text = present(key)?.stringValue else { throw .invalidParameter(name(key)) }
        return text
    }

    func optionalString(_ key: String) throws(HandReadError) -> String? {
        guard let value = present(key) else { return nil }
        guard let text = value.stringValue else { throw .invalidParameter(name(key)) }
        return text
    }

    func int(_ key: String) throws(HandReadError) -> Int {
        guard let number = present(key)?.intValue else { throw .invalidParameter(name(key)) }
        return number
    }

    func optionalInt(_ key: String) throws(HandReadError) -> Int? {
        guard let value = present(key) else { return nil }
        guard let number = value.intValue else { throw .invalidParameter(name(key)) }
        return number
    }

    func double(_ key: String) throws(HandReadError) -> Double {
        guard let number = present(key)?.doubleValue else { throw .invalidParameter(name(key)) }
        return number
    }

    func optionalDouble(_ key: String) throws(HandReadError) -> Double? {
        guard let value = present(key) else { return nil }
        guard let number = value.doubleValue else { throw .invalidParameter(name(key)) }
        return number
    }

    func bool(_ key: String) throws(HandReadError) -> Bool {
        guard let flag = present(key)?.boolValue else { throw .invalidParameter(name(key)) }
        return flag
    }

    func optionalBool(_ key: String) throws(HandReadError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard let flag = value.boolValue else { throw .invalidParameter(name(key)) }
        return flag
    }

    func strings(_ key: String) throws(HandReadError) -> [String] {
        guard let elements = present(key)?.arrayValue else { throw .invalidParameter(name(key)) }
        var result: [String] = []
        for element in elements {
            guard let text = element.stringValue else { throw .invalidParameter(name(key)) }
            result.append(text)
        }
        return result
    }

    func record(_ key: String) throws(HandReadError) -> HandReader {
        try HandReader(members[key], path: name(key))
    }

    func records(_ key: String) throws(HandReadError) -> [HandReader] {
        guard let elements = present(key)?.arrayValue else { throw .invalidParameter(name(key)) }
        var result: [HandReader] = []
        for (position, element) in elements.enumerated() {
            result.append(try HandReader(element, path: name(key) + "[\(position)]"))
        }
        return result
    }
}
