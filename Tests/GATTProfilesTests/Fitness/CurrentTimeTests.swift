import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct CurrentTimeTests {
    let decode: CharacteristicDecoder.Decode = CurrentTime.decode
    static let characteristic = AssignedNumber(0x2A2B)

    /// Current Time (CTS v1.1 §3.1): Exact Time 256 = Day Date Time (Date Time 7 bytes + Day of Week) + Fractions256,
    /// then Adjust Reason: 10 bytes.
    static func value(_ time: [UInt8] = fitDateTime(2026, 12, 7, 5, 43, 35), day: UInt8 = 1, fractions: UInt8 = 0x40,
                      adjust: UInt8 = 0x00) -> [UInt8] {
        time + [day, fractions, adjust]
    }

    static let layout = fitDateTimeLayout("exact-time-256.date-time", at: 0)
        + [FitField("exact-time-256.day-of-week", 7, 1), FitField("exact-time-256.fractions256", 8, 1), FitField("adjust-reason", 9, 1)]

    @Test func handVector() throws {
        // 0x07EA = 2026, December 7, 05:43:35; day of week 1 = Monday (2026-01-01 is a Thursday; Dec 7 is day 341,
        // 340 days later, 340 mod 7 = 4 → Monday); fractions 0x40 = 64/256 = 0.25 s; adjust reason 0x03 = bit 0 manual
        // time update + bit 1 external reference time update.
        let bytes: [UInt8] = [0xEA, 0x07, 0x0C, 0x07, 0x05, 0x2B, 0x23, 0x01, 0x40, 0x03]
        let o = try #require(fitDecode(decode, bytes))
        #expect(o.profile == .currentTime && o.characteristic == Self.characteristic)
        #expect(o.deviceTime == DeviceTime(year: 2026, month: 12, day: 7, hours: 5, minutes: 43, seconds: 35))
        #expect(o.detail("day-of-week") == "Monday")
        #expect(o.detail("fractions256") == "64/256 s")
        #expect(o.detail("fraction-of-second") == "0.25 s")
        #expect(o.flags == ["manual-time-update", "external-reference-time-update"])
        #expect(o.quantities.isEmpty)
        #expect(o.summary == "2026-12-07 05:43:35 (Monday) — manual time update, external reference time update")
        fitExpectTooShortAtEveryField(decode, bytes, Self.layout, characteristic: Self.characteristic)
    }

    /// Every Adjust Reason byte: bits 0-3 are named (CTS v1.1 §3.1 / GSS "Adjust Reason"), bits 4-7 are reserved
    /// (ignored: they name nothing and change no layout).
    @Test func everyAdjustReason() throws {
        let names = ["manual-time-update", "external-reference-time-update", "time-zone-change", "dst-change"]
        for adjust in 0...255 {
            let o = try #require(fitDecode(decode, Self.value(adjust: UInt8(adjust))))
            let expected = names.enumerated().filter { adjust & (1 << $0.offset) != 0 }.map(\.element)
            #expect(o.flags == expected, "adjust \(adjust)")
            let words = expected.map { $0.split(separator: "-").joined(separator: " ") }
            #expect(o.summary == "2026-12-07 05:43:35 (Monday)" + (words.isEmpty ? "" : " — " + words.joined(separator: ", ")))
        }
    }

    /// Every Day of Week byte (GSS "Day of Week"): 0 unknown, 1 Monday … 7 Sunday, 8-255 reserved (kept as a detail,
    /// the time is still good).
    @Test func everyDayOfWeek() throws {
        let days = ["unknown", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        for day in 0...255 {
            let o = try #require(fitDecode(decode, Self.value(day: UInt8(day))))
            let hex = String(day, radix: 16)
            let name = day < 8 ? days[day] : "reserved (0x" + (hex.count < 2 ? "0" : "") + hex + ")"
            #expect(o.detail("day-of-week") == name)
            // The summary names the day unless it is unknown.
            #expect(o.summary == "2026-12-07 05:43:35" + (day == 0 ? "" : " (\(name))"))
        }
        #expect(fitDecode(decode, Self.value(day: 0x0C))?.detail("day-of-week") == "reserved (0x0c)")
    }

    @Test func everyFraction() throws {
        for fractions in 0...255 {
            let o = try #require(fitDecode(decode, Self.value(fractions: UInt8(fractions))))
            #expect(o.detail("fractions256") == "\(fractions)/256 s")
            // n/256 s = n × 5⁸ × 10⁻⁸ s, compared as an exact decimal parsed back from the detail text.
            let text = try #require(o.detail("fraction-of-second"))
            #expect(text.hasSuffix(" s"))
            #expect(DecimalNumber(parsing: String(text.dropLast(2))) == fitDec(Int64(fractions) * 390_625, -8), "fractions \(fractions)")
        }
        // 0x80 = 128/256 = 0.5 s; 0xFF = 255/256 = 0.99609375 s; 0 = 0 s.
        #expect(fitDecode(decode, Self.value(fractions: 0x80))?.detail("fraction-of-second") == "0.5 s")
        #expect(fitDecode(decode, Self.value(fractions: 0xFF))?.detail("fraction-of-second") == "0.99609375 s")
        #expect(fitDecode(decode, Self.value(fractions: 0x00))?.detail("fraction-of-second") == "0 s")
    }

    @Test func unknownDate() throws {
        // Year 0, month 0, day 0 = unknown (GSS "Date Time"): decoded, reported as an unset clock, never an error.
        let o = try #require(fitDecode(decode, Self.value(fitDateTime(0, 0, 0, 12, 0, 0), day: 0)))
        #expect(o.deviceTime == DeviceTime(year: 0, month: 0, day: 0, hours: 12))
        #expect(o.deviceTime?.isKnown == false)
        #expect(o.summary == "unset clock")
    }

    @Test func outOfRangeDateTimeFields() {
        let c = Self.characteristic
        func expected(_ field: String, _ offset: Int, _ value: Int64) -> ProfileDecodeError {
            ProfileDecodeError(characteristic: c, field: "exact-time-256.date-time." + field, offset: offset, problem: .outOfRange(value: value))
        }
        #expect(fitError(decode, Self.value(fitDateTime(1581, 12, 7, 5, 43, 35))) == expected("year", 0, 1581))
        #expect(fitError(decode, Self.value(fitDateTime(2026, 13, 7, 5, 43, 35))) == expected("month", 2, 13))
        #expect(fitError(decode, Self.value(fitDateTime(2026, 12, 32, 5, 43, 35))) == expected("day", 3, 32))
        #expect(fitError(decode, Self.value(fitDateTime(2026, 12, 7, 24, 43, 35))) == expected("hours", 4, 24))
        #expect(fitError(decode, Self.value(fitDateTime(2026, 12, 7, 5, 60, 35))) == expected("minutes", 5, 60))
        #expect(fitError(decode, Self.value(fitDateTime(2026, 12, 7, 5, 43, 60))) == expected("seconds", 6, 60))
    }
}

@Suite(.offCooperativePool) struct DateTimeCharacteristicTests {
    let decode: CharacteristicDecoder.Decode = DateTimeCharacteristic.decode
    static let characteristic = AssignedNumber(0x2A08)

    @Test func handVector() throws {
        // 0x07EA = 2026, 0x0C = December, 0x06 = 6th, 08:12:30.
        let bytes: [UInt8] = [0xEA, 0x07, 0x0C, 0x06, 0x08, 0x0C, 0x1E]
        let o = try #require(fitDecode(decode, bytes))
        #expect(o.profile == .currentTime && o.characteristic == Self.characteristic)
        #expect(o.deviceTime == DeviceTime(year: 2026, month: 12, day: 6, hours: 8, minutes: 12, seconds: 30))
        #expect(o.summary == "2026-12-06 08:12:30")
        // Whole minutes: no seconds in the summary.
        #expect(fitDecode(decode, fitDateTime(2026, 12, 6, 8, 12, 0))?.summary == "2026-12-06 08:12")
        fitExpectTooShortAtEveryField(decode, bytes, fitDateTimeLayout("date-time", at: 0), characteristic: Self.characteristic)
    }

    /// Every year (uint16): GSS "Date Time" defines 1582-9999 and 0 (unknown); anything else is out of range at offset 0.
    @Test func everyYear() throws {
        for year in 0...65535 {
            let bytes = fitDateTime(UInt16(year), 6, 15, 12, 0, 0)
            if year == 0 || (1582...9999).contains(year) {
                #expect(fitDecode(decode, bytes)?.deviceTime?.year == year)
            } else {
                #expect(fitError(decode, bytes) == ProfileDecodeError(characteristic: Self.characteristic, field: "date-time.year", offset: 0,
                                                                       problem: .outOfRange(value: Int64(year))))
            }
        }
    }

    /// Every byte value of month (0-12), day (0-31), hours (0-23), minutes and seconds (0-59); 0 for month and day is
    /// "unknown", any larger value is out of range at the field's offset.
    @Test func everyByteField() throws {
        let fields: [(name: String, offset: Int, limit: Int)] = [("month", 2, 12), ("day", 3, 31), ("hours", 4, 23), ("minutes", 5, 59), ("seconds", 6, 59)]
        for field in fields {
            for raw in 0...255 {
                var bytes = fitDateTime(2026, 6, 15, 12, 30, 45)
                bytes[field.offset] = UInt8(raw)
                if raw <= field.limit {
                    let t = try #require(fitDecode(decode, bytes)?.deviceTime)
                    #expect([t.month, t.day, t.hours, t.minutes, t.seconds][field.offset - 2] == raw)
                } else {
                    #expect(fitError(decode, bytes) == ProfileDecodeError(characteristic: Self.characteristic, field: "date-time." + field.name,
                                                                           offset: field.offset, problem: .outOfRange(value: Int64(raw))))
                }
            }
        }
    }

    @Test func unknownParts() throws {
        // Year 0 → the clock is unset (isKnown false), the summary says so; month 0 or day 0 likewise.
        for bytes in [fitDateTime(0, 12, 6, 8, 12, 30), fitDateTime(2026, 0, 6, 8, 12, 30), fitDateTime(2026, 12, 0, 8, 12, 30)] {
            let o = try #require(fitDecode(decode, bytes))
            #expect(o.deviceTime?.isKnown == false)
            #expect(o.summary == "unset clock")
        }
    }
}
