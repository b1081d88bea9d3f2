/// What the CGM characteristics share: the Sensor Status Annunciation octets and the E2E-CRC decision.
enum CGMShared {
    static let featureCharacteristic = AssignedNumber(0x2AA8)
    static let sessionStartTimeCharacteristic = AssignedNumber(0x2AAA)

    /// CGM Sensor Status Annunciation (GSS "CGM Measurement" and "CGM Status"): 24 bits, the Status-Octet in bits 0-7,
    /// the Cal/Temp-Octet in bits 8-15, the Warning-Octet in bits 16-23. Cal/Temp bit 6 (annunciation bit 14) is named
    /// "Calibration pending" in a transcription of the GSS YAML (the bluetooth-sig Python library) and reserved in the
    /// older SIG XML and Nordic's parsers: not verified against the GSS text itself; either way the bit becomes a flag.
    /// Status bits 6-7 and Cal/Temp bit 7 are reserved for future use.
    static let statusOctetNames = ["session-stopped", "device-battery-low", "sensor-type-incorrect", "sensor-malfunction",
                                   "device-specific-alert", "general-device-fault"]
    static let calTempOctetNames = ["time-synchronization-required", "calibration-not-allowed", "calibration-recommended",
                                    "calibration-required", "temperature-too-high", "temperature-too-low", "calibration-pending"]
    static let warningOctetNames = ["result-below-patient-low", "result-above-patient-high", "result-below-hypo",
                                    "result-above-hyper", "rate-of-decrease-exceeded", "rate-of-increase-exceeded",
                                    "result-below-range", "result-above-range"]

    /// The flag names of the three octets (nil for an octet that is absent), reserved bits named by their 24-bit index.
    static func annunciationFlags(status: UInt8?, calTemp: UInt8?, warning: UInt8?) -> [String] {
        var flags: [String] = []
        if let status {
            flags += GlucoseText.bitFlags(UInt32(status), width: 8, names: statusOctetNames, reservedPrefix: "sensor-status")
        }
        if let calTemp {
            flags += GlucoseText.bitFlags(UInt32(calTemp), width: 8, names: calTempOctetNames, reservedPrefix: "sensor-status",
                                          bitOffset: 8)
        }
        if let warning {
            flags += GlucoseText.bitFlags(UInt32(warning), width: 8, names: warningOctetNames, reservedPrefix: "sensor-status",
                                          bitOffset: 16)
        }
        return flags
    }

    /// Whether the CGM Feature read on this link says "E2E-CRC supported" (feature bit 12); nil when no well-formed
    /// (6-octet) CGM Feature is known.
    static func e2eCRCSupported(_ context: DecodingContext) -> Bool? {
        guard let feature = context.features[featureCharacteristic], feature.count == 6 else { return nil }
        return feature[1] & 0x10 != 0
    }

    /// The CGM Feature's Type nibble, when a well-formed CGM Feature is known.
    static func sampleType(_ context: DecodingContext) -> GlucoseSampleType? {
        guard let feature = context.features[featureCharacteristic], feature.count == 6 else { return nil }
        return GlucoseSampleType(feature[3] & 0x0F)
    }

    /// The session start time, when a CGM Session Start Time value on this link decodes (its own CRC checked).
    static func sessionStart(_ context: DecodingContext) -> DeviceTime? {
        guard let value = context.features[sessionStartTimeCharacteristic] else { return nil }
        do throws(ProfileDecodeError) {
            return try CGMSessionStartTime.decode(value, context: context).first?.deviceTime
        } catch {
            return nil
        }
    }

    /// Reads the E2E-CRC at the reader's position and checks it over `bytes[start..<crcOffset]`, or checks that no
    /// bytes are left. The E2E-CRC is there when the CGM Feature says "E2E-CRC supported"; when no feature is known,
    /// exactly 2 bytes left over are taken as the CRC (CGMS: the CRC is the last field) and checked. Returns whether a
    /// CRC was read.
    static func readCRC(_ reader: inout ByteReader, from start: Int, context: DecodingContext) throws(ProfileDecodeError) -> Bool {
        let present: Bool
        switch e2eCRCSupported(context) {
        case true?: present = true
        case false?: present = false
        case nil: present = reader.remaining == 2
        }
        guard present else {
            try reader.finish()
            return false
        }
        let crcOffset = reader.offset
        let sent = try reader.uint16("e2e-crc")
        let computed = CRC16MCRF4XX.checksum(reader.bytes[start..<crcOffset])
        if sent != computed { throw reader.error("e2e-crc", .crcMismatch(sent: sent, computed: computed), at: crcOffset) }
        try reader.finish()
        return true
    }
}

/// CGM Measurement (0x2AA7), CGMS v1.0.1 and GSS "CGM Measurement": one or more CGM Measurement Records, each
/// Size (uint8, the record's length including itself), Flags (uint8), CGM Glucose Concentration (SFLOAT mg/dL), Time
/// Offset (uint16 minutes since the session start), Sensor Status Annunciation (Status-Octet if flag bit 7, Cal/Temp-
/// Octet if bit 6, Warning-Octet if bit 5, in that order: the 24-bit annunciation's octets, least significant first,
/// only those flagged), CGM Trend Information (SFLOAT mg/dL/min, bit 0), CGM Quality (SFLOAT %, bit 1), E2E-CRC
/// (uint16 over the record, when the CGM Feature says "E2E-CRC supported"). Flag bits 2-4 are reserved.
///
/// The octet order is the GSS structure order, Status then Cal/Temp then Warning (as the bluetooth-sig Python
/// library transcribes the GSS YAML, and as Nordic's nRF Toolbox iOS tests lay out a record); RivieraWaves' CGMP
/// headers pair the Status-Octet (session stopped …) with flag bit 7 and the Warning-Octet (patient low …) with bit 5
/// likewise. Nordic's Android-BLE-Library and Cypress's CGMS example read the flag-bit-5 octet first and give it the
/// Status meanings, following a mislabelled SIG XML: both readings agree when all three octets are present, as usual.
public enum CGMMeasurement {
    public static let characteristic = AssignedNumber(0x2AA7)

    static let trendPresent: UInt8 = 0x01
    static let qualityPresent: UInt8 = 0x02
    static let warningOctetPresent: UInt8 = 0x20
    static let calTempOctetPresent: UInt8 = 0x40
    static let statusOctetPresent: UInt8 = 0x80
    /// Size + Flags + Concentration + Time Offset.
    static let minimumRecordSize = 6

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        guard !bytes.isEmpty else {
            throw ProfileDecodeError(characteristic: characteristic, field: "size", offset: 0, problem: .tooShort(needed: 1, available: 0))
        }
        let sessionStart = CGMShared.sessionStart(context)
        let sampleType = CGMShared.sampleType(context)
        var observations: [Observation] = []
        var start = 0
        while start < bytes.count {
            let size = Int(bytes[start])
            if size < minimumRecordSize { throw error("size", .outOfRange(value: Int64(size)), at: start) }
            if start + size > bytes.count {
                throw error("size", .tooShort(needed: size, available: bytes.count - start), at: start)
            }
            // A reader that ends where the Size byte says the record ends, offsets still counted in the whole value.
            var reader = ByteReader(Array(bytes[..<(start + size)]), characteristic: characteristic, offset: start + 1)
            observations.append(try record(&reader, start: start, context: context, sessionStart: sessionStart, sampleType: sampleType))
            start += size
        }
        return observations
    }

    static func error(_ field: String, _ problem: ProfileDecodeError.Problem, at offset: Int) -> ProfileDecodeError {
        ProfileDecodeError(characteristic: characteristic, field: field, offset: offset, problem: problem)
    }

    static func record(_ reader: inout ByteReader, start: Int, context: DecodingContext, sessionStart: DeviceTime?,
                       sampleType: GlucoseSampleType?) throws(ProfileDecodeError) -> Observation {
        let flags = try reader.uint8("flags")
        let concentration = try reader.sfloat("cgm-glucose-concentration")
        let offset = try reader.uint16("time-offset")
        let status = flags & statusOctetPresent != 0 ? try reader.uint8("sensor-status-annunciation.status") : nil
        let calTemp = flags & calTempOctetPresent != 0 ? try reader.uint8("sensor-status-annunciation.cal-temp") : nil
        let warning = flags & warningOctetPresent != 0 ? try reader.uint8("sensor-status-annunciation.warning") : nil
        let trend = flags & trendPresent != 0 ? try reader.sfloat("cgm-trend-information") : nil
        let quality = flags & qualityPresent != 0 ? try reader.sfloat("cgm-quality") : nil
        let crcChecked = try CGMShared.readCRC(&reader, from: start, context: context)

        // CGMS: the concentration is always mg/dL; the sample type is the CGM Feature's, when known.
        var quantities = [Quantity(sampleType?.metric(molar: false) ?? .glucoseConcentration, concentration, .milligramsPerDecilitre)]
        var parts: [String] = []
        if let trend {
            quantities.append(Quantity(.glucoseTrend, trend, .milligramsPerDecilitrePerMinute))
            parts.append("trend " + trend.text() + " mg/dL/min")
        }
        if let quality {
            quantities.append(Quantity(.glucoseQuality, quality, .percent))
            parts.append("quality " + quality.text() + " %")
        }
        var details = [ObservationDetail("time-offset-minutes", String(offset))]
        if let sampleType { details.append(ObservationDetail("sample-type", sampleType.name)) }
        if crcChecked { details.append(ObservationDetail("e2e-crc", "valid")) }
        let flagNames = CGMShared.annunciationFlags(status: status, calTemp: calTemp, warning: warning)
        let deviceTime = sessionStart?.adding(minutes: Int(offset))

        var summary = concentration.text() + " mg/dL"
        if !parts.isEmpty { summary += " (" + parts.joined(separator: "; ") + ")" }
        summary += ", session minute \(offset)" + GlucoseText.deviceTime(deviceTime)
        return Observation(profile: .continuousGlucose, characteristic: characteristic, quantities: quantities, deviceTime: deviceTime,
                           record: Int64(offset), flags: flagNames, details: details, summary: GlucoseText.withFlags(summary, flagNames))
    }
}

/// CGM Feature (0x2AA8), CGMS v1.0.1 and GSS "CGM Feature": CGM Feature (24 bits), Type-Sample Location (uint8:
/// type bits 0-3, sample location bits 4-7), E2E-CRC (uint16: the CRC of the first 4 octets when feature bit 12 "E2E-CRC
/// supported" is set, else 0xFFFF).
public enum CGMFeature {
    public static let characteristic = AssignedNumber(0x2AA8)

    static let featureNames = ["calibration-supported", "patient-high-low-alerts-supported", "hypo-alerts-supported",
                               "hyper-alerts-supported", "rate-of-increase-decrease-alerts-supported", "device-specific-alert-supported",
                               "sensor-malfunction-detection-supported", "sensor-temperature-high-low-detection-supported",
                               "sensor-result-high-low-detection-supported", "low-battery-detection-supported",
                               "sensor-type-error-detection-supported", "general-device-fault-supported", "e2e-crc-supported",
                               "multiple-bond-supported", "multiple-sessions-supported", "cgm-trend-information-supported",
                               "cgm-quality-supported"]
    static let e2eCRCSupported: UInt32 = 1 << 12

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let features = try reader.uint24("cgm-feature")
        let typeLocation = try reader.uint8("type-sample-location")
        let crcOffset = reader.offset
        let crc = try reader.uint16("e2e-crc")
        try reader.finish()

        var flags = GlucoseText.bitFlags(features, width: 24, names: featureNames, reservedPrefix: "feature")
        let crcText: String
        if features & e2eCRCSupported != 0 {
            let computed = CRC16MCRF4XX.checksum(bytes[0..<crcOffset])
            if crc != computed { throw reader.error("e2e-crc", .crcMismatch(sent: crc, computed: computed), at: crcOffset) }
            crcText = "valid"
        } else {
            // CGMS: without E2E-CRC support the field "shall be set to 0xFFFF". Another value is a device fault, not an
            // uninterpretable feature set: flagged, not thrown.
            crcText = "not supported"
            if crc != 0xFFFF { flags.append("e2e-crc-field-not-ffff") }
        }
        let type = GlucoseSampleType(typeLocation & 0x0F)
        let location = GlucoseSampleLocation.name(typeLocation >> 4, allowSubcutaneous: true)
        let details = [ObservationDetail("sample-type", type.name), ObservationDetail("sample-location", location),
                       ObservationDetail("e2e-crc", crcText), ObservationDetail("features", GlucoseText.hex(features))]
        return [Observation(profile: .continuousGlucose, characteristic: characteristic, flags: flags, details: details,
                            summary: GlucoseText.withFlags(type.name + ", " + location, flags))]
    }
}

/// CGM Status (0x2AA9), CGMS v1.0.1 and GSS "CGM Status": Time Offset (uint16 minutes since the session start),
/// CGM Status (the 24-bit Sensor Status Annunciation, all three octets), E2E-CRC (uint16, when supported).
public enum CGMStatus {
    public static let characteristic = AssignedNumber(0x2AA9)

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let offset = try reader.uint16("time-offset")
        let status = try reader.uint8("cgm-status.status")
        let calTemp = try reader.uint8("cgm-status.cal-temp")
        let warning = try reader.uint8("cgm-status.warning")
        let crcChecked = try CGMShared.readCRC(&reader, from: 0, context: context)

        let flags = CGMShared.annunciationFlags(status: status, calTemp: calTemp, warning: warning)
        var details = [ObservationDetail("time-offset-minutes", String(offset))]
        if crcChecked { details.append(ObservationDetail("e2e-crc", "valid")) }
        let deviceTime = CGMShared.sessionStart(context)?.adding(minutes: Int(offset))
        let head = (flags.isEmpty ? "no status flags" : "status") + ", session minute \(offset)" + GlucoseText.deviceTime(deviceTime)
        return [Observation(profile: .continuousGlucose, characteristic: characteristic, deviceTime: deviceTime, flags: flags,
                            details: details, summary: GlucoseText.withFlags(head, flags))]
    }
}

/// CGM Session Start Time (0x2AAA), CGMS v1.0.1 and GSS "CGM Session Start Time": Session Start Time (Date Time,
/// 7 octets), Time Zone (sint8, in 15-minute steps from UTC, −48…+56, −128 unknown), DST Offset (uint8: 0 standard
/// time, 2 +0.5 h, 4 +1 h, 8 +2 h, 255 unknown), E2E-CRC (uint16, when supported).
public enum CGMSessionStartTime {
    public static let characteristic = AssignedNumber(0x2AAA)

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let start = try reader.dateTime("session-start-time")
        let zone = try reader.int8("time-zone")
        let dst = try reader.uint8("dst-offset")
        let crcChecked = try CGMShared.readCRC(&reader, from: 0, context: context)

        // A reserved zone or DST value leaves the local start time readable: kept as a detail, not thrown.
        let zoneText: String
        switch zone {
        case -128: zoneText = "unknown"
        case -48...56: zoneText = "UTC" + GlucoseText.utcOffset(minutes: Int(zone) * 15)
        default: zoneText = GlucoseText.reserved(UInt8(bitPattern: zone))
        }
        let dstText: String
        switch dst {
        case 0: dstText = "standard time"
        case 2: dstText = "half an hour daylight time (+0.5 h)"
        case 4: dstText = "daylight time (+1 h)"
        case 8: dstText = "double daylight time (+2 h)"
        case 255: dstText = "unknown"
        default: dstText = GlucoseText.reserved(dst)
        }
        var details = [ObservationDetail("time-zone", zoneText), ObservationDetail("dst-offset", dstText)]
        if crcChecked { details.append(ObservationDetail("e2e-crc", "valid")) }
        return [Observation(profile: .continuousGlucose, characteristic: characteristic, deviceTime: start, details: details,
                            summary: "session started \(start.shortText) (\(zoneText), \(dstText))")]
    }
}
