/// The body-size units Weight Scale (WSS v1.0) and Body Composition (BCS v1.0) share: one flag bit (bit 0 of each
/// measurement's Flags, "Measurement Units") picks SI or imperial for every mass and length field of the value, and
/// each system has its own resolution (GSS "Weight Measurement" / "Body Composition Measurement"). Values are kept
/// in the unit sent, as exact decimals: a raw mass of 14470 is 14470 × 0.005 = 72.35 kg (mantissa 72350 × 10⁻³),
/// never converted to pounds or back.
enum BodyUnits {
    /// Mass: SI kg with resolution 0.005 (raw × 5 × 10⁻³), imperial lb with resolution 0.01 (raw × 10⁻²).
    static func mass(_ raw: UInt16, imperial: Bool) -> (DecimalNumber, MeasurementUnit) {
        imperial ? (DecimalNumber(mantissa: Int64(raw), exponent: -2), .pounds)
                 : (DecimalNumber(mantissa: Int64(raw) * 5, exponent: -3), .kilograms)
    }

    /// Height: SI m with resolution 0.001 (raw × 10⁻³), imperial in with resolution 0.1 (raw × 10⁻¹).
    static func height(_ raw: UInt16, imperial: Bool) -> (DecimalNumber, MeasurementUnit) {
        imperial ? (DecimalNumber(mantissa: Int64(raw), exponent: -1), .inches)
                 : (DecimalNumber(mantissa: Int64(raw), exponent: -3), .metres)
    }

    /// WSS v1.0 §3.1 / BCS v1.0 §3.1 (Weight Scale Feature bits 3-6, Body Composition Feature bits 11-14):
    /// the weight (mass) measurement resolution; 8-15 reserved for future use.
    static let massResolutions = ["not specified", "0.5 kg or 1 lb", "0.2 kg or 0.5 lb", "0.1 kg or 0.2 lb", "0.05 kg or 0.1 lb",
                                  "0.02 kg or 0.05 lb", "0.01 kg or 0.02 lb", "0.005 kg or 0.01 lb"]
    /// Height measurement resolution (Weight Scale Feature bits 7-9, Body Composition Feature bits 15-17); 4-7 reserved.
    static let heightResolutions = ["not specified", "0.01 m or 1 in", "0.005 m or 0.5 in", "0.001 m or 0.1 in"]

    static func resolution(_ raw: UInt32, _ table: [String]) -> String {
        Int(raw) < table.count ? table[Int(raw)] : FitnessText.reserved(raw)
    }
}

/// Weight Measurement (0x2A9D), indicated once per weighing (WSS v1.0 §3.2; GSS "Weight Measurement"): Flags (uint8),
/// Weight (uint16, kg × 0.005 or lb × 0.01 by flag bit 0), Time Stamp (Date Time, bit 1), User ID (uint8, bit 2),
/// BMI (uint16, 0.1 kg/m²) and Height (uint16, m × 0.001 or in × 0.1), both present when bit 3 is set.
public enum WeightMeasurement {
    public static let characteristic = AssignedNumber(0x2A9D)

    // Flags, WSS v1.0 §3.2; bits 4-7 reserved for future use (ignored: the layout does not change).
    static let unitsImperial: UInt8 = 0x01         // bit 0: 0 SI (kg, m), 1 imperial (lb, in)
    static let timeStampPresent: UInt8 = 0x02      // bit 1
    static let userIDPresent: UInt8 = 0x04         // bit 2
    static let bmiAndHeightPresent: UInt8 = 0x08   // bit 3

    /// WSS v1.0 §3.2: "The special value of 0xFFFF can be used to indicate 'Measurement Unsuccessful'"; the
    /// server then disables every optional field but Time Stamp and User ID. Such a value has no weight quantity
    /// (0xFFFF × 0.005 = 327.675 kg would be a lie) but is delivered, with the flag `measurement-unsuccessful`.
    static let measurementUnsuccessful: UInt16 = 0xFFFF

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint8("flags")
        let imperial = flags & unitsImperial != 0
        let rawWeight = try reader.uint16("weight")
        let time: DeviceTime? = flags & timeStampPresent != 0 ? try reader.dateTime("time-stamp") : nil
        let userID: UInt8? = flags & userIDPresent != 0 ? try reader.uint8("user-id") : nil
        var bmi: UInt16?
        var height: UInt16?
        if flags & bmiAndHeightPresent != 0 {
            bmi = try reader.uint16("bmi")
            height = try reader.uint16("height")
        }
        try reader.finish()

        var quantities: [Quantity] = []
        var flagNames: [String] = []
        var parts: [String] = []
        if rawWeight == measurementUnsuccessful {
            flagNames.append("measurement-unsuccessful")
            parts.append("no weight")
        } else {
            let (value, unit) = BodyUnits.mass(rawWeight, imperial: imperial)
            let weight = Quantity(.bodyWeight, value, unit)
            quantities.append(weight)
            parts.append(weight.text())
        }
        if let bmi, let height {
            // BMI: GSS "Unit is 0.1 kg/m2" (M = 1, d = -1, b = 0), whatever the unit system of the weight.
            let bmiQuantity = Quantity(.bodyMassIndex, DecimalNumber(mantissa: Int64(bmi), exponent: -1), .kilogramsPerSquareMetre)
            let (h, hUnit) = BodyUnits.height(height, imperial: imperial)
            let heightQuantity = Quantity(.bodyHeight, h, hUnit)
            quantities += [bmiQuantity, heightQuantity]
            parts.append("BMI " + bmiQuantity.value.text())
            parts.append("height " + heightQuantity.text())
        }
        let details = userID.map { [FitnessText.userDetail($0)] } ?? []
        let text = parts.joined(separator: ", ") + FitnessText.user(userID) + FitnessText.deviceTime(time)
        return [Observation(profile: .weightScale, characteristic: characteristic, quantities: quantities, deviceTime: time,
                            flags: flagNames, details: details, summary: FitnessText.withFlags(text, flagNames))]
    }
}

/// Weight Scale Feature (0x2A9E), read once (WSS v1.0 §3.1; GSS "Weight Scale Feature"): uint32.
public enum WeightScaleFeature {
    public static let characteristic = AssignedNumber(0x2A9E)

    /// Bits 0-2; bits 3-6 weight resolution, 7-9 height resolution, 10-31 reserved for future use.
    static let featureBits: [(bit: Int, name: String)] = [
        (0, "time-stamp"),
        (1, "multiple-users"),
        (2, "bmi"),
    ]

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let raw = try reader.uint32("weight-scale-feature")
        try reader.finish()
        let supported = FitnessText.setBits(raw, featureBits)
        var details = featureBits.map { ObservationDetail($0.name, raw & (1 << UInt32($0.bit)) != 0 ? "supported" : "not supported") }
        let weightResolution = BodyUnits.resolution((raw >> 3) & 0x0F, BodyUnits.massResolutions)
        let heightResolution = BodyUnits.resolution((raw >> 7) & 0x07, BodyUnits.heightResolutions)
        details.append(ObservationDetail("weight-resolution", weightResolution))
        details.append(ObservationDetail("height-resolution", heightResolution))
        let names = supported.isEmpty ? "none" : supported.map { $0 == "bmi" ? "BMI" : FitnessText.words($0) }.joined(separator: ", ")
        let summary = "weight scale features: \(names); weight resolution \(weightResolution), height resolution \(heightResolution)"
        return [Observation(profile: .weightScale, characteristic: characteristic, flags: supported, details: details, summary: summary)]
    }
}
