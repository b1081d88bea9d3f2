/// Day of Week (GSS "Day of Week"): 0 unknown, 1 Monday … 7 Sunday, 8-255 reserved for future use.
enum DayOfWeek {
    static let names = ["unknown", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static func name(_ raw: UInt8) -> String { Int(raw) < names.count ? names[Int(raw)] : FitnessText.reserved(raw) }
}

/// Date Time (0x2A08), read once (GSS "Date Time"): year uint16 (1582-9999, 0 unknown), month (1-12, 0 unknown), day
/// (1-31, 0 unknown), hours, minutes, seconds; each range is checked by `ByteReader.dateTime`.
public enum DateTimeCharacteristic {
    public static let characteristic = AssignedNumber(0x2A08)

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let time = try reader.dateTime("date-time")
        try reader.finish()
        return [Observation(profile: .currentTime, characteristic: characteristic, deviceTime: time, summary: time.shortText)]
    }
}

/// Current Time (0x2A2B), read and notified on a change (CTS v1.1 §3.1; GSS "Current Time"): Exact Time 256 — Day
/// Date Time (Date Time + Day of Week uint8) and Fractions256 (uint8, 1/256 s) — then Adjust Reason (uint8 bits:
/// 0 manual time update, 1 external reference time update, 2 change of time zone, 3 change of DST; 4-7 reserved).
public enum CurrentTime {
    public static let characteristic = AssignedNumber(0x2A2B)

    static let adjustReasonBits: [(bit: Int, name: String)] = [
        (0, "manual-time-update"),
        (1, "external-reference-time-update"),
        (2, "time-zone-change"),
        (3, "dst-change"),
    ]

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let time = try reader.dateTime("exact-time-256.date-time")
        let day = try reader.uint8("exact-time-256.day-of-week")
        let fractions = try reader.uint8("exact-time-256.fractions256")
        let adjust = try reader.uint8("adjust-reason")
        try reader.finish()

        // A reserved day of week is a fact about the device, not an uninterpretable time: kept as a detail.
        let dayName = DayOfWeek.name(day)
        // Fractions256 is the part of the second in 1/256 s, exact as a decimal; DeviceTime holds whole seconds, so
        // the fraction is a detail beside it, written with its trailing zeros dropped (128/256 → `0.5 s`, not the
        // raw 8-place `0.50000000 s`).
        let fraction = DecimalNumber(numerator: Int64(fractions), powerOfTwo: 8)
        let details = [ObservationDetail("day-of-week", dayName), ObservationDetail("fractions256", "\(fractions)/256 s"),
                       ObservationDetail("fraction-of-second", fraction.normalised.description + " s")]
        let flags = FitnessText.setBits(UInt32(adjust), adjustReasonBits)
        var text = time.shortText
        if day != 0 { text += " (" + dayName + ")" }
        return [Observation(profile: .currentTime, characteristic: characteristic, deviceTime: time, flags: flags, details: details,
                            summary: FitnessText.withFlags(text, flags))]
    }
}
