import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct DeviceTimeTests {
    func t(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> DeviceTime {
        DeviceTime(year: y, month: mo, day: d, hours: h, minutes: mi, seconds: s)
    }

    /// Gregorian leap years (worked out here, not by the type): divisible by 4, except centuries not divisible by 400.
    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }
    static func daysIn(_ y: Int, _ m: Int) -> Int { [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] }

    /// Minutes since 1900-01-01 00:00 by counting whole years and months (a naive civil calendar, independent of
    /// the Hinnant days-from-civil arithmetic DeviceTime uses).
    static func naiveMinutes(_ x: DeviceTime) -> Int {
        var days = 0
        for y in 1900..<x.year { days += isLeap(y) ? 366 : 365 }
        for m in 1..<x.month { days += daysIn(x.year, m) }
        days += x.day - 1
        return (days * 24 + x.hours) * 60 + x.minutes
    }

    @Test func acrossBoundaries() {
        // (start, minutes, expected), each by the civil calendar:
        let cases: [(DeviceTime, Int, DeviceTime)] = [
            // 23:30 + 45 min = 24:15 → next day 00:15; Dec 31 + 1 day = Jan 1 of the next year.
            (t(2026, 12, 31, 23, 30), 45, t(2027, 1, 1, 0, 15)),
            // 2024 is a leap year (2024 = 4 × 506, not a century): Feb 28 23:50 + 20 min = Feb 29 00:10.
            (t(2024, 2, 28, 23, 50), 20, t(2024, 2, 29, 0, 10)),
            // Feb 29 23:59 + 1 min = Mar 1 00:00 (February 2024 has 29 days).
            (t(2024, 2, 29, 23, 59), 1, t(2024, 3, 1)),
            // 2023 is not a leap year: Feb 28 23:59 + 1 = Mar 1.
            (t(2023, 2, 28, 23, 59), 1, t(2023, 3, 1)),
            // 1900 is a century not divisible by 400: not leap, Feb 28 → Mar 1.
            (t(1900, 2, 28, 23, 59), 1, t(1900, 3, 1)),
            // 2000 is divisible by 400: leap, Feb 28 → Feb 29.
            (t(2000, 2, 28, 23, 59), 1, t(2000, 2, 29)),
            // 2100 is not leap: Feb 28 → Mar 1.
            (t(2100, 2, 28, 23, 59), 1, t(2100, 3, 1)),
            // Backwards across the year: Jan 1 00:10 − 20 min = Dec 31 23:50 of the year before.
            (t(2027, 1, 1, 0, 10), -20, t(2026, 12, 31, 23, 50)),
            // Backwards across a non-leap February: Mar 1 00:00 − 1 = Feb 28 23:59.
            (t(2026, 3, 1), -1, t(2026, 2, 28, 23, 59)),
            // Backwards across a leap February: Mar 1 2028 00:00 − 1 = Feb 29 23:59 (2028 = 4 × 507).
            (t(2028, 3, 1), -1, t(2028, 2, 29, 23, 59)),
            // Seconds are carried along unchanged: Apr 30 23:59:45 + 1 min = May 1 00:00:45 (April has 30 days).
            (t(2026, 4, 30, 23, 59, 45), 1, t(2026, 5, 1, 0, 0, 45)),
            // 30-day months: Jun 30 23:00 + 60 = Jul 1; Sep 30 → Oct 1; Nov 30 → Dec 1.
            (t(2026, 6, 30, 23), 60, t(2026, 7, 1)),
            (t(2026, 9, 30, 23), 60, t(2026, 10, 1)),
            (t(2026, 11, 30, 23), 60, t(2026, 12, 1)),
            // A CGM session's 14 days: 14 × 1440 = 20160 min; Dec 6 08:12 → Dec 20 08:12.
            (t(2026, 12, 6, 8, 12), 20_160, t(2026, 12, 20, 8, 12)),
            // 365 days = 525 600 min from 2026-06-15 (no Feb 29 before 2027-06-15): same date next year.
            (t(2026, 6, 15, 12), 525_600, t(2027, 6, 15, 12)),
            // From 2027-06-15 a year holds Feb 29 2028: 366 days = 527 040 min to reach 2028-06-15.
            (t(2027, 6, 15, 12), 527_040, t(2028, 6, 15, 12)),
            // Zero minutes: unchanged.
            (t(2026, 12, 7, 5, 43, 35), 0, t(2026, 12, 7, 5, 43, 35)),
        ]
        for (start, minutes, expected) in cases {
            #expect(start.adding(minutes: minutes) == expected, "\(start) + \(minutes)")
        }
    }

    @Test func unknownTimeStaysAsItIs() {
        // Year 0, month 0 or day 0 = the device does not know it (GSS Date Time): adding moves nothing.
        for unknown in [t(0, 6, 1, 10), t(2026, 0, 1, 10), t(2026, 6, 0, 10), t(0, 0, 0, 23, 59, 59)] {
            #expect(unknown.isKnown == false)
            #expect(unknown.adding(minutes: 60) == unknown)
            #expect(unknown.adding(minutes: -100_000) == unknown)
            #expect(unknown.shortText == "unset clock")
        }
        #expect(t(0, 0, 0).description == "0000-00-00T00:00:00")
    }

    @Test func epochSeconds() {
        // 1970-01-01T00:00:00 = 0; 2000-03-01 = 11 017 days after (30 years incl. 7 leap days = 10 957, + Jan 31 +
        // Feb 29 = 60) = 951 868 800 s; 1969-12-31T23:59:59 = −1.
        #expect(t(1970, 1, 1).secondsSinceEpochAsIfUTC == 0)
        #expect(t(2000, 3, 1).secondsSinceEpochAsIfUTC == 951_868_800)
        #expect(t(1969, 12, 31, 23, 59, 59).secondsSinceEpochAsIfUTC == -1)
        #expect(DeviceTime(secondsSinceEpochAsIfUTC: -1) == t(1969, 12, 31, 23, 59, 59))
        #expect(DeviceTime(secondsSinceEpochAsIfUTC: 951_868_800) == t(2000, 3, 1))
    }

    /// 2 000 seeded random times in 1900-2199 and offsets up to ±4 years of minutes: the result is a valid civil time
    /// whose naive minute count differs from the start's by exactly the offset, with the seconds unchanged.
    @Test func randomOffsetsAgreeWithANaiveCalendar() {
        var rng = CoreSplitMix64(seed: 2026)
        for _ in 0..<2_000 {
            let y = 1900 + rng.below(300), m = 1 + rng.below(12)
            let start = t(y, m, 1 + rng.below(Self.daysIn(y, m)), rng.below(24), rng.below(60), rng.below(60))
            let minutes = rng.below(4 * 527_040) - 2 * 527_040
            let end = start.adding(minutes: minutes)
            guard end.year >= 1900 else { continue }
            #expect((1...12).contains(end.month) && (1...Self.daysIn(end.year, end.month)).contains(end.day), "\(start) + \(minutes)")
            #expect((0...23).contains(end.hours) && (0...59).contains(end.minutes) && end.seconds == start.seconds)
            #expect(Self.naiveMinutes(end) - Self.naiveMinutes(start) == minutes, "\(start) + \(minutes) = \(end)")
        }
    }

    @Test func textAndOrder() {
        #expect(t(2026, 12, 6, 8, 12).description == "2026-12-06T08:12:00")
        #expect(t(2026, 12, 6, 8, 12).shortText == "2026-12-06 08:12")
        #expect(t(2026, 12, 6, 8, 12, 5).shortText == "2026-12-06 08:12:05")
        #expect(t(2026, 12, 31, 23, 59, 59) < t(2027, 1, 1))
        #expect(t(2024, 2, 29) < t(2024, 3, 1))
    }
}
