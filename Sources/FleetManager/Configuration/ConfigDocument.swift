/// A configuration file as sections of `key = value` entries, before any key is given a meaning.
///
/// The syntax is git-config's, which Linux admins already write: `[section]` or `[section "name"]` headers
/// (section names are case-insensitive, the quoted name is not), `key = value` lines, `#` and `;` comments
/// anywhere outside double quotes, surrounding whitespace dropped, and `"…"` to keep a `#`, `;` or edge
/// whitespace in a value (escapes `\"`, `\\`, `\t`, `\n`). A key with no `=` is git's shorthand for a true
/// boolean. Unlike git, a line never continues onto the next, so every error has exactly one line number.
public struct ConfigDocument: Sendable, Hashable {
    /// One `[kind "name"]` header and the entries under it.
    public struct Section: Sendable, Hashable {
        /// Lowercased section name: `daemon`, `policy`, …
        public var kind: String
        /// The quoted name, e.g. `critical` in `[policy "critical"]`.
        public var name: String?
        public var line: Int
        public var entries: [Entry]

        /// The header as the operator would recognise it in an error message.
        public var header: String {
            guard let name else { return "[\(kind)]" }
            guard name.contains(where: { $0 == "\\" || $0 == "\"" }) else { return "[\(kind) \"\(name)\"]" }
            let escaped = name.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"")
            return "[\(kind) \"\(escaped)\"]"
        }
    }

    /// One `key = value` line.
    public struct Entry: Sendable, Hashable {
        /// Lowercased key.
        public var key: String
        /// The value with comments, quotes and escapes resolved; nil for a bare `key` line (no `=`).
        public var value: String?
        public var line: Int
    }

    public var file: String
    public var sections: [Section]

    /// Splits `text` into sections and entries; `file` is only used to name the file in errors.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> ConfigDocument {
        var document = ConfigDocument(file: file, sections: [])
        var number = 0
        let bytes = Array(text.utf8)
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            let line = rawLine.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
            var reader = LineReader(bytes: line, file: file, line: number, section: document.sections.last)
            reader.skipWhitespace()
            guard let first = reader.peek, first != UInt8(ascii: "#"), first != UInt8(ascii: ";") else { continue }
            if first == UInt8(ascii: "[") {
                document.sections.append(try reader.sectionHeader())
            } else {
                let entry = try reader.entry()
                guard !document.sections.isEmpty else {
                    throw ConfigError(.syntax, file: file, line: number, key: entry.key,
                                      "key outside any section; put it under its [section] header")
                }
                document.sections[document.sections.count - 1].entries.append(entry)
            }
        }
        return document
    }
}

/// Reads one line of a configuration file, left to right, throwing errors that point at that line.
///
/// It works on UTF-8 bytes: every delimiter is ASCII, so the bytes between delimiters are whole characters
/// and copy into names and values as they are.
private struct LineReader {
    let bytes: ArraySlice<UInt8>
    let file: String
    let line: Int
    /// The section this line belongs to, for error messages.
    let section: ConfigDocument.Section?
    var index: Int

    init(bytes: ArraySlice<UInt8>, file: String, line: Int, section: ConfigDocument.Section?) {
        self.bytes = bytes
        self.file = file
        self.line = line
        self.section = section
        index = bytes.startIndex
    }

    var peek: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

    mutating func next() -> UInt8? {
        guard index < bytes.endIndex else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func skipWhitespace() {
        while let c = peek, c.isBlank { index += 1 }
    }

    /// True when only whitespace or a comment is left.
    mutating func atEndOfContent() -> Bool {
        skipWhitespace()
        guard let c = peek else { return true }
        return c == UInt8(ascii: "#") || c == UInt8(ascii: ";")
    }

    func error(_ code: ConfigError.Code, key: String? = nil, inSection: Bool = true, _ message: String) -> ConfigError {
        ConfigError(code, file: file, line: line, section: inSection ? section?.header : nil, key: key, message)
    }

    mutating func name(while accept: (UInt8) -> Bool) -> String {
        let start = index
        while let c = peek, accept(c) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self).lowercased()
    }

    mutating func sectionHeader() throws(ConfigError) -> ConfigDocument.Section {
        index += 1  // the "["
        skipWhitespace()
        let kind = name { $0.isNameCharacter || $0 == UInt8(ascii: ".") }
        guard !kind.isEmpty else { throw error(.syntax, inSection: false, "a section header needs a name, e.g. [daemon]") }
        skipWhitespace()
        var name: String? = nil
        if peek == UInt8(ascii: "\"") {
            index += 1
            var text: [UInt8] = []
            while true {
                guard let c = next() else {
                    throw error(.syntax, inSection: false, "the section name in [\(kind) \"…\"] has no closing quote")
                }
                if c == UInt8(ascii: "\"") { break }
                if c == UInt8(ascii: "\\") {
                    guard let escaped = next() else {
                        throw error(.syntax, inSection: false, "the section name in [\(kind) \"…\"] ends in a lone backslash")
                    }
                    text.append(escaped)
                } else {
                    text.append(c)
                }
            }
            name = String(decoding: text, as: UTF8.self)
            skipWhitespace()
        }
        guard next() == UInt8(ascii: "]") else {
            throw error(.syntax, inSection: false, "malformed section header; expected [\(kind)] or [\(kind) \"name\"]")
        }
        guard atEndOfContent() else {
            throw error(.syntax, inSection: false, "unexpected text after the section header [\(kind)…]")
        }
        return ConfigDocument.Section(kind: kind, name: name, line: line, entries: [])
    }

    mutating func entry() throws(ConfigError) -> ConfigDocument.Entry {
        guard let first = peek, first.isLetter else {
            throw error(.syntax, "expected `key = value`, a [section] header or a comment")
        }
        let key = name { $0.isNameCharacter }
        if atEndOfContent() { return ConfigDocument.Entry(key: key, value: nil, line: line) }
        guard next() == UInt8(ascii: "=") else {
            throw error(.syntax, key: key, "expected `=` after the key (keys are letters, digits and dashes)")
        }
        return ConfigDocument.Entry(key: key, value: try value(key: key), line: line)
    }

    /// git-config value rules: whitespace runs outside quotes are kept only between content, so leading and
    /// trailing blanks and the blanks before a trailing comment vanish.
    mutating func value(key: String) throws(ConfigError) -> String {
        var text: [UInt8] = []
        var pendingBlanks: [UInt8] = []
        var started = false
        var quoted = false
        while let c = next() {
            if !quoted, c == UInt8(ascii: "#") || c == UInt8(ascii: ";") { break }
            if !quoted, c.isBlank {
                if started { pendingBlanks.append(c) }
                continue
            }
            text += pendingBlanks
            pendingBlanks.removeAll(keepingCapacity: true)
            started = true
            switch c {
            case UInt8(ascii: "\""):
                quoted.toggle()
            case UInt8(ascii: "\\"):
                guard let escaped = next() else {
                    throw error(.syntax, key: key, "a value may not end in a backslash (lines do not continue)")
                }
                switch escaped {
                case UInt8(ascii: "\\"), UInt8(ascii: "\""): text.append(escaped)
                case UInt8(ascii: "t"): text.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "n"): text.append(UInt8(ascii: "\n"))
                default:
                    let shown = escaped < 0x80 ? String(UnicodeScalar(escaped)) : "…"
                    throw error(.syntax, key: key, "unknown escape \\\(shown) (use \\\\, \\\", \\t or \\n)")
                }
            default:
                text.append(c)
            }
        }
        guard !quoted else { throw error(.syntax, key: key, "the value has an unclosed double quote") }
        return String(decoding: text, as: UTF8.self)
    }
}

extension UInt8 {
    fileprivate var isBlank: Bool { self == UInt8(ascii: " ") || self == UInt8(ascii: "\t") }
    fileprivate var isLetter: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
    fileprivate var isNameCharacter: Bool {
        isLetter || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || self == UInt8(ascii: "-")
    }
}

extension String {
    /// Foundation's `replacingOccurrences` without depending on Foundation in the pure parser.
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
