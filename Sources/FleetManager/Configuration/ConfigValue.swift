/// The value spellings the configuration file accepts, as pure functions from text to a value (nil when
/// the text is not one).
enum ConfigValue {
    /// `500ms`, `30s`, `1.5s`, `5min`, `1h`, or a bare number of seconds; a blank may separate number and
    /// unit, as in systemd's time spans. Negative, overflowing or sub-nanosecond-only spellings are rejected.
    static func duration(_ text: String) -> Duration? {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var whole: Int64 = 0
        var wholeDigits = 0
        while index < scalars.count, let d = scalars[index].digitValue {
            guard wholeDigits < 18 else { return nil }
            whole = whole * 10 + d
            wholeDigits += 1
            index += 1
        }
        var fraction: Int64 = 0
        var fractionDigits = 0
        if index < scalars.count, scalars[index] == "." {
            index += 1
            while index < scalars.count, let d = scalars[index].digitValue {
                guard fractionDigits < 9 else { return nil }
                fraction = fraction * 10 + d
                fractionDigits += 1
                index += 1
            }
            guard fractionDigits > 0 else { return nil }
        }
        guard wholeDigits > 0 else { return nil }
        while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
        let unit = String(String.UnicodeScalarView(scalars[index...]))
        let nanosPerUnit: Int64
        switch unit {
        case "", "s", "sec": nanosPerUnit = 1_000_000_000
        case "ms", "msec": nanosPerUnit = 1_000_000
        case "min": nanosPerUnit = 60_000_000_000
        case "h", "hr": nanosPerUnit = 3_600_000_000_000
        default: return nil
        }
        let (wholeNanos, overflow) = whole.multipliedReportingOverflow(by: nanosPerUnit)
        guard !overflow else { return nil }
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        // fraction < scale ≤ 10⁹ and nanosPerUnit ≤ 3.6·10¹², so this product stays far inside Int64.
        let fractionNanos = fraction * (nanosPerUnit / scale) + fraction * (nanosPerUnit % scale) / scale
        let (total, overflow2) = wholeNanos.addingReportingOverflow(fractionNanos)
        guard !overflow2 else { return nil }
        return .nanoseconds(total)
    }

    /// yes/no, true/false, on/off, 1/0 in any case.
    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true", "on", "1": true
        case "no", "false", "off", "0": false
        default: nil
        }
    }

    /// A decimal integer, or hexadecimal with `0x`.
    static func integer(_ text: String) -> Int? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            let digits = text.dropFirst(2)
            guard !digits.isEmpty, !digits.hasPrefix("+"), !digits.hasPrefix("-") else { return nil }
            return Int(digits, radix: 16)
        }
        guard !text.hasPrefix("+") else { return nil }
        return Int(text)
    }

    /// Whitespace-separated words.
    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    /// A Swift half-open range `2..<8`; nil for anything else, including an inverted one.
    static func halfOpenRange(_ text: String) -> Range<Int>? {
        let parts = text.split(separator: "..<", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let low = integer(parts[0].trimmingBlanks), let high = integer(parts[1].trimmingBlanks), low <= high
        else { return nil }
        return low..<high
    }

    /// `hci0`, `hci12`: BlueZ's adapter names.
    static func isAdapterName(_ text: String) -> Bool {
        guard text.hasPrefix("hci") else { return false }
        let number = text.unicodeScalars.dropFirst(3)
        return !number.isEmpty && number.count <= 3 && number.allSatisfy { $0.digitValue != nil }
    }

    /// A POSIX portable user/group name, as `useradd` and systemd-sysusers accept.
    static func isGroupName(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.first, (1...32).contains(scalars.count),
            ("a"..."z").contains(first) || first == "_"
        else { return false }
        return scalars.allSatisfy { ("a"..."z").contains($0) || $0.digitValue != nil || $0 == "_" || $0 == "-" }
    }
}

extension Unicode.Scalar {
    fileprivate var digitValue: Int64? {
        ("0"..."9").contains(self) ? Int64(value - Unicode.Scalar("0").value) : nil
    }
}

extension Substring {
    fileprivate var trimmingBlanks: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
