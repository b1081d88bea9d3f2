/// Heart Rate Measurement (0x2A37), Heart Rate Service v1.0 §3.1 and GATT Specification Supplement (GSS) "Heart Rate
/// Measurement": Flags (uint8), Heart Rate Measurement Value (uint8 or uint16 by flag bit 0), Energy Expended (uint16
/// kJ, flag bit 3), RR-Interval (uint16, 1/1024 s, flag bit 4, one or more filling the rest of the value).
public enum HeartRateMeasurement {
    public static let characteristic = AssignedNumber(0x2A37)

    // Flags, HRS v1.0 §3.1.1.1.
    static let valueFormatUInt16: UInt8 = 0x01        // bit 0
    static let contactStatusMask: UInt8 = 0x06        // bits 1-2: 0b00/0b01 not supported, 0b10 not detected, 0b11 detected
    static let energyExpendedPresent: UInt8 = 0x08    // bit 3
    static let rrIntervalPresent: UInt8 = 0x10        // bit 4 (bits 5-7 reserved: ignored, the layout does not change)

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint8("flags")

        let rate: UInt16 = flags & valueFormatUInt16 != 0 ? try reader.uint16("heart-rate") : UInt16(try reader.uint8("heart-rate"))
        var quantities = [Quantity(.heartRate, DecimalNumber(Int(rate)), .beatsPerMinute)]
        var flagNames: [String] = []
        var parts: [String] = []

        // HRS v1.0 §3.1.1.2: values 0 and 1 both mean "Sensor Contact feature is not supported"; no flag then.
        switch (flags & contactStatusMask) >> 1 {
        case 0b10:
            flagNames.append("sensor-contact-not-detected")
            parts.append("no contact")
        case 0b11:
            flagNames.append("sensor-contact-detected")
            parts.append("contact")
        default:
            break
        }

        if flags & energyExpendedPresent != 0 {
            let energy = try reader.uint16("energy-expended")
            quantities.append(Quantity(.energyExpended, DecimalNumber(Int(energy)), .kilojoules))
            parts.append("\(energy) kJ")
            // HRS v1.0 §3.1.1.3: at 65535 kJ the field stays at 0xFFFF until the client resets it through the Heart
            // Rate Control Point: the true total may be higher.
            if energy == 0xFFFF { flagNames.append("energy-expended-at-maximum") }
        }

        if flags & rrIntervalPresent != 0 {
            // HRS v1.0 §3.1.1.4: "one or more" RR-Intervals, as many as fit (the oldest first). An odd byte left over
            // is a truncated interval; the flag with no interval at all contradicts "one or more".
            var intervals: [DecimalNumber] = []
            repeat {
                let raw = try reader.uint16("rr-interval")
                intervals.append(DecimalNumber(numerator: Int64(raw), powerOfTwo: 10))   // 1/1024 s, exact
            } while !reader.isAtEnd
            for interval in intervals { quantities.append(Quantity(.rrInterval, interval, .seconds)) }
            parts.append("RR " + intervals.map { $0.text(places: 2) }.joined(separator: ", ") + " s")
        }
        try reader.finish()

        var summary = "\(rate) bpm"
        if !parts.isEmpty { summary += " (" + parts.joined(separator: "; ") + ")" }
        let wordsFlags = flagNames.filter { $0 == "energy-expended-at-maximum" }   // contact is already in the brackets
        return [Observation(profile: .heartRate, characteristic: characteristic, quantities: quantities, flags: flagNames,
                            summary: VitalsText.withFlags(summary, wordsFlags))]
    }
}

/// Body Sensor Location (0x2A38), HRS v1.0 §3.2 and GSS "Body Sensor Location": one uint8.
public enum BodySensorLocation {
    public static let characteristic = AssignedNumber(0x2A38)

    /// GSS "Body Sensor Location": 0 Other … 6 Foot; 7-255 reserved for future use.
    static let names = ["other", "chest", "wrist", "finger", "hand", "ear lobe", "foot"]

    /// The location's words, or `reserved (0x07)`.
    static func name(_ raw: UInt8) -> String { Int(raw) < names.count ? names[Int(raw)] : VitalsText.reserved(raw) }

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let raw = try reader.uint8("body-sensor-location")
        try reader.finish()
        // A reserved value is a fact about the device, not an uninterpretable reading: kept as a detail.
        let location = name(raw)
        return [Observation(profile: .heartRate, characteristic: characteristic,
                            details: [ObservationDetail("body-sensor-location", location)],
                            summary: "\(location) (body sensor location)")]
    }
}
