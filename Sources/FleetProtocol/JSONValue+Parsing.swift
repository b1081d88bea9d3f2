/// Untyped documents (`JSONValue`) are parsed by hand, not through `JSONDecoder`.
///
/// `JSONValue.init(from:)` cannot ask the decoder what kind of value comes next: it tries Bool, then Double, String,
/// array, object, and every failed try builds a `DecodingError` with its coding path. For a Status reply that was
/// 630–800 µs of CPU per reply, more than fleetd spends answering it (issue 13: perf put 85 % of FleetBench's
/// samples there, and it doubled Status latency under the storm on 2 cores). Typed replies keep the one codec
/// (`VarlinkJSON`); only documents read as they came (`JSONValue.parse`, `VarlinkReply.parametersAsSent()`,
/// `fleetctl --json watch`, the bench and tests) take this path.
extension JSONValue {
    /// Parses one complete JSON document from UTF-8 bytes; trailing non-whitespace, invalid UTF-8 in a string or
    /// nesting deeper than `maximumDepth` is an `InvalidRequest` naming the byte offset and what was wrong.
    public static func parse(_ bytes: [UInt8]) throws(VarlinkError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        do throws(JSONParser.Failure) {
            let value = try parser.parseValue(depth: 0)
            parser.skipWhitespace()
            guard parser.index == bytes.count else { throw parser.failure("unexpected trailing data") }
            return value
        } catch {
            throw .invalidRequest("not valid JSON: \(error.reason) at byte \(error.offset)")
        }
    }

    /// Parses one JSON document from a string.
    public static func parse(_ text: String) throws(VarlinkError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

/// A recursive-descent reader over a byte array (RFC 8259), building a `JSONValue` in one pass.
struct JSONParser {
    /// Why the bytes are not a JSON document, and the byte offset where the parser gave up.
    struct Failure: Error {
        let offset: Int
        let reason: String
    }

    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func parseValue(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        guard depth < JSONValue.maximumDepth else { throw failure("nesting deeper than \(JSONValue.maximumDepth)") }
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

    mutating func expectLiteral(_ literal: String) throws(JSONParser.Failure) {
        for expected in literal.utf8 {
            guard index < bytes.count, bytes[index] == expected else { throw failure("invalid literal") }
            index += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
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

    mutating func parseArray(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
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

    /// A string without escapes (nearly every one) is made from its bytes in one go; one with escapes gathers
    /// its runs and its escapes' UTF-8 into a buffer. (Appending to a `String.UnicodeScalarView` run by run
    /// was a third of FleetBench's client CPU per Status reply.)
    mutating func parseString() throws(JSONParser.Failure) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try Self.validated(bytes[start..<index])
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("control character in string") }
            index += 1
        }
        guard index < bytes.count else { throw failure("unterminated string") }
        return try parseEscapedString(from: start)
    }

    /// The rest of a string whose first escape is at `index`; its runs are checked as UTF-8 one by one, so that
    /// a failure names the offset of the run it is in.
    mutating func parseEscapedString(from start: Int) throws(JSONParser.Failure) -> String {
        var utf8: [UInt8] = []
        var runStart = start
        func flush(_ run: ArraySlice<UInt8>) throws(JSONParser.Failure) {
            guard !run.isEmpty else { return }
            _ = try Self.validated(run)
            utf8.append(contentsOf: run)
        }
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flush(bytes[runStart..<index])
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            }
            if byte < 0x20 { throw failure("control character in string") }
            if byte == UInt8(ascii: "\\") {
                try flush(bytes[runStart..<index])
                index += 1
                UTF8.encode(try parseEscape()) { utf8.append($0) }
                runStart = index
                continue
            }
            index += 1
        }
    }

    static func validated(_ run: ArraySlice<UInt8>) throws(JSONParser.Failure) -> String {
        guard let text = String(validating: run, as: UTF8.self) else {
            throw Failure(offset: run.startIndex, reason: "invalid UTF-8 in string")
        }
        return text
    }

    mutating func parseEscape() throws(JSONParser.Failure) -> Unicode.Scalar {
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

    mutating func parseHex4() throws(JSONParser.Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hexDigitValue(bytes[index]) else { throw failure("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParser.Failure) -> Double {
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
            throw Failure(offset: start, reason: "number out of range")
        }
        return number
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

/// The value of one hexadecimal digit.
private func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}
