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
        for rawLine in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var scalars = Array(String(decoding: rawLine, as: UTF8.self).unicodeScalars)
            if scalars.last == "\r" { scalars.removeLast() }
            var reader = LineReader(scalars: scalars, file: file, line: number, section: document.sections.last?.header)
            reader.skipWhitespace()
            guard let first = reader.peek, first != "#", first != ";" else { continue }
            if first == "[" {
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
private struct LineReader {
    let scalars: [Unicode.Scalar]
    let file: String
    let line: Int
    let section: String?
    var index = 0

    init(scalars: [Unicode.Scalar], file: String, line: Int, section: String?) {
        self.scalars = scalars
        self.file = file
        self.line = line
        self.section = section
    }

    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    mutating func next() -> Unicode.Scalar? {
        guard index < scalars.count else { return nil }
        defer { index += 1 }
        return scalars[index]
    }

    mutating func skipWhitespace() {
        while let c = peek, c == " " || c == "\t" { index += 1 }
    }

    /// True when only whitespace or a comment is left.
    mutating func atEndOfContent() -> Bool {
        skipWhitespace()
        guard let c = peek else { return true }
        return c == "#" || c == ";"
    }

    func error(_ code: ConfigError.Code, key: String? = nil, section: String? = nil, _ message: String) -> ConfigError {
        ConfigError(code, file: file, line: line, section: section ?? self.section, key: key, message)
    }

    mutating func sectionHeader() throws(ConfigError) -> ConfigDocument.Section {
        index += 1  // the "["
        skipWhitespace()
        var kind = ""
        while let c = peek, c.isNameCharacter || c == "." {
            kind.unicodeScalars.append(c)
            index += 1
        }
        guard !kind.isEmpty else { throw error(.syntax, section: nil, "a section header needs a name, e.g. [daemon]") }
        kind = kind.lowercased()
        skipWhitespace()
        var name: String? = nil
        if peek == "\"" {
            index += 1
            var text = ""
            while true {
                guard let c = next() else {
                    throw error(.syntax, section: nil, "the section name in [\(kind) \"…\"] has no closing quote")
                }
                if c == "\"" { break }
                if c == "\\" {
                    guard let escaped = next() else {
                        throw error(.syntax, section: nil, "the section name in [\(kind) \"…\"] ends in a lone backslash")
                    }
                    text.unicodeScalars.append(escaped)
                } else {
                    text.unicodeScalars.append(c)
                }
            }
            name = text
            skipWhitespace()
        }
        guard next() == "]" else {
            throw error(.syntax, section: nil, "malformed section header; expected [\(kind)] or [\(kind) \"name\"]")
        }
        guard atEndOfContent() else {
            throw error(.syntax, section: nil, "unexpected text after the section header [\(kind)…]")
        }
        return ConfigDocument.Section(kind: kind, name: name, line: line, entries: [])
    }

    mutating func entry() throws(ConfigError) -> ConfigDocument.Entry {
        var key = ""
        while let c = peek, c.isNameCharacter {
            key.unicodeScalars.append(c)
            index += 1
        }
        guard let first = key.unicodeScalars.first, first.isLetter else {
            throw error(.syntax, "expected `key = value`, a [section] header or a comment")
        }
        key = key.lowercased()
        if atEndOfContent() { return ConfigDocument.Entry(key: key, value: nil, line: line) }
        guard next() == "=" else {
            throw error(.syntax, key: key, "expected `=` after the key (keys are letters, digits and dashes)")
        }
        return ConfigDocument.Entry(key: key, value: try value(key: key), line: line)
    }

    /// git-config value rules: whitespace runs outside quotes are kept only between content, so leading and
    /// trailing blanks and the blanks before a trailing comment vanish.
    mutating func value(key: String) throws(ConfigError) -> String {
        var text = ""
        var pendingBlanks = ""
        var started = false
        var quoted = false
        while let c = next() {
            if !quoted, c == "#" || c == ";" { break }
            if !quoted, c == " " || c == "\t" {
                if started { pendingBlanks.unicodeScalars.append(c) }
                continue
            }
            text += pendingBlanks
            pendingBlanks = ""
            started = true
            switch c {
            case "\"":
                quoted.toggle()
            case "\\":
                guard let escaped = next() else {
                    throw error(.syntax, key: key, "a value may not end in a backslash (lines do not continue)")
                }
                switch escaped {
                case "\\", "\"": text.unicodeScalars.append(escaped)
                case "t": text += "\t"
                case "n": text += "\n"
                default: throw error(.syntax, key: key, "unknown escape \\\(escaped) (use \\\\, \\\", \\t or \\n)")
                }
            default:
                text.unicodeScalars.append(c)
            }
        }
        guard !quoted else { throw error(.syntax, key: key, "the value has an unclosed double quote") }
        return text
    }
}

extension Unicode.Scalar {
    fileprivate var isNameCharacter: Bool { isLetter || ("0"..."9").contains(self) || self == "-" }
    fileprivate var isLetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

extension String {
    /// Foundation's `replacingOccurrences` without depending on Foundation in the pure parser.
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
