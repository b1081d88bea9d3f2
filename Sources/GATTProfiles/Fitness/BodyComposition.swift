/// Body Composition Measurement (0x2A9C), indicated once per measurement (BCS v1.0 §3.2; GSS "Body Composition
/// Measurement"): Flags (uint16), Body Fat Percentage (uint16, 0.1 %, always present), then by flag bit: Time Stamp
/// (1), User ID (2), Basal Metabolism (3, uint16 kJ), Muscle Percentage (4, 0.1 %), Muscle Mass (5), Fat Free Mass
/// (6), Soft Lean Mass (7), Body Water Mass (8), Impedance (9, uint16 0.1 Ω), Weight (10), Height (11); the masses
/// are kg × 0.005 or lb × 0.01 and the height m × 0.001 or in × 0.1 by bit 0. Bit 12 "Multiple Packet Measurement":
/// a value longer than ATT_MTU − 3 is sent as two indications, each a complete value (Flags, Body Fat Percentage and
/// the fields it carries); the first carries the leading fields, the second the rest, in field order.
public enum BodyCompositionMeasurement {
    public static let characteristic = AssignedNumber(0x2A9C)

    // Flags, BCS v1.0 §3.2; bits 13-15 reserved for future use (ignored: the layout does not change).
    static let unitsImperial: UInt16 = 0x0001          // bit 0
    static let timeStampPresent: UInt16 = 0x0002       // bit 1
    static let userIDPresent: UInt16 = 0x0004          // bit 2
    static let multiplePacket: UInt16 = 0x1000         // bit 12
    /// Bits 1-11: the optional fields, whose order on the wire is their bit order.
    static let optionalFieldMask: UInt16 = 0x0FFE

    /// BCS v1.0 §3.2: 0xFFFF in Body Fat Percentage is "Measurement Unsuccessful".
    static let measurementUnsuccessful: UInt16 = 0xFFFF

    enum Kind { case kilojoules, percent, mass, impedance, height }
    /// Bits 3-11 in wire order: field name, metric, how the raw value scales.
    static let optionalFields: [(bit: Int, field: String, metric: Metric, kind: Kind)] = [
        (3, "basal-metabolism", .basalMetabolism, .kilojoules),
        (4, "muscle-percentage", .musclePercentage, .percent),
        (5, "muscle-mass", .muscleMass, .mass),
        (6, "fat-free-mass", .fatFreeMass, .mass),
        (7, "soft-lean-mass", .softLeanMass, .mass),
        (8, "body-water-mass", .bodyWaterMass, .mass),
        (9, "impedance", .impedance, .impedance),
        (10, "weight", .bodyWeight, .mass),
        (11, "height", .bodyHeight, .height),
    ]

    /// One indication, field by field as sent.
    struct Packet {
        var flags: UInt16
        var bodyFat: UInt16
        var time: DeviceTime?
        var userID: UInt8?
        var fields: [(bit: Int, raw: UInt16)] = []

        var imperial: Bool { flags & BodyCompositionMeasurement.unitsImperial != 0 }
        var isMultiplePacket: Bool { flags & BodyCompositionMeasurement.multiplePacket != 0 }
        /// The optional-field bits (1-11) this packet announces.
        var presentBits: [Int] { (1...11).filter { flags & (1 << UInt16($0)) != 0 } }
    }

    static func read(_ bytes: [UInt8]) throws(ProfileDecodeError) -> Packet {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint16("flags")
        var packet = Packet(flags: flags, bodyFat: try reader.uint16("body-fat-percentage"))
        if flags & timeStampPresent != 0 { packet.time = try reader.dateTime("time-stamp") }
        if flags & userIDPresent != 0 { packet.userID = try reader.uint8("user-id") }
        for field in optionalFields where flags & (1 << UInt16(field.bit)) != 0 {
            packet.fields.append((field.bit, try reader.uint16(field.field)))
        }
        try reader.finish()
        return packet
    }

    /// True when `first` is the first half of the measurement `second` completes (BCS v1.0 §3.2 bit 12): both
    /// carry the Multiple Packet Measurement bit and the same unit system, and every optional field of the first
    /// comes before every optional field of the second in field order — the server fills the first indication with
    /// the leading fields and continues in the second. A second half followed by the next measurement's first half
    /// (or two first halves after a lost indication) fails this test and is not joined.
    static func isFirstHalf(_ first: Packet, of second: Packet) -> Bool {
        guard first.isMultiplePacket, second.isMultiplePacket, first.imperial == second.imperial else { return false }
        guard let last = first.presentBits.last, let next = second.presentBits.first else { return true }
        return last < next
    }

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        let current = try read(bytes)
        if current.isMultiplePacket, let previousBytes = context.previous,
           let previous = try? read(previousBytes), isFirstHalf(previous, of: current) {
            return [observation([previous, current])]
        }
        return [observation([current])]
    }

    /// One observation from one packet, or from the two halves of a multiple-packet measurement (first, second).
    static func observation(_ packets: [Packet]) -> Observation {
        let first = packets[0]
        var quantities: [Quantity] = []
        var flags: [String] = []
        var details: [ObservationDetail] = []

        if first.bodyFat == measurementUnsuccessful {
            flags.append("measurement-unsuccessful")
        } else {
            quantities.append(Quantity(.bodyFatPercentage, DecimalNumber(mantissa: Int64(first.bodyFat), exponent: -1), .percent))
        }
        // Time stamp and user come from whichever packet carries them (the first, in practice).
        let time = packets.lazy.compactMap(\.time).first
        if let id = packets.lazy.compactMap(\.userID).first { details.append(FitnessText.userDetail(id)) }
        for packet in packets {
            for (bit, raw) in packet.fields {
                guard let field = optionalFields.first(where: { $0.bit == bit }) else { continue }
                quantities.append(quantity(field.metric, field.kind, raw, imperial: packet.imperial))
            }
        }
        if first.isMultiplePacket { flags.append("multiple-packet-measurement") }
        if packets.count == 2 {
            flags.append("packets-merged")
            // Each half repeats the mandatory Body Fat Percentage; the first half's is reported. A second half
            // that disagrees is kept as a detail, not silently dropped.
            if packets[1].bodyFat != first.bodyFat {
                let text = packets[1].bodyFat == measurementUnsuccessful ? "measurement unsuccessful"
                    : DecimalNumber(mantissa: Int64(packets[1].bodyFat), exponent: -1).description + " %"
                details.append(ObservationDetail("second-packet-body-fat-percentage", text))
            }
        }
        var observation = Observation(profile: .bodyComposition, characteristic: characteristic, quantities: quantities,
                                      deviceTime: time, flags: flags, details: details, summary: "")
        observation.summary = summary(observation)
        return observation
    }

    static func quantity(_ metric: Metric, _ kind: Kind, _ raw: UInt16, imperial: Bool) -> Quantity {
        switch kind {
        case .kilojoules: return Quantity(metric, DecimalNumber(Int(raw)), .kilojoules)         // BCS §3.2: 1 kJ
        case .percent: return Quantity(metric, DecimalNumber(mantissa: Int64(raw), exponent: -1), .percent)
        case .impedance: return Quantity(metric, DecimalNumber(mantissa: Int64(raw), exponent: -1), .ohms)  // 0.1 Ω
        case .mass:
            let (value, unit) = BodyUnits.mass(raw, imperial: imperial)
            return Quantity(metric, value, unit)
        case .height:
            let (value, unit) = BodyUnits.height(raw, imperial: imperial)
            return Quantity(metric, value, unit)
        }
    }

    /// `21.3 % body fat, weight 72.35 kg, BMI 23.4, user 3, device time 2026-12-06 08:12 — flags`, built from the
    /// observation itself so that ``BodyCompositionMerge`` can rebuild it after adding the weight scale's values.
    static func summary(_ o: Observation) -> String {
        var parts: [String] = []
        if let fat = o.quantity(Metric.bodyFatPercentage.name) {
            parts.append(fat.text() + " body fat")
        } else {
            parts.append("no body fat")
        }
        for q in o.quantities where q.metric.name != Metric.bodyFatPercentage.name {
            let label: String
            switch q.metric.name {
            case Metric.bodyWeight.name: label = "weight"
            case Metric.bodyHeight.name: label = "height"
            case Metric.bodyMassIndex.name: label = "BMI"
            case Metric.musclePercentage.name: label = "muscle"
            default: label = q.metric.display
            }
            parts.append(label + " " + (q.metric.name == Metric.bodyMassIndex.name ? q.value.text() : q.text()))
        }
        var text = parts.joined(separator: ", ")
        if let user = o.detail("user-id"), user != "unknown" { text += ", user " + user }
        text += FitnessText.deviceTime(o.deviceTime)
        return FitnessText.withFlags(text, o.flags)
    }
}

/// Joins a Body Composition Measurement with the Weight Measurement taken in the same session: a scale that hosts both
/// services (BCS fields Weight and Height are optional, flag bits 10-11) may leave weight and height out of the body
/// composition value and send them, with BMI, on 0x2A9D. Pure: the caller picks the pair.
public enum BodyCompositionMerge {
    /// `composition` with the weight, height and BMI of `weight` added where the composition lacks them. Nothing is
    /// added when either is not the characteristic it should be, or when both name a user and the users differ (two
    /// people's readings are never mixed); otherwise the added values carry the units the scale sent, the detail
    /// `merged-from = 2A9D` says where they came from, and the summary is rebuilt.
    public static func merge(composition: Observation, weight: Observation) -> Observation {
        guard composition.characteristic == BodyCompositionMeasurement.characteristic,
              weight.characteristic == WeightMeasurement.characteristic else { return composition }
        if let a = composition.detail("user-id"), let b = weight.detail("user-id"), a != b { return composition }
        var merged = composition
        var added = false
        for metric in [Metric.bodyWeight, .bodyHeight, .bodyMassIndex] where merged.quantity(metric.name) == nil {
            if let q = weight.quantity(metric.name) {
                merged.quantities.append(q)
                added = true
            }
        }
        guard added else { return composition }
        merged.details.append(ObservationDetail("merged-from", weight.characteristic.description))
        merged.summary = BodyCompositionMeasurement.summary(merged)
        return merged
    }
}

/// Body Composition Feature (0x2A9B), read once (BCS v1.0 §3.1; GSS "Body Composition Feature"): uint32.
public enum BodyCompositionFeature {
    public static let characteristic = AssignedNumber(0x2A9B)

    /// Bits 0-10; bits 11-14 mass resolution, 15-17 height resolution, 18-31 reserved for future use.
    static let featureBits: [(bit: Int, name: String)] = [
        (0, "time-stamp"),
        (1, "multiple-users"),
        (2, "basal-metabolism"),
        (3, "muscle-percentage"),
        (4, "muscle-mass"),
        (5, "fat-free-mass"),
        (6, "soft-lean-mass"),
        (7, "body-water-mass"),
        (8, "impedance"),
        (9, "weight"),
        (10, "height"),
    ]

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let raw = try reader.uint32("body-composition-feature")
        try reader.finish()
        let supported = FitnessText.setBits(raw, featureBits)
        var details = featureBits.map { ObservationDetail($0.name, raw & (1 << UInt32($0.bit)) != 0 ? "supported" : "not supported") }
        let massResolution = BodyUnits.resolution((raw >> 11) & 0x0F, BodyUnits.massResolutions)
        let heightResolution = BodyUnits.resolution((raw >> 15) & 0x07, BodyUnits.heightResolutions)
        details.append(ObservationDetail("mass-resolution", massResolution))
        details.append(ObservationDetail("height-resolution", heightResolution))
        let names = supported.isEmpty ? "none" : supported.map(FitnessText.words).joined(separator: ", ")
        let summary = "body composition features: \(names); mass resolution \(massResolution), height resolution \(heightResolution)"
        return [Observation(profile: .bodyComposition, characteristic: characteristic, flags: supported, details: details,
                            summary: summary)]
    }
}
