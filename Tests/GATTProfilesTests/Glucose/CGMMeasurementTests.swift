import TestScheduling
import Testing
@testable import GATTProfiles

private typealias B = GlucoseBytes

@Suite(.offCooperativePool) struct CGMMeasurementTests {
    /// One record: flags, 120 mg/dL (SFLOAT 0x0078, exponent 0), time offset `minutes`, then the flagged octets and
    /// values: Status 0x01 (session stopped), Cal/Temp 0x04 (calibration recommended), Warning 0x80 (result higher
    /// than the device can process), trend SFLOAT 0xF005 (exp -1, mantissa 5 → 0.5 mg/dL/min), quality 0x0060 = 96 %.
    /// The Size byte counts the whole record, CRC included when `crc`.
    /// `extra` bytes go after the last field, before the CRC (a Size byte that contradicts the flags).
    static func record(flags: UInt8, minutes: UInt16 = 30, crc: Bool, extra: [UInt8] = []) -> [UInt8] {
        var body: [UInt8] = [flags] + [0x78, 0x00] + B.le16(minutes)
        if flags & 0x80 != 0 { body += [0x01] }
        if flags & 0x40 != 0 { body += [0x04] }
        if flags & 0x20 != 0 { body += [0x80] }
        if flags & 0x01 != 0 { body += [0x05, 0xF0] }
        if flags & 0x02 != 0 { body += [0x60, 0x00] }
        body += extra
        let size = UInt8(1 + body.count + (crc ? 2 : 0))
        return crc ? B.withCRC([size] + body) : [size] + body
    }

    @Test func nordicToolboxVector() throws {
        // nRF Toolbox CGMSParsingTest.testDataWithAllValidFields: size 15, flags 0xE3 (trend, quality, all three
        // octets), 120 mg/dL, offset 30 min, Status 0x01, Cal/Temp 0x02, Warning 0x03, trend 0x0050 = 80, quality
        // 0x0060 = 96, E2E-CRC 0xACEC (Nordic's value; our CRC must agree). No CGM Feature known: the two bytes past
        // quality are taken as the CRC and checked.
        let bytes: [UInt8] = [0x0F, 0xE3, 0x78, 0x00, 0x1E, 0x00, 0x01, 0x02, 0x03, 0x50, 0x00, 0x60, 0x00, 0xEC, 0xAC]
        let obs = try #require(try CGMMeasurement.decode(bytes, context: .none).first)
        #expect(obs.quantity("glucose-concentration")?.value == .number(DecimalNumber(120)))
        #expect(obs.quantity("glucose-concentration")?.unit == .milligramsPerDecilitre)
        #expect(obs.quantity("glucose-concentration")?.metric.mdc == 160_020)   // no CGM Feature: MDC_CONC_GLU_GEN
        #expect(obs.quantity("glucose-trend")?.value == .number(DecimalNumber(80)))
        #expect(obs.quantity("glucose-trend")?.unit == .milligramsPerDecilitrePerMinute)
        #expect(obs.quantity("glucose-quality")?.value == .number(DecimalNumber(96)))
        // Status 0x01 bit 0; Cal/Temp 0x02 bit 1; Warning 0x03 bits 0 and 1.
        #expect(obs.flags == ["session-stopped", "calibration-not-allowed", "result-below-patient-low", "result-above-patient-high"])
        #expect(obs.record == 30)
        #expect(obs.detail("time-offset-minutes") == "30")
        #expect(obs.detail("e2e-crc") == "valid")
        #expect(obs.profile == .continuousGlucose)
        #expect(obs.summary == "120 mg/dL (trend 80 mg/dL/min; quality 96 %), session minute 30 — session stopped, "
                + "calibration not allowed, result below patient low, result above patient high")
    }

    @Test func mandatoryFieldsOnly() throws {
        // nRF Toolbox testDataWithOnlyMandatoryFields: size 6, flags 0, 120 mg/dL, 30 min.
        let obs = try #require(try CGMMeasurement.decode([0x06, 0x00, 0x78, 0x00, 0x1E, 0x00], context: .none).first)
        #expect(obs.quantities.count == 1)
        #expect(obs.flags.isEmpty)
        #expect(obs.detail("e2e-crc") == nil)
        #expect(obs.summary == "120 mg/dL, session minute 30")
    }

    @Test func severalRecordsInOneValue() throws {
        // nRF Toolbox testManyRecords: two 6-byte records, 120 mg/dL at 30 min, 119 mg/dL (0x77) at 29 min.
        let bytes: [UInt8] = [0x06, 0x00, 0x78, 0x00, 0x1E, 0x00, 0x06, 0x00, 0x77, 0x00, 0x1D, 0x00]
        let obs = try CGMMeasurement.decode(bytes, context: .none)
        #expect(obs.map(\.record) == [30, 29])
        #expect(obs.map { $0.quantities.first?.value } == [.number(DecimalNumber(120)), .number(DecimalNumber(119))])
        // Records of different shapes, each with its CRC, with the feature announcing it.
        let mixed = Self.record(flags: 0xE3, minutes: 5, crc: true) + Self.record(flags: 0x00, minutes: 10, crc: true)
            + Self.record(flags: 0x40, minutes: 15, crc: true)
        let three = try CGMMeasurement.decode(mixed, context: B.cgmContext(crc: true))
        #expect(three.map(\.record) == [5, 10, 15])
        #expect(three.map(\.flags) == [["session-stopped", "calibration-recommended", "result-above-range"], [], ["calibration-recommended"]])
    }

    @Test func everyFlagCombinationAndCRCMode() throws {
        // Flags bits 0, 1, 5, 6, 7 in all 32 combinations (bits 2-4 reserved: set in half the cases, no effect) ×
        // the four ways the CRC question is answered.
        let defined: [UInt8] = [0x01, 0x02, 0x20, 0x40, 0x80]
        for combination in 0..<32 {
            var flags: UInt8 = 0
            for (i, bit) in defined.enumerated() where combination & (1 << i) != 0 { flags |= bit }
            if combination % 2 == 1 { flags |= 0x1C }
            let modes: [(DecodingContext, Bool)] = [(.none, false), (.none, true), (B.cgmContext(crc: true), true),
                                                    (B.cgmContext(crc: false), false)]
            for (context, crc) in modes {
                let bytes = Self.record(flags: flags, crc: crc)
                let obs = try #require(try CGMMeasurement.decode(bytes, context: context).first, "flags \(flags) crc \(crc)")
                var flagNames: [String] = []
                if flags & 0x80 != 0 { flagNames.append("session-stopped") }
                if flags & 0x40 != 0 { flagNames.append("calibration-recommended") }
                if flags & 0x20 != 0 { flagNames.append("result-above-range") }
                #expect(obs.flags == flagNames)
                #expect((obs.quantity("glucose-trend") != nil) == (flags & 0x01 != 0))
                #expect((obs.quantity("glucose-quality") != nil) == (flags & 0x02 != 0))
                if flags & 0x01 != 0 { #expect(obs.quantity("glucose-trend")?.value == .number(DecimalNumber(mantissa: 5, exponent: -1))) }
                #expect(obs.detail("e2e-crc") == (crc ? "valid" : nil))
                #expect(obs.record == 30)
                if context != .none {
                    // The feature's type nibble 9: interstitial fluid, MDC_CONC_GLU_ISF 2::29140, LOINC 99504-3 (mass).
                    #expect(obs.quantities[0].metric.mdc == 160_212)
                    #expect(obs.quantities[0].metric.loinc == "99504-3")
                    #expect(obs.detail("sample-type") == "interstitial fluid")
                }
                // Length rule inside the record: one byte more than the flags announce (Size counting it, CRC
                // computed over it) is a trailing byte; with no feature known a CRC-sized remainder of 3 is no CRC;
                // with the feature announcing a CRC, the CRC is read one byte early and does not match.
                let longer = Self.record(flags: flags, crc: crc, extra: [0x00])
                let error = try #require(decodeError { try CGMMeasurement.decode(longer, context: context) })
                if !crc {
                    #expect(error == expected(0x2AA7, "end", bytes.count, .trailingBytes(count: 1)))
                } else if context == .none {
                    #expect(error == expected(0x2AA7, "end", bytes.count - 2, .trailingBytes(count: 3)))
                } else {
                    #expect(error.field == "e2e-crc")
                    #expect(error.offset == bytes.count - 2)
                    if case .crcMismatch = error.problem {} else { Issue.record("expected a CRC mismatch, got \(error)") }
                }
                // The value cut short of what the Size byte says.
                #expect(decodeError { try CGMMeasurement.decode(Array(bytes.dropLast()), context: context) }
                        == expected(0x2AA7, "size", 0, .tooShort(needed: bytes.count, available: bytes.count - 1)))
            }
        }
    }

    @Test func crcMismatch() {
        // 120 mg/dL at 30 min with a wrong CRC 0x3412; the right one is CRC-16/MCRF4XX over the 6 record bytes.
        let bytes: [UInt8] = [0x08, 0x00, 0x78, 0x00, 0x1E, 0x00, 0x12, 0x34]
        let computed = CRC16MCRF4XX.checksum(bytes.prefix(6))
        #expect(computed != 0x3412)
        #expect(decodeError { try CGMMeasurement.decode(bytes, context: .none) }
                == expected(0x2AA7, "e2e-crc", 6, .crcMismatch(sent: 0x3412, computed: computed)))
        #expect(decodeError { try CGMMeasurement.decode(bytes, context: B.cgmContext(crc: true)) }
                == expected(0x2AA7, "e2e-crc", 6, .crcMismatch(sent: 0x3412, computed: computed)))
        // A bad CRC in the second record names the second record's CRC offset (8-byte first record + 6 = 14).
        let two = Self.record(flags: 0, crc: true) + [0x08, 0x00, 0x78, 0x00, 0x1E, 0x00, 0x12, 0x34]
        #expect(decodeError { try CGMMeasurement.decode(two, context: .none) }?.offset == 14)
        #expect(decodeError { try CGMMeasurement.decode(two, context: .none) }?.field == "e2e-crc")
    }

    @Test func crcExpectedButMissing() {
        // The feature announces the E2E-CRC, the record (size 6) has none: the CRC field is missing at offset 6.
        #expect(decodeError { try CGMMeasurement.decode(Self.record(flags: 0, crc: false), context: B.cgmContext(crc: true)) }
                == expected(0x2AA7, "e2e-crc", 6, .tooShort(needed: 2, available: 0)))
        // The feature says no CRC, the record has 2 bytes more: trailing, not silently taken as a CRC.
        #expect(decodeError { try CGMMeasurement.decode(Self.record(flags: 0, crc: true), context: B.cgmContext(crc: false)) }
                == expected(0x2AA7, "end", 6, .trailingBytes(count: 2)))
    }

    @Test func sizeErrors() {
        #expect(decodeError { try CGMMeasurement.decode([], context: .none) } == expected(0x2AA7, "size", 0, .tooShort(needed: 1, available: 0)))
        // Size 5 is below the 6 octets every record has (size, flags, concentration, time offset).
        #expect(decodeError { try CGMMeasurement.decode([0x05, 0x00, 0x78, 0x00, 0x1E], context: .none) }
                == expected(0x2AA7, "size", 0, .outOfRange(value: 5)))
        // Size 6 but flags announce trend (bit 0): the trend field is missing inside the record.
        #expect(decodeError { try CGMMeasurement.decode([0x06, 0x01, 0x78, 0x00, 0x1E, 0x00], context: .none) }
                == expected(0x2AA7, "cgm-trend-information", 6, .tooShort(needed: 2, available: 0)))
        // Size 7 with flags announcing the Status octet (bit 7) but too small for the Warning octet also announced.
        #expect(decodeError { try CGMMeasurement.decode([0x07, 0xA0, 0x78, 0x00, 0x1E, 0x00, 0x01], context: .none) }
                == expected(0x2AA7, "sensor-status-annunciation.warning", 7, .tooShort(needed: 1, available: 0)))
        // A second record whose Size byte runs past the value.
        #expect(decodeError { try CGMMeasurement.decode([0x06, 0x00, 0x78, 0x00, 0x1E, 0x00, 0x08, 0x00], context: .none) }
                == expected(0x2AA7, "size", 6, .tooShort(needed: 8, available: 2)))
    }

    @Test func reservedAnnunciationBits() throws {
        // Status 0xC0 (bits 6-7 reserved), Cal/Temp 0x80 (bit 7 = annunciation bit 15, reserved), Warning 0x00.
        let bytes: [UInt8] = [0x09, 0xE0, 0x78, 0x00, 0x1E, 0x00, 0xC0, 0x80, 0x00]
        let obs = try #require(try CGMMeasurement.decode(bytes, context: .none).first)
        #expect(obs.flags == ["sensor-status-reserved-bit-6", "sensor-status-reserved-bit-7", "sensor-status-reserved-bit-15"])
    }

    @Test func deviceTimeFromSessionStart() throws {
        // CGM Session Start Time 2026-12-06 08:00:00, zone +4 (UTC+01:00), DST 0, no CRC (feature says none).
        let start = B.dateTime(2026, 12, 6, 8, 0, 0) + [0x04, 0x00]
        var context = B.cgmContext(crc: false)
        context.features[AssignedNumber(0x2AAA)] = start
        // Offset 0x005A = 90 min → 09:30.
        let obs = try #require(try CGMMeasurement.decode(Self.record(flags: 0, minutes: 90, crc: false), context: context).first)
        #expect(obs.deviceTime == DeviceTime(year: 2026, month: 12, day: 6, hours: 9, minutes: 30))
        #expect(obs.summary == "120 mg/dL, session minute 90, device time 2026-12-06 09:30")
        // A session start time whose own CRC fails gives no device time (the record still decodes).
        context = B.cgmContext(crc: true)
        context.features[AssignedNumber(0x2AAA)] = start + [0x00, 0x00]
        let noTime = try #require(try CGMMeasurement.decode(Self.record(flags: 0, minutes: 90, crc: true), context: context).first)
        #expect(noTime.deviceTime == nil)
    }
}

@Suite(.offCooperativePool) struct CGMFeatureTests {
    @Test func withCRC() throws {
        // Features 0x01F001: bit 0 calibration, bits 12-16 (E2E-CRC, multiple bond, multiple sessions, trend,
        // quality); type 9 ISF / location 5 subcutaneous tissue → 0x59; CRC over the 4 octets.
        let bytes = B.cgmFeature(0x01_F001, typeLocation: 0x59)
        let obs = try #require(try CGMFeature.decode(bytes, context: .none).first)
        #expect(obs.flags == ["calibration-supported", "e2e-crc-supported", "multiple-bond-supported", "multiple-sessions-supported",
                              "cgm-trend-information-supported", "cgm-quality-supported"])
        #expect(obs.detail("sample-type") == "interstitial fluid")
        #expect(obs.detail("sample-location") == "subcutaneous tissue")
        #expect(obs.detail("e2e-crc") == "valid")
        #expect(obs.summary.hasPrefix("interstitial fluid, subcutaneous tissue — calibration supported, e2e crc supported"))
        var bad = bytes
        bad[5] ^= 0x01
        #expect(decodeError { try CGMFeature.decode(bad, context: .none) }
                == expected(0x2AA8, "e2e-crc", 4, .crcMismatch(sent: UInt16(bad[4]) | UInt16(bad[5]) << 8,
                                                                computed: CRC16MCRF4XX.checksum(bytes.prefix(4)))))
    }

    @Test func withoutCRC() throws {
        // Features 0x000200: bit 9 low battery detection; type 1 / location 1; filler 0xFFFF.
        var obs = try #require(try CGMFeature.decode([0x00, 0x02, 0x00, 0x11, 0xFF, 0xFF], context: .none).first)
        #expect(obs.flags == ["low-battery-detection-supported"])
        #expect(obs.detail("e2e-crc") == "not supported")
        #expect(obs.summary == "capillary whole blood, finger — low battery detection supported")
        // A filler other than 0xFFFF is flagged, not thrown.
        obs = try #require(try CGMFeature.decode([0x00, 0x00, 0x00, 0x11, 0x00, 0x00], context: .none).first)
        #expect(obs.flags == ["e2e-crc-field-not-ffff"])
    }

    @Test func everyBit() throws {
        for bit in 0..<24 where bit != 12 {          // bit 12 needs a CRC: covered above
            let obs = try #require(try CGMFeature.decode(B.cgmFeature(1 << UInt32(bit), typeLocation: 0xF0), context: .none).first)
            #expect(obs.flags == [bit < 17 ? CGMFeature.featureNames[bit] : "feature-reserved-bit-\(bit)"])
            #expect(obs.detail("sample-type") == "reserved (0x00)")
            #expect(obs.detail("sample-location") == "not available")
        }
    }

    @Test func length() {
        let full = B.cgmFeature(0, typeLocation: 0x59)
        let cases: [(Int, String, Int, Int)] = [(0, "cgm-feature", 0, 3), (2, "cgm-feature", 0, 3), (3, "type-sample-location", 3, 1),
                                               (4, "e2e-crc", 4, 2), (5, "e2e-crc", 4, 2)]
        for (length, field, offset, needed) in cases {
            #expect(decodeError { try CGMFeature.decode(Array(full.prefix(length)), context: .none) }
                    == expected(0x2AA8, field, offset, .tooShort(needed: needed, available: length - offset)))
        }
        #expect(decodeError { try CGMFeature.decode(full + [0], context: .none) } == expected(0x2AA8, "end", 6, .trailingBytes(count: 1)))
    }
}

@Suite(.offCooperativePool) struct CGMStatusTests {
    @Test func statusWithAndWithoutCRC() throws {
        // Offset 0x0078 = 120 min; Status 0x02 battery low, Cal/Temp 0x08 calibration required, Warning 0x10 rate of
        // decrease exceeded.
        let body: [UInt8] = B.le16(120) + [0x02, 0x08, 0x10]
        let flags = ["device-battery-low", "calibration-required", "rate-of-decrease-exceeded"]
        for (bytes, context, crc) in [(body, DecodingContext.none, false), (B.withCRC(body), .none, true),
                                      (B.withCRC(body), B.cgmContext(crc: true), true), (body, B.cgmContext(crc: false), false)] {
            let obs = try #require(try CGMStatus.decode(bytes, context: context).first)
            #expect(obs.flags == flags)
            #expect(obs.detail("time-offset-minutes") == "120")
            #expect(obs.detail("e2e-crc") == (crc ? "valid" : nil))
            #expect(obs.summary == "status, session minute 120 — device battery low, calibration required, rate of decrease exceeded")
        }
        let quiet = try #require(try CGMStatus.decode(B.le16(5) + [0, 0, 0], context: .none).first)
        #expect(quiet.summary == "no status flags, session minute 5")
    }

    @Test func errors() {
        let body: [UInt8] = B.le16(120) + [0x02, 0x08, 0x10]
        var bad = B.withCRC(body)
        bad[6] ^= 0xFF
        #expect(decodeError { try CGMStatus.decode(bad, context: .none) }
                == expected(0x2AA9, "e2e-crc", 5, .crcMismatch(sent: UInt16(bad[5]) | UInt16(bad[6]) << 8, computed: CRC16MCRF4XX.checksum(body))))
        #expect(decodeError { try CGMStatus.decode(body, context: B.cgmContext(crc: true)) }
                == expected(0x2AA9, "e2e-crc", 5, .tooShort(needed: 2, available: 0)))
        #expect(decodeError { try CGMStatus.decode(body + [0], context: .none) } == expected(0x2AA9, "end", 5, .trailingBytes(count: 1)))
        #expect(decodeError { try CGMStatus.decode(Array(body.prefix(4)), context: .none) }
                == expected(0x2AA9, "cgm-status.warning", 4, .tooShort(needed: 1, available: 0)))
        #expect(decodeError { try CGMStatus.decode([0x01], context: .none) } == expected(0x2AA9, "time-offset", 0, .tooShort(needed: 2, available: 1)))
    }
}

@Suite(.offCooperativePool) struct CGMSessionStartTimeTests {
    @Test func zonesAndDaylight() throws {
        // 2026-12-06 08:00:00, then Time Zone (sint8, ×15 min) and DST Offset (uint8).
        let time = B.dateTime(2026, 12, 6, 8, 0, 0)
        let cases: [(Int8, UInt8, String, String)] = [
            (4, 0, "UTC+01:00", "standard time"),                        // +4 × 15 = +60 min
            (-20, 4, "UTC-05:00", "daylight time (+1 h)"),               // -20 × 15 = -300 min
            (22, 2, "UTC+05:30", "half an hour daylight time (+0.5 h)"), // 22 × 15 = 330 min
            (-48, 8, "UTC-12:00", "double daylight time (+2 h)"),        // range ends -48 … +56
            (56, 255, "UTC+14:00", "unknown"),
            (-128, 1, "unknown", "reserved (0x01)"),                     // -128 = unknown; DST 1 reserved
            (57, 3, "reserved (0x39)", "reserved (0x03)"),               // 57 past +56: reserved
        ]
        for (zone, dst, zoneText, dstText) in cases {
            let obs = try #require(try CGMSessionStartTime.decode(time + [UInt8(bitPattern: zone), dst], context: .none).first)
            #expect(obs.deviceTime == DeviceTime(year: 2026, month: 12, day: 6, hours: 8))
            #expect(obs.detail("time-zone") == zoneText)
            #expect(obs.detail("dst-offset") == dstText)
            #expect(obs.summary == "session started 2026-12-06 08:00 (\(zoneText), \(dstText))")
        }
    }

    @Test func crc() throws {
        let body = B.dateTime(2026, 12, 6, 8, 0, 0) + [0x04, 0x00]
        var obs = try #require(try CGMSessionStartTime.decode(B.withCRC(body), context: .none).first)
        #expect(obs.detail("e2e-crc") == "valid")
        obs = try #require(try CGMSessionStartTime.decode(B.withCRC(body), context: B.cgmContext(crc: true)).first)
        #expect(obs.detail("e2e-crc") == "valid")
        var bad = B.withCRC(body)
        bad[9] ^= 0x01
        #expect(decodeError { try CGMSessionStartTime.decode(bad, context: .none) }?.problem
                == .crcMismatch(sent: UInt16(bad[9]) | UInt16(bad[10]) << 8, computed: CRC16MCRF4XX.checksum(body)))
        #expect(decodeError { try CGMSessionStartTime.decode(body, context: B.cgmContext(crc: true)) }
                == expected(0x2AAA, "e2e-crc", 9, .tooShort(needed: 2, available: 0)))
        #expect(decodeError { try CGMSessionStartTime.decode(Array(body.prefix(8)), context: .none) }
                == expected(0x2AAA, "dst-offset", 8, .tooShort(needed: 1, available: 0)))
        #expect(decodeError { try CGMSessionStartTime.decode(Array(body.prefix(7)), context: .none) }
                == expected(0x2AAA, "time-zone", 7, .tooShort(needed: 1, available: 0)))
        #expect(decodeError { try CGMSessionStartTime.decode(body + [0], context: .none) }
                == expected(0x2AAA, "end", 9, .trailingBytes(count: 1)))
    }
}

@Suite(.offCooperativePool) struct GlucoseDecodersTests {
    @Test func registry() {
        // Seven characteristics: GLS 2A18/2A34 notified, 2A51 read; CGMS 2AA7 notified, 2AA8/2AA9/2AAA read.
        let table = Dictionary(uniqueKeysWithValues: GlucoseDecoders.all.map { ($0.characteristic.rawValue, $0) })
        #expect(table.count == GlucoseDecoders.all.count)
        let expectedDelivery: [UInt16: (Profile, CharacteristicDecoder.Delivery)] = [
            0x2A18: (.glucose, .notify), 0x2A34: (.glucose, .notify), 0x2A51: (.glucose, .readOnce),
            0x2AA7: (.continuousGlucose, .notify), 0x2AA8: (.continuousGlucose, .readOnce),
            0x2AA9: (.continuousGlucose, .readOnce), 0x2AAA: (.continuousGlucose, .readOnce)]
        #expect(Set(table.keys) == Set(expectedDelivery.keys))
        for (number, (profile, delivery)) in expectedDelivery {
            #expect(table[number]?.profile == profile)
            #expect(table[number]?.delivery == delivery)
        }
        // The registry's decode is the characteristic's: the brief's example through the table.
        let bytes: [UInt8] = [0x06, 0x2A, 0x00, 0xEA, 0x07, 12, 6, 8, 12, 0, 0x36, 0xC0, 0x11]
        #expect((try? table[0x2A18]?.decode(bytes, .none))?.first?.record == 42)
    }
}
