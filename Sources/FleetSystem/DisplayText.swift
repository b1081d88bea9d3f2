/// Text that came from outside (a device name from an advert, a Device Information string, a BlueZ message) made
/// safe to print on a terminal or as one line of a log: anyone in radio range chooses a device's name, and a raw
/// newline would forge a log line or a table row, an escape sequence would rewrite the operator's terminal.
///
/// The one escaping used by the stderr log handler and by fleetctl's human output (JSON output is JSON, which
/// escapes control characters itself):
///
/// | character | shown as |
/// | --- | --- |
/// | `\` | `\\` (so every escape below reads back unambiguously) |
/// | C0 controls U+0000–U+001F (newline, tab, ESC…), DEL U+007F, C1 controls U+0080–U+009F | `\xNN`, two lowercase hex digits |
/// | line and paragraph separators U+2028, U+2029; bidirectional controls U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069 | `\u{NNNN}` |
///
/// Everything else, including non-ASCII letters and emoji, is shown as it is.
public enum DisplayText {
    /// `text` with the characters in the table above escaped; `text` itself when it has none.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.append(scalar)
                continue
            }
            let escape: String
            switch scalar.value {
            case 0x5C: escape = #"\\"#
            case 0...0x1F, 0x7F...0x9F: escape = #"\x"# + hex(scalar.value, digits: 2)
            default: escape = #"\u{"# + hex(scalar.value, digits: 4) + "}"
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0...0x1F, 0x5C, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
