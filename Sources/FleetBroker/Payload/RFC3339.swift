import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// RFC 3339 UTC timestamps with milliseconds (`2025-03-01T12:00:00.123Z`), formatted by hand: it runs once per
/// published reading, and gmtime_r costs far less than a Foundation format style.
enum RFC3339 {
    static func string(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = interval.rounded(.down)
        var milliseconds = Int(((interval - seconds) * 1000).rounded(.down))
        if milliseconds >= 1000 { milliseconds = 999 }
        if milliseconds < 0 { milliseconds = 0 }
        if !seconds.isFinite { seconds = 0 }
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var text = ""
        text.reserveCapacity(24)
        text += padded(Int(parts.tm_year) + 1900, 4) + "-" + padded(Int(parts.tm_mon) + 1, 2) + "-" + padded(Int(parts.tm_mday), 2)
        text += "T" + padded(Int(parts.tm_hour), 2) + ":" + padded(Int(parts.tm_min), 2) + ":" + padded(Int(parts.tm_sec), 2)
        text += "." + padded(milliseconds, 3) + "Z"
        return text
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
