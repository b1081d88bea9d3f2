/// A time as a device's own clock gave it: local time with no zone, as the GATT Date Time (0x2A08) carries it.
/// Year, month or day 0 means the device does not know it (an unset clock after a battery change): such a time is
/// reported, never trusted as a date.
public struct DeviceTime: Sendable, Hashable, Codable, CustomStringConvertible, Comparable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hours: Int
    public var minutes: Int
    public var seconds: Int

    public init(year: Int, month: Int, day: Int, hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// False when year, month or day is 0 (unknown).
    public var isKnown: Bool { year != 0 && month != 0 && day != 0 }

    /// `2026-12-06T08:12:00`: ISO 8601 local time without a zone (FHIR's dateTime without offset); an unknown part
    /// is written as zeros, and ``isKnown`` says whether to trust it.
    public var description: String {
        "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2))"
    }

    /// `2026-12-06 08:12`, for a person (seconds added when not zero).
    public var shortText: String {
        guard isKnown else { return "unset clock" }
        let base = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hours, 2)):\(pad(minutes, 2))"
        return seconds == 0 ? base : base + ":\(pad(seconds, 2))"
    }

    private func pad(_ n: Int, _ width: Int) -> String {
        let digits = String(n)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Seconds since 1970-01-01T00:00:00 of this local time read as if it were UTC (days from civil, H. Hinnant's
    /// algorithm): differences between two device times are exact, and adding the zone offset gives UTC.
    public var secondsSinceEpochAsIfUTC: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86_400 + Int64(hours) * 3_600 + Int64(minutes) * 60 + Int64(seconds)
    }

    /// The civil time `seconds` after 1970-01-01T00:00:00 (the inverse of ``secondsSinceEpochAsIfUTC``).
    public init(secondsSinceEpochAsIfUTC s: Int64) {
        var days = s / 86_400
        var rest = s % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        self.init(year: Int(y), month: Int(m), day: Int(d), hours: Int(rest / 3_600), minutes: Int(rest % 3_600 / 60), seconds: Int(rest % 60))
    }

    /// This time moved by `minutes` (a glucose record's time offset); an unknown time stays as it is.
    public func adding(minutes: Int) -> DeviceTime {
        guard isKnown else { return self }
        return DeviceTime(secondsSinceEpochAsIfUTC: secondsSinceEpochAsIfUTC + Int64(minutes) * 60)
    }

    public static func < (a: DeviceTime, b: DeviceTime) -> Bool { a.secondsSinceEpochAsIfUTC < b.secondsSinceEpochAsIfUTC }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).compactMap { Int($0) }
        guard parts.count == 6 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a device time: \(text)")
        }
        self.init(year: parts[0], month: parts[1], day: parts[2], hours: parts[3], minutes: parts[4], seconds: parts[5])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
