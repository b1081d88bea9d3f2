/// What the Pulse Oximeter Service v1.0 (PLXS) measurements share: the Measurement Status (uint16) and Device and
/// Sensor Status (uint24) bit fields (PLXS §3.1.1.4-5, §3.2.1.4-5; GSS "PLX Spot-Check Measurement" / "PLX
/// Continuous Measurement"), and what PLX Features (0x2A60) says about them.
enum PulseOximetryLayout {
    /// Measurement Status, bits 0-4 reserved.
    static let measurementStatusBits: [(bit: Int, name: String)] = [
        (5, "measurement-ongoing"),
        (6, "early-estimated-data"),
        (7, "validated-data"),
        (8, "fully-qualified-data"),
        (9, "data-from-measurement-storage"),
        (10, "data-for-demonstration"),
        (11, "data-for-testing"),
        (12, "calibration-ongoing"),
        (13, "measurement-unavailable"),
        (14, "questionable-measurement"),
        (15, "invalid-measurement"),
    ]

    /// Device and Sensor Status, bits 16-23 reserved.
    static let deviceAndSensorStatusBits: [(bit: Int, name: String)] = [
        (0, "extended-display-update-ongoing"),
        (1, "equipment-malfunction"),
        (2, "signal-processing-irregularity"),
        (3, "inadequate-signal"),
        (4, "poor-signal"),
        (5, "low-perfusion"),
        (6, "erratic-signal"),
        (7, "non-pulsatile-signal"),
        (8, "questionable-pulse"),
        (9, "signal-analysis-ongoing"),
        (10, "sensor-interference"),
        (11, "sensor-unconnected-to-user"),
        (12, "unknown-sensor-connected"),
        (13, "sensor-displaced"),
        (14, "sensor-malfunctioning"),
        (15, "sensor-disconnected"),
    ]

    /// The parts of a PLX Features value a measurement needs.
    struct Support {
        var measurementStatus: UInt16?
        var deviceAndSensorStatus: UInt32?
    }

    /// PLX Features as read on this link, when it was and decodes; nil otherwise (a bad features value must not spoil
    /// the measurement).
    static func support(_ context: DecodingContext) -> Support? {
        guard let bytes = context.features[PLXFeatures.characteristic],
              let features = try? PLXFeatures.fields(bytes) else { return nil }
        return Support(measurementStatus: features.measurementStatusSupport, deviceAndSensorStatus: features.deviceAndSensorStatusSupport)
    }

    /// Reads the two status fields when their flags announce them, adding a flag for every set bit and, when PLX
    /// Features gives the support masks, a detail naming the conditions the device does not report: PLXS §3.3.1.2-3
    /// makes each status bit meaningful only where its support bit is set, so a clear bit there means "not
    /// detected" and elsewhere only "not monitored". A set bit the features call unsupported is still a flag (never
    /// dropped).
    static func readStatus(_ reader: inout ByteReader, measurementStatus: Bool, deviceAndSensorStatus: Bool, context: DecodingContext,
                           flags: inout [String], details: inout [ObservationDetail]) throws(ProfileDecodeError) {
        let support = support(context)
        if measurementStatus {
            let raw = UInt32(try reader.uint16("measurement-status"))
            flags += VitalsText.setBits(raw, measurementStatusBits)
            if let mask = support?.measurementStatus {
                let unsupported = VitalsText.setBits(~UInt32(mask), measurementStatusBits)
                if !unsupported.isEmpty { details.append(ObservationDetail("measurement-status-not-supported", unsupported.joined(separator: ", "))) }
            }
        }
        if deviceAndSensorStatus {
            let raw = try reader.uint24("device-and-sensor-status")
            flags += VitalsText.setBits(raw, deviceAndSensorStatusBits)
            if let mask = support?.deviceAndSensorStatus {
                let unsupported = VitalsText.setBits(~mask, deviceAndSensorStatusBits)
                if !unsupported.isEmpty { details.append(ObservationDetail("device-and-sensor-status-not-supported", unsupported.joined(separator: ", "))) }
            }
        }
    }

    /// `97 % SpO2, pulse 64 bpm`.
    static func text(_ spo2: MeasurementValue, _ pulse: MeasurementValue) -> String {
        spo2.text() + " % SpO2, pulse " + pulse.text() + " bpm"
    }
}

/// PLX Spot-Check Measurement (0x2A5E), indicated once per spot-check (PLXS v1.0 §3.1, GSS "PLX Spot-Check
/// Measurement"): Flags (uint8), SpO2PR-Spot-Check (SpO2 and PR SFLOATs), Timestamp (flag bit 0), Measurement Status
/// (bit 1), Device and Sensor Status (bit 2), Pulse Amplitude Index SFLOAT (bit 3); bit 4 says the device clock is
/// not set.
public enum PLXSpotCheckMeasurement {
    public static let characteristic = AssignedNumber(0x2A5E)

    static let timestampPresent: UInt8 = 0x01
    static let measurementStatusPresent: UInt8 = 0x02
    static let deviceAndSensorStatusPresent: UInt8 = 0x04
    static let pulseAmplitudeIndexPresent: UInt8 = 0x08
    static let deviceClockNotSet: UInt8 = 0x10          // bits 5-7 reserved: ignored

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint8("flags")
        let spo2 = try reader.sfloat("spo2")
        let pulse = try reader.sfloat("pulse-rate")
        var quantities = [Quantity(.spo2, spo2, .percent), Quantity(.oximetryPulseRate, pulse, .beatsPerMinute)]
        var time: DeviceTime?
        if flags & timestampPresent != 0 { time = try reader.dateTime("timestamp") }
        var flagNames: [String] = []
        var details: [ObservationDetail] = []
        // A time stamp from an unset clock is reported with the flag, never trusted silently (PLXS §3.1.1.1).
        if flags & deviceClockNotSet != 0 { flagNames.append("device-clock-not-set") }
        try PulseOximetryLayout.readStatus(&reader, measurementStatus: flags & measurementStatusPresent != 0,
                                           deviceAndSensorStatus: flags & deviceAndSensorStatusPresent != 0, context: context,
                                           flags: &flagNames, details: &details)
        var summary = PulseOximetryLayout.text(spo2, pulse)
        if flags & pulseAmplitudeIndexPresent != 0 {
            let pai = try reader.sfloat("pulse-amplitude-index")
            quantities.append(Quantity(.pulseAmplitudeIndex, pai, .percent))
            summary += ", PAI " + pai.text() + " %"
        }
        try reader.finish()
        summary += VitalsText.deviceTime(time)
        return [Observation(profile: .pulseOximeter, characteristic: characteristic, quantities: quantities, deviceTime: time,
                            flags: flagNames, details: details, summary: VitalsText.withFlags(summary, flagNames))]
    }
}

/// PLX Continuous Measurement (0x2A5F), notified periodically (PLXS v1.0 §3.2, GSS "PLX Continuous Measurement"):
/// Flags (uint8), SpO2PR-Normal, SpO2PR-Fast (flag bit 0), SpO2PR-Slow (bit 1), Measurement Status (bit 2), Device and
/// Sensor Status (bit 3), Pulse Amplitude Index (bit 4). No time stamp: the reading is "now".
public enum PLXContinuousMeasurement {
    public static let characteristic = AssignedNumber(0x2A5F)

    static let fastPresent: UInt8 = 0x01
    static let slowPresent: UInt8 = 0x02
    static let measurementStatusPresent: UInt8 = 0x04
    static let deviceAndSensorStatusPresent: UInt8 = 0x08
    static let pulseAmplitudeIndexPresent: UInt8 = 0x10   // bits 5-7 reserved: ignored

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let flags = try reader.uint8("flags")
        let spo2 = try reader.sfloat("spo2")
        let pulse = try reader.sfloat("pulse-rate")
        var quantities = [Quantity(.spo2, spo2, .percent), Quantity(.oximetryPulseRate, pulse, .beatsPerMinute)]
        var responses: [String] = []
        if flags & fastPresent != 0 {
            let s = try reader.sfloat("spo2-fast"), p = try reader.sfloat("pulse-rate-fast")
            quantities += [Quantity(.spo2Fast, s, .percent), Quantity(.pulseRateFast, p, .beatsPerMinute)]
            responses.append("fast " + s.text() + " %/" + p.text() + " bpm")
        }
        if flags & slowPresent != 0 {
            let s = try reader.sfloat("spo2-slow"), p = try reader.sfloat("pulse-rate-slow")
            quantities += [Quantity(.spo2Slow, s, .percent), Quantity(.pulseRateSlow, p, .beatsPerMinute)]
            responses.append("slow " + s.text() + " %/" + p.text() + " bpm")
        }
        var flagNames: [String] = []
        var details: [ObservationDetail] = []
        try PulseOximetryLayout.readStatus(&reader, measurementStatus: flags & measurementStatusPresent != 0,
                                           deviceAndSensorStatus: flags & deviceAndSensorStatusPresent != 0, context: context,
                                           flags: &flagNames, details: &details)
        var summary = PulseOximetryLayout.text(spo2, pulse)
        if flags & pulseAmplitudeIndexPresent != 0 {
            let pai = try reader.sfloat("pulse-amplitude-index")
            quantities.append(Quantity(.pulseAmplitudeIndex, pai, .percent))
            summary += ", PAI " + pai.text() + " %"
        }
        try reader.finish()
        if !responses.isEmpty { summary += " (" + responses.joined(separator: "; ") + ")" }
        return [Observation(profile: .pulseOximeter, characteristic: characteristic, quantities: quantities,
                            flags: flagNames, details: details, summary: VitalsText.withFlags(summary, flagNames))]
    }
}

/// PLX Features (0x2A60), read once (PLXS v1.0 §3.3, GSS "PLX Features"): Supported Features (uint16), then Measurement
/// Status Support (uint16) when bit 0 is set and Device and Sensor Status Support (uint24) when bit 1 is set.
public enum PLXFeatures {
    public static let characteristic = AssignedNumber(0x2A60)

    /// Supported Features bits; 8-15 reserved.
    static let featureBits: [(bit: Int, name: String)] = [
        (0, "measurement-status"),
        (1, "device-and-sensor-status"),
        (2, "spot-check-measurement-storage"),
        (3, "spot-check-timestamp"),
        (4, "spo2pr-fast"),
        (5, "spo2pr-slow"),
        (6, "pulse-amplitude-index"),
        (7, "multiple-bonds"),
    ]

    struct Fields {
        var supported: UInt16
        var measurementStatusSupport: UInt16?
        var deviceAndSensorStatusSupport: UInt32?
    }

    static func fields(_ bytes: [UInt8]) throws(ProfileDecodeError) -> Fields {
        var reader = ByteReader(bytes, characteristic: characteristic)
        var fields = Fields(supported: try reader.uint16("supported-features"))
        if fields.supported & 0x0001 != 0 { fields.measurementStatusSupport = try reader.uint16("measurement-status-support") }
        if fields.supported & 0x0002 != 0 { fields.deviceAndSensorStatusSupport = try reader.uint24("device-and-sensor-status-support") }
        try reader.finish()
        return fields
    }

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        let f = try fields(bytes)
        let supported = VitalsText.setBits(UInt32(f.supported), featureBits)
        var details = featureBits.map { ObservationDetail($0.name, f.supported & (1 << UInt16($0.bit)) != 0 ? "supported" : "not supported") }
        if let mask = f.measurementStatusSupport {
            details.append(ObservationDetail("measurement-status-support",
                                             VitalsText.setBits(UInt32(mask), PulseOximetryLayout.measurementStatusBits).joined(separator: ", ")))
        }
        if let mask = f.deviceAndSensorStatusSupport {
            details.append(ObservationDetail("device-and-sensor-status-support",
                                             VitalsText.setBits(mask, PulseOximetryLayout.deviceAndSensorStatusBits).joined(separator: ", ")))
        }
        let summary = "pulse oximeter features: " + (supported.isEmpty ? "none" : supported.map(VitalsText.words).joined(separator: ", "))
        return [Observation(profile: .pulseOximeter, characteristic: characteristic, flags: supported, details: details, summary: summary)]
    }
}

