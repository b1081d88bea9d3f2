/// Glucose Measurement (0x2A18), Glucose Service (GLS) v1.0 and GATT Specification Supplement (GSS) "Glucose
/// Measurement": Flags (uint8), Sequence Number (uint16), Base Time (Date Time, 7 octets), Time Offset (sint16
/// minutes, flag bit 0), Glucose Concentration (SFLOAT, kg/L or mol/L by flag bit 2) and Type-Sample Location (uint8:
/// type in bits 0-3, sample location in bits 4-7), both by flag bit 1, Sensor Status Annunciation (uint16, flag bit 3);
/// flag bit 4 says a Glucose Measurement Context with the same sequence number follows. Bits 5-7 are reserved for
/// future use: ignored, the layout does not change.
public enum GlucoseMeasurement {
    public static let characteristic = AssignedNumber(0x2A18)

    static let timeOffsetPresent: UInt8 = 0x01            // bit 0
    static let concentrationPresent: UInt8 = 0x02         // bit 1: concentration + type-sample location
    static let unitsMolesPerLitre: UInt8 = 0x04           // bit 2: 0 = kg/L, 1 = mol/L
    static let sensorStatusPresent: UInt8 = 0x08          // bit 3
    static let contextFollows: UInt8 = 0x10               // bit 4

    /// Sensor Status Annunciation bits 0-11 (GSS "Glucose Measurement"; bits 12-15 reserved). Bit 5 is "Sensor result
    /// higher than the device can process" and bit 6 "lower" (GSS; Nordic nRF5 SDK ble_gls.h, Wireshark, RivieraWaves
    /// agree — Nordic's Android-BLE-Library swaps the two names).
    static let statusNames = ["device-battery-low", "sensor-malfunction", "sample-size-insufficient", "strip-insertion-error",
                              "strip-type-incorrect", "result-above-range", "result-below-range", "temperature-too-high",
                              "temperature-too-low", "read-interrupted", "general-device-fault", "time-fault"]

    /// kg/L → mg/dL: 1 kg/L = 10⁶ mg per 10 dL = 10⁵ mg/dL, an exact decimal exponent shift of +5.
    static let kilogramsPerLitreToMilligramsPerDecilitre = 5
    /// mol/L → mmol/L: exponent shift of +3.
    static let molesPerLitreToMillimolesPerLitre = 3

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint8("flags")
        let sequence = try reader.uint16("sequence-number")
        let baseTime = try reader.dateTime("base-time")

        var details: [ObservationDetail] = []
        var deviceTime = baseTime
        if flags & timeOffsetPresent != 0 {
            // GSS "Glucose Measurement", Time Offset: the record's time is Base Time + Time Offset (a signed count of
            // minutes, so a clock correction after the reading moves it either way); the offset is kept too, for a
            // person checking it.
            let offset = try reader.int16("time-offset")
            deviceTime = baseTime.adding(minutes: Int(offset))
            details.append(ObservationDetail("time-offset-minutes", String(offset)))
        }

        var quantities: [Quantity] = []
        var head = "no concentration"
        if flags & concentrationPresent != 0 {
            let concentration = try reader.sfloat("glucose-concentration")
            let typeLocation = try reader.uint8("type-sample-location")
            let type = GlucoseSampleType(typeLocation & 0x0F)
            let location = GlucoseSampleLocation.name(typeLocation >> 4, allowSubcutaneous: false)
            let molar = flags & unitsMolesPerLitre != 0
            // The meter sends SI base units; a person reads mg/dL or mmol/L. Same quantity, decimal rescaling only
            // (no mass↔molar conversion, which would need glucose's molar mass): the exponent moves, the digits stay.
            let shift = molar ? molesPerLitreToMillimolesPerLitre : kilogramsPerLitreToMilligramsPerDecilitre
            let unit: MeasurementUnit = molar ? .millimolesPerLitre : .milligramsPerDecilitre
            let value = shifted(concentration, by: shift)
            quantities.append(Quantity(type.metric(molar: molar), value, unit))
            details.append(ObservationDetail("sample-type", type.name))
            details.append(ObservationDetail("sample-location", location))
            head = value.text() + " " + unit.symbol + (type.isDefined ? " " + type.name : ", sample type " + type.name)
        }

        var flagNames: [String] = []
        if flags & sensorStatusPresent != 0 {
            let status = try reader.uint16("sensor-status-annunciation")
            flagNames += GlucoseText.bitFlags(UInt32(status), width: 16, names: statusNames, reservedPrefix: "sensor-status")
        }
        if flags & contextFollows != 0 { flagNames.append("context-follows") }
        try reader.finish()

        let summary = head + ", record \(sequence)" + GlucoseText.deviceTime(deviceTime)
        return [Observation(profile: .glucose, characteristic: characteristic, quantities: quantities, deviceTime: deviceTime,
                            record: Int64(sequence), flags: flagNames, details: details,
                            summary: GlucoseText.withFlags(summary, flagNames))]
    }

    /// `value × 10^shift`, exactly; a special value stays as it is.
    static func shifted(_ value: MeasurementValue, by shift: Int) -> MeasurementValue {
        guard let d = value.decimal else { return value }
        return .number(DecimalNumber(mantissa: d.mantissa, exponent: d.exponent + shift))
    }
}

/// Glucose Measurement Context (0x2A34), GLS v1.0 and GSS "Glucose Measurement Context": Flags (uint8),
/// Sequence Number (uint16), Extended Flags (uint8, bit 7), Carbohydrate ID (uint8) + Carbohydrate (SFLOAT kg) (bit 0),
/// Meal (uint8, bit 1), Tester-Health (uint8: tester bits 0-3, health bits 4-7; bit 2), Exercise Duration (uint16 s)
/// + Exercise Intensity (uint8 %) (bit 3), Medication ID (uint8) + Medication (SFLOAT kg, or L when bit 5) (bit 4),
/// HbA1c (SFLOAT %, bit 6). The fields come in that order, Extended Flags first after the sequence number.
public enum GlucoseMeasurementContext {
    public static let characteristic = AssignedNumber(0x2A34)

    static let carbohydratePresent: UInt8 = 0x01
    static let mealPresent: UInt8 = 0x02
    static let testerHealthPresent: UInt8 = 0x04
    static let exercisePresent: UInt8 = 0x08
    static let medicationPresent: UInt8 = 0x10
    static let medicationInLitres: UInt8 = 0x20
    static let hba1cPresent: UInt8 = 0x40
    static let extendedFlagsPresent: UInt8 = 0x80

    // GSS "Glucose Measurement Context" enumerations (0 and the values past the list reserved for future use).
    static let carbohydrateNames = ["", "breakfast", "lunch", "dinner", "snack", "drink", "supper", "brunch"]
    static let mealNames = ["", "preprandial", "postprandial", "fasting", "casual", "bedtime"]
    static let testerNames = ["", "self", "health care professional", "lab test"]             // 15 = not available
    static let healthNames = ["", "minor health issues", "major health issues", "during menses", "under stress",
                              "no health issues"]                                              // 15 = not available
    static let medicationNames = ["", "rapid acting insulin", "short acting insulin", "intermediate acting insulin",
                                  "long acting insulin", "pre-mixed insulin"]

    static func name(_ raw: UInt8, _ table: [String], notAvailable: Bool = false) -> String {
        if notAvailable && raw == 15 { return "not available" }
        return raw >= 1 && Int(raw) < table.count ? table[Int(raw)] : GlucoseText.reserved(raw)
    }

    /// kg → g (+3) and kg → mg (+6), L → mL (+3): exact decimal exponent shifts of the value as sent.
    static let kilogramsToGrams = 3
    static let kilogramsToMilligrams = 6
    static let litresToMillilitres = 3

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint8("flags")
        let sequence = try reader.uint16("sequence-number")

        var quantities: [Quantity] = []
        var details: [ObservationDetail] = []
        var flagNames: [String] = []
        var parts: [String] = []

        if flags & extendedFlagsPresent != 0 {
            // GSS: every Extended Flags bit is reserved for future use; kept as a fact, the layout does not change.
            let extended = try reader.uint8("extended-flags")
            details.append(ObservationDetail("extended-flags", GlucoseText.hex(extended)))
        }
        if flags & carbohydratePresent != 0 {
            let id = try reader.uint8("carbohydrate-id")
            let amount = GlucoseMeasurement.shifted(try reader.sfloat("carbohydrate"), by: kilogramsToGrams)
            let meal = name(id, carbohydrateNames)
            quantities.append(Quantity(.carbohydrate, amount, .grams))
            details.append(ObservationDetail("carbohydrate-id", meal))
            parts.append(amount.text() + " g carbohydrate (" + meal + ")")
        }
        if flags & mealPresent != 0 {
            let meal = name(try reader.uint8("meal"), mealNames)
            details.append(ObservationDetail("meal", meal))
            parts.append(meal)
        }
        if flags & testerHealthPresent != 0 {
            let raw = try reader.uint8("tester-health")
            let tester = name(raw & 0x0F, testerNames, notAvailable: true)
            let health = name(raw >> 4, healthNames, notAvailable: true)
            details.append(ObservationDetail("tester", tester))
            details.append(ObservationDetail("health", health))
            parts.append("tester " + tester)
            parts.append("health " + health)
        }
        if flags & exercisePresent != 0 {
            let duration = try reader.uint16("exercise-duration")
            let intensity = try reader.uint8("exercise-intensity")
            quantities.append(Quantity(.exerciseDuration, DecimalNumber(Int(duration)), .seconds))
            quantities.append(Quantity(.exerciseIntensity, DecimalNumber(Int(intensity)), .percent))
            // GSS: 65535 means "overrun": the exercise lasted at least that long.
            if duration == 0xFFFF { flagNames.append("exercise-duration-overrun") }
            parts.append("exercise \(duration) s at \(intensity) %")
        }
        if flags & medicationPresent != 0 {
            let id = try reader.uint8("medication-id")
            let raw = try reader.sfloat("medication")
            let litres = flags & medicationInLitres != 0
            let amount = GlucoseMeasurement.shifted(raw, by: litres ? litresToMillilitres : kilogramsToMilligrams)
            let unit: MeasurementUnit = litres ? .millilitres : .milligrams
            let drug = name(id, medicationNames)
            quantities.append(Quantity(.medication, amount, unit))
            details.append(ObservationDetail("medication-id", drug))
            parts.append(amount.text() + " " + unit.symbol + " " + drug)
        }
        if flags & hba1cPresent != 0 {
            let value = try reader.sfloat("hba1c")
            quantities.append(Quantity(.hba1c, value, .percent))
            parts.append("HbA1c " + value.text() + " %")
        }
        try reader.finish()

        let head = parts.isEmpty ? "no context" : parts.joined(separator: ", ")
        return [Observation(profile: .glucose, characteristic: characteristic, quantities: quantities, record: Int64(sequence),
                            flags: flagNames, details: details,
                            summary: GlucoseText.withFlags(head + ", record \(sequence)", flagNames))]
    }

    /// The context part of a context observation's summary: without its `, record N` and its flags.
    static func description(of context: Observation) -> String {
        var text = Substring(context.summary)
        if let dash = text.firstRange(of: " — ") { text = text[..<dash.lowerBound] }
        if let record = context.record, text.hasSuffix(", record \(record)") { text = text.dropLast(", record \(record)".count) }
        return String(text)
    }
}

/// Joins a Glucose Measurement with its Glucose Measurement Context (GLS v1.0: the context carries the sequence
/// number of the measurement it belongs to and follows it when the measurement's flag bit 4 is set). Pure: the
/// caller keeps the measurement until its context arrives.
public enum GlucoseRecordJoin {
    /// The measurement with the context's quantities, details and flags appended and its description added to the
    /// summary, when `measurement` is a 2A18 observation, `context` a 2A34 one, and their records (sequence numbers)
    /// match; nil otherwise.
    public static func join(measurement: Observation, context: Observation) -> Observation? {
        guard measurement.characteristic == GlucoseMeasurement.characteristic,
              context.characteristic == GlucoseMeasurementContext.characteristic,
              let record = measurement.record, record == context.record else { return nil }
        var joined = measurement
        joined.quantities += context.quantities
        joined.details += context.details
        for flag in context.flags where !joined.flags.contains(flag) { joined.flags.append(flag) }
        // Rebuild the summary: the measurement's text, then the context's description, then all flags in words.
        var head = Substring(measurement.summary)
        if let dash = head.firstRange(of: " — ") { head = head[..<dash.lowerBound] }
        joined.summary = GlucoseText.withFlags(head + "; " + GlucoseMeasurementContext.description(of: context), joined.flags)
        return joined
    }
}

/// Glucose Feature (0x2A51), GLS v1.0 and GSS "Glucose Feature": one 16-bit field of supported features (bits
/// 0-10; 11-15 reserved for future use).
public enum GlucoseFeature {
    public static let characteristic = AssignedNumber(0x2A51)

    static let featureNames = ["low-battery-detection-supported", "sensor-malfunction-detection-supported",
                               "sensor-sample-size-supported", "sensor-strip-insertion-error-detection-supported",
                               "sensor-strip-type-error-detection-supported", "sensor-result-high-low-detection-supported",
                               "sensor-temperature-high-low-detection-supported", "sensor-read-interrupt-detection-supported",
                               "general-device-fault-supported", "time-fault-supported", "multiple-bond-supported"]

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let features = try reader.uint16("glucose-feature")
        try reader.finish()
        let flags = GlucoseText.bitFlags(UInt32(features), width: 16, names: featureNames, reservedPrefix: "feature")
        let head = flags.isEmpty ? "glucose features: none" : "glucose features: \(flags.count) supported"
        return [Observation(profile: .glucose, characteristic: characteristic, flags: flags,
                            details: [ObservationDetail("features", GlucoseText.hex(features))],
                            summary: GlucoseText.withFlags(head, flags))]
    }
}
