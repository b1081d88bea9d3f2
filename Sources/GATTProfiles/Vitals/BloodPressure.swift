/// The value layout Blood Pressure Measurement (0x2A35) and Intermediate Cuff Pressure (0x2A36) share, Blood Pressure
/// Service v1.1.1 §3.1-3.2 and GSS "Blood Pressure Measurement" / "Intermediate Cuff Pressure": Flags (uint8), a
/// compound value of three SFLOATs (systolic, diastolic, MAP; for 2A36 the current cuff pressure and two unused NaNs),
/// Time Stamp (flag bit 1), Pulse Rate SFLOAT (bit 2), User ID uint8 (bit 3), Measurement Status uint16 (bit 4).
enum BloodPressureLayout {
    static let unitsKilopascal: UInt8 = 0x01       // bit 0: 0 mmHg, 1 kPa
    static let timeStampPresent: UInt8 = 0x02      // bit 1
    static let pulseRatePresent: UInt8 = 0x04      // bit 2
    static let userIDPresent: UInt8 = 0x08         // bit 3
    static let measurementStatusPresent: UInt8 = 0x10  // bit 4 (bits 5-7 reserved: ignored)

    struct Fields {
        var first: MeasurementValue
        var diastolic: MeasurementValue
        var mean: MeasurementValue
        var unit: MeasurementUnit
        var time: DeviceTime?
        var pulse: MeasurementValue?
        var userID: UInt8?
        var flags: [String] = []
        var details: [ObservationDetail] = []
    }

    static func read(_ bytes: [UInt8], _ characteristic: AssignedNumber, firstField: String) throws(ProfileDecodeError) -> Fields {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint8("flags")
        // Units exactly as sent: the flag picks mmHg or kPa for all three compound sub-fields (BPS §3.1.1.1).
        let unit: MeasurementUnit = flags & unitsKilopascal != 0 ? .kilopascals : .millimetresOfMercury
        var fields = Fields(first: try reader.sfloat(firstField), diastolic: try reader.sfloat("diastolic"),
                            mean: try reader.sfloat("mean-arterial-pressure"), unit: unit)
        if flags & timeStampPresent != 0 { fields.time = try reader.dateTime("time-stamp") }
        if flags & pulseRatePresent != 0 { fields.pulse = try reader.sfloat("pulse-rate") }
        if flags & userIDPresent != 0 {
            let id = try reader.uint8("user-id")
            fields.userID = id
            // BPS §3.1.1.4: 255 is "unknown user"; other values index the user in User Data Service terms.
            fields.details.append(ObservationDetail("user-id", id == 255 ? "unknown" : String(id)))
        }
        if flags & measurementStatusPresent != 0 {
            let status = try reader.uint16("measurement-status")
            // BPS v1.1.1 §3.1.1.5, in bit order; bits 6-15 reserved (ignored).
            if status & 0x0001 != 0 { fields.flags.append("body-movement") }          // body movement during measurement
            if status & 0x0002 != 0 { fields.flags.append("cuff-too-loose") }         // cuff fit too loose
            if status & 0x0004 != 0 { fields.flags.append("irregular-pulse") }        // irregular pulse detected
            // Bits 3-4, Pulse Rate Range Detection: 0 within range, 1 exceeds upper limit, 2 below lower limit,
            // 3 reserved (kept as a detail: the rest of the reading stands).
            switch (status >> 3) & 0b11 {
            case 1: fields.flags.append("pulse-rate-exceeds-upper-limit")
            case 2: fields.flags.append("pulse-rate-below-lower-limit")
            case 3: fields.details.append(ObservationDetail("pulse-rate-range", VitalsText.reserved(3)))
            default: break
            }
            if status & 0x0020 != 0 { fields.flags.append("improper-measurement-position") }
        }
        try reader.finish()
        return fields
    }

    /// `, pulse 64 bpm, user 3, device time …`.
    static func qualifiers(_ fields: Fields) -> String {
        var text = ""
        if let pulse = fields.pulse { text += ", pulse " + pulse.text() + " bpm" }
        if let id = fields.userID, id != 255 { text += ", user \(id)" }
        return text + VitalsText.deviceTime(fields.time)
    }

    static func pulseQuantity(_ fields: Fields) -> [Quantity] {
        fields.pulse.map { [Quantity(.bloodPressurePulseRate, $0, .beatsPerMinute)] } ?? []
    }
}

/// Blood Pressure Measurement (0x2A35), indicated once per measurement (BPS v1.1.1 §3.1).
public enum BloodPressureMeasurement {
    public static let characteristic = AssignedNumber(0x2A35)

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        let f = try BloodPressureLayout.read(bytes, characteristic, firstField: "systolic")
        let quantities = [Quantity(.systolicPressure, f.first, f.unit), Quantity(.diastolicPressure, f.diastolic, f.unit),
                          Quantity(.meanArterialPressure, f.mean, f.unit)] + BloodPressureLayout.pulseQuantity(f)
        let text = f.first.text() + "/" + f.diastolic.text() + " " + f.unit.symbol + BloodPressureLayout.qualifiers(f)
        return [Observation(profile: .bloodPressure, characteristic: characteristic, quantities: quantities, deviceTime: f.time,
                            flags: f.flags, details: f.details, summary: VitalsText.withFlags(text, f.flags))]
    }
}

/// Intermediate Cuff Pressure (0x2A36), notified while the cuff inflates or deflates (BPS v1.1.1 §3.2): the systolic
/// sub-field is the current cuff pressure, diastolic and MAP "shall be set to NaN" — kept only when a device sends a
/// number there anyway.
public enum IntermediateCuffPressure {
    public static let characteristic = AssignedNumber(0x2A36)

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        let f = try BloodPressureLayout.read(bytes, characteristic, firstField: "current-cuff-pressure")
        var quantities = [Quantity(.cuffPressure, f.first, f.unit)]
        if f.diastolic != .notANumber { quantities.append(Quantity(.diastolicPressure, f.diastolic, f.unit)) }
        if f.mean != .notANumber { quantities.append(Quantity(.meanArterialPressure, f.mean, f.unit)) }
        quantities += BloodPressureLayout.pulseQuantity(f)
        let text = f.first.text() + " " + f.unit.symbol + " cuff pressure" + BloodPressureLayout.qualifiers(f)
        return [Observation(profile: .bloodPressure, characteristic: characteristic, quantities: quantities, deviceTime: f.time,
                            flags: f.flags, details: f.details, summary: VitalsText.withFlags(text, f.flags))]
    }
}

/// Blood Pressure Feature (0x2A49), read once (BPS v1.1.1 §3.3, GSS "Blood Pressure Feature"): uint16 of support bits.
public enum BloodPressureFeature {
    public static let characteristic = AssignedNumber(0x2A49)

    /// Bits 0-5 (BPS v1.0 and v1.1); bits 6-8 were added with BPS v1.1 (E2E-CRC, User Data Service, User Facing Time);
    /// bits 9-15 are reserved for future use.
    static let featureBits: [(bit: Int, name: String)] = [
        (0, "body-movement-detection"),
        (1, "cuff-fit-detection"),
        (2, "irregular-pulse-detection"),
        (3, "pulse-rate-range-detection"),
        (4, "measurement-position-detection"),
        (5, "multiple-bonds"),
        (6, "e2e-crc"),
        (7, "user-data-service"),
        (8, "user-facing-time"),
    ]

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let raw = try reader.uint16("blood-pressure-feature")
        try reader.finish()
        let supported = VitalsText.setBits(UInt32(raw), featureBits)
        let details = featureBits.map { ObservationDetail($0.name, raw & (1 << UInt16($0.bit)) != 0 ? "supported" : "not supported") }
        let summary = supported.isEmpty ? "blood pressure features: none" : "blood pressure features: " + supported.map(VitalsText.words).joined(separator: ", ")
        return [Observation(profile: .bloodPressure, characteristic: characteristic, flags: supported, details: details, summary: summary)]
    }
}
