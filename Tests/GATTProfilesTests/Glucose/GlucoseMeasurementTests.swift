import TestScheduling
import Testing
@testable import GATTProfiles

private typealias B = GlucoseBytes

@Suite(.offCooperativePool) struct GlucoseMeasurementTests {
    // Base Time 2026-12-06 08:12:00: year 2026 = 0x07EA → EA 07, month 12, day 6, 08:12:00.
    static let baseTime = B.dateTime(2026, 12, 6, 8, 12, 0)

    @Test func briefExample() throws {
        let bytes: [UInt8] = [0x06]          // flags 0x06: bit1 concentration + type-sample location, bit2 mol/L
            + B.le16(42)                     // sequence number 42 = 0x002A
            + Self.baseTime
            + [0x36, 0xC0]                   // SFLOAT 0xC036: exponent 0xC = -4, mantissa 0x036 = 54 → 0.0054 mol/L
            + [0x11]                         // type 1 capillary whole blood (bits 0-3), location 1 finger (bits 4-7)
        let obs = try #require(try GlucoseMeasurement.decode(bytes, context: .none).first)
        // 0.0054 mol/L × 10³ = 5.4 mmol/L (exponent -4 + 3 = -1, mantissa kept).
        #expect(obs.summary == "5.4 mmol/L capillary whole blood, record 42, device time 2026-12-06 08:12")
        let q = try #require(obs.quantity("glucose-concentration"))
        #expect(q.value == .number(DecimalNumber(mantissa: 54, exponent: -1)))
        #expect(q.unit == .millimolesPerLitre)
        #expect(q.metric.mdc == 160_184)                    // MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD 2::29112
        #expect(q.metric.mdcName == "MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD")
        #expect(q.metric.loinc == "14743-9")                // molar, capillary blood by glucometer
        #expect(obs.record == 42)
        #expect(obs.deviceTime == DeviceTime(year: 2026, month: 12, day: 6, hours: 8, minutes: 12))
        #expect(obs.detail("sample-type") == "capillary whole blood")
        #expect(obs.detail("sample-location") == "finger")
        #expect(obs.detail("time-offset-minutes") == nil)   // flag bit 0 clear: no offset field
        #expect(obs.flags.isEmpty)
        #expect(obs.profile == .glucose)
    }

    @Test func massConcentrationShiftsToMilligramsPerDecilitre() throws {
        let bytes: [UInt8] = [0x02]          // flags 0x02: concentration present, bit2 = 0 → kg/L
            + B.le16(7) + Self.baseTime
            + [0x61, 0xB0]                   // SFLOAT 0xB061: exponent 0xB = -5, mantissa 0x061 = 97 → 0.00097 kg/L
            + [0x2A]                         // type 0xA = 10 control solution, location 2 alternate site test
        let obs = try #require(try GlucoseMeasurement.decode(bytes, context: .none).first)
        // 0.00097 kg/L × 10⁵ = 97 mg/dL (exponent -5 + 5 = 0).
        let q = try #require(obs.quantity("glucose-concentration"))
        #expect(q.value == .number(DecimalNumber(97)))
        #expect(q.unit == .milligramsPerDecilitre)
        #expect(q.metric.mdc == 160_208)                    // MDC_CONC_GLU_CONTROL 2::29136
        #expect(q.metric.loinc == nil)                      // control solution is not a patient value
        #expect(obs.detail("sample-type") == "control solution")
        #expect(obs.detail("sample-location") == "alternate site test")
        #expect(obs.summary == "97 mg/dL control solution, record 7, device time 2026-12-06 08:12")
    }

    @Test func sampleTypeCodes() throws {
        // Every Type nibble 0…15 (GSS: 1…10 defined, 0 and 11…15 reserved), mass concentration (kg/L).
        let expectedMDC: [UInt32?] = [nil, 160_184, 160_188, 160_192, 160_196, 160_200, 160_204, 160_364, 160_368, 160_212, 160_208]
        let expectedLOINC: [String?] = [nil, "41653-7", "2345-7", "2339-0", "2345-7", "2339-0", "2345-7", "2339-0", "2345-7",
                                        "99504-3", nil]
        for type in UInt8(0)...15 {
            let bytes: [UInt8] = [0x02] + B.le16(1) + Self.baseTime + [0x61, 0xB0] + [0xF0 | type]   // location 15 n/a
            let obs = try #require(try GlucoseMeasurement.decode(bytes, context: .none).first)
            let q = try #require(obs.quantity("glucose-concentration"))
            #expect(obs.detail("sample-location") == "not available")
            if (1...10).contains(type) {
                #expect(q.metric.mdc == expectedMDC[Int(type)])
                #expect(q.metric.loinc == expectedLOINC[Int(type)])
                #expect(obs.detail("sample-type") == GlucoseSampleType.names[Int(type)])
            } else {
                // Reserved: kept as a detail, the value still delivered, coded MDC_CONC_GLU_GEN 2::28948.
                #expect(q.metric.mdc == 160_020)
                #expect(obs.detail("sample-type") == "reserved (0x" + (type < 16 ? "0" : "") + String(type, radix: 16) + ")")
                #expect(obs.summary.hasPrefix("97 mg/dL, sample type reserved ("))
            }
        }
    }

    @Test func sampleLocations() throws {
        // Location nibble (bits 4-7): 1 finger, 2 AST, 3 earlobe, 4 control solution, 15 not available; 5 is CGM's
        // "subcutaneous tissue" and reserved for the Glucose Measurement; 0 reserved.
        let names: [UInt8: String] = [0: "reserved (0x00)", 1: "finger", 2: "alternate site test", 3: "earlobe",
                                      4: "control solution", 5: "reserved (0x05)", 14: "reserved (0x0e)", 15: "not available"]
        for (raw, name) in names {
            let bytes: [UInt8] = [0x02] + B.le16(1) + Self.baseTime + [0x61, 0xB0] + [raw << 4 | 0x01]
            let obs = try #require(try GlucoseMeasurement.decode(bytes, context: .none).first)
            #expect(obs.detail("sample-location") == name)
        }
    }

    @Test func timeOffsetMovesTheDeviceTime() throws {
        // Base 2026-12-06 23:50:00, offset +15 min (0x000F) → 2026-12-07 00:05:00, across midnight.
        let late = B.dateTime(2026, 12, 6, 23, 50, 0)
        var obs = try #require(try GlucoseMeasurement.decode([0x01] + B.le16(3) + late + B.le16(15), context: .none).first)
        #expect(obs.deviceTime == DeviceTime(year: 2026, month: 12, day: 7, hours: 0, minutes: 5))
        #expect(obs.detail("time-offset-minutes") == "15")
        #expect(obs.quantities.isEmpty)                     // flag bit 1 clear: no concentration
        #expect(obs.summary == "no concentration, record 3, device time 2026-12-07 00:05")
        // Offset -90 min (0xFFA6, sint16) from 08:12 → 06:42.
        obs = try #require(try GlucoseMeasurement.decode([0x01] + B.le16(3) + Self.baseTime + B.le16(signed: -90), context: .none).first)
        #expect(obs.deviceTime == DeviceTime(year: 2026, month: 12, day: 6, hours: 6, minutes: 42))
        #expect(obs.detail("time-offset-minutes") == "-90")
        // An unset clock (year 0) stays unset whatever the offset; the summary says so.
        let unset = B.dateTime(0, 0, 0, 0, 0, 0)
        obs = try #require(try GlucoseMeasurement.decode([0x01] + B.le16(3) + unset + B.le16(600), context: .none).first)
        #expect(obs.deviceTime?.isKnown == false)
        #expect(obs.summary == "no concentration, record 3, device time unset clock")
    }

    @Test func everyStatusBitIsAFlag() throws {
        // Sensor Status Annunciation bits 0-11 each alone, then a reserved bit (12-15).
        for bit in 0..<16 {
            let bytes: [UInt8] = [0x08] + B.le16(1) + Self.baseTime + B.le16(UInt16(1) << UInt16(bit))
            let obs = try #require(try GlucoseMeasurement.decode(bytes, context: .none).first)
            if bit < 12 {
                #expect(obs.flags == [GlucoseMeasurement.statusNames[bit]])
            } else {
                #expect(obs.flags == ["sensor-status-reserved-bit-\(bit)"])
            }
        }
        // GSS: bit 5 = result higher than the device can process, bit 6 = lower.
        #expect(GlucoseMeasurement.statusNames[5] == "result-above-range")
        #expect(GlucoseMeasurement.statusNames[6] == "result-below-range")
        // flags 0x1E: bit 1 concentration, bit 2 mol/L, bit 3 status, bit 4 context follows; status 0x0A01: bits 0
        // (battery low), 9 (read interrupted), 11 (time fault).
        let bytes: [UInt8] = [0x1E] + B.le16(42) + Self.baseTime + [0x36, 0xC0, 0x11] + B.le16(0x0A01)
        let obs = try #require(try GlucoseMeasurement.decode(bytes, context: .none).first)
        #expect(obs.flags == ["device-battery-low", "read-interrupted", "time-fault", "context-follows"])
        #expect(obs.summary == "5.4 mmol/L capillary whole blood, record 42, device time 2026-12-06 08:12"
                + " — device battery low, read interrupted, time fault, context follows")
    }

    @Test func specialValuesAreKept() throws {
        // SFLOAT 0x07FF NaN, 0x0800 NRes, 0x07FE +INF, 0x0802 -INF: kept apart, never shifted.
        let cases: [(UInt16, MeasurementValue, String)] = [(0x07FF, .notANumber, "NaN"), (0x0800, .notAtThisResolution, "NRes"),
                                                           (0x07FE, .positiveInfinity, "+INF"), (0x0802, .negativeInfinity, "-INF")]
        for (raw, value, text) in cases {
            let bytes: [UInt8] = [0x06] + B.le16(1) + Self.baseTime + B.le16(raw) + [0x11]
            let obs = try #require(try GlucoseMeasurement.decode(bytes, context: .none).first)
            #expect(obs.quantity("glucose-concentration")?.value == value)
            #expect(obs.summary.hasPrefix(text + " mmol/L capillary whole blood"))
        }
    }

    @Test func everyFlagCombination() throws {
        // Flags bits 0-4 in all 32 combinations, with the reserved bits 5-7 clear and set (they change nothing).
        for low in UInt8(0)..<32 {
            for reserved in [UInt8(0x00), 0xE0] {
                let flags = low | reserved
                var bytes: [UInt8] = [flags] + B.le16(0x1234) + Self.baseTime      // sequence 0x1234 = 4660
                if flags & 0x01 != 0 { bytes += B.le16(signed: -90) }             // 08:12 - 90 min = 06:42
                if flags & 0x02 != 0 {
                    // mol/L: 0xC036 = 54e-4 mol/L → 5.4 mmol/L; kg/L: 0xB061 = 97e-5 kg/L → 97 mg/dL.
                    bytes += flags & 0x04 != 0 ? [0x36, 0xC0] : [0x61, 0xB0]
                    bytes += [0x11]
                }
                if flags & 0x08 != 0 { bytes += B.le16(0x0021) }                  // bits 0 battery low, 5 above range
                let obs = try #require(try GlucoseMeasurement.decode(bytes, context: .none).first, "flags \(flags)")
                #expect(obs.record == 4660)
                let minutes = flags & 0x01 != 0 ? 42 : 12
                #expect(obs.deviceTime == DeviceTime(year: 2026, month: 12, day: 6, hours: flags & 0x01 != 0 ? 6 : 8, minutes: minutes))
                #expect(obs.detail("time-offset-minutes") == (flags & 0x01 != 0 ? "-90" : nil))
                if flags & 0x02 != 0 {
                    let q = try #require(obs.quantity("glucose-concentration"))
                    #expect(q.value == (flags & 0x04 != 0 ? .number(DecimalNumber(mantissa: 54, exponent: -1)) : .number(DecimalNumber(97))))
                    #expect(q.unit == (flags & 0x04 != 0 ? .millimolesPerLitre : .milligramsPerDecilitre))
                    #expect(obs.detail("sample-type") == "capillary whole blood")
                } else {
                    #expect(obs.quantities.isEmpty)
                    #expect(obs.detail("sample-type") == nil)
                }
                var flagNames: [String] = []
                if flags & 0x08 != 0 { flagNames += ["device-battery-low", "result-above-range"] }
                if flags & 0x10 != 0 { flagNames.append("context-follows") }
                #expect(obs.flags == flagNames)
                // Length rule: one byte short fails on the last field, one byte more is a trailing byte.
                #expect(decodeError { try GlucoseMeasurement.decode(Array(bytes.dropLast()), context: .none) }.map {
                    if case .tooShort = $0.problem { true } else { false }
                } == true)
                #expect(decodeError { try GlucoseMeasurement.decode(bytes + [0x00], context: .none) }
                        == expected(0x2A18, "end", bytes.count, .trailingBytes(count: 1)))
            }
        }
    }

    @Test func tooShortAtEachField() {
        // All fields present: flags 0x0B (time offset, concentration, status).
        let full: [UInt8] = [0x0B] + B.le16(1) + Self.baseTime + B.le16(5) + [0x36, 0xC0, 0x11] + B.le16(0)
        // (prefix length, field, offset, needed): flags @0, sequence @1, base-time.year @3 … status @15.
        let cases: [(Int, String, Int, Int)] = [(0, "flags", 0, 1), (1, "sequence-number", 1, 2), (2, "sequence-number", 1, 2),
                                               (3, "base-time.year", 3, 2), (5, "base-time.month", 5, 1),
                                               (9, "base-time.seconds", 9, 1), (10, "time-offset", 10, 2),
                                               (12, "glucose-concentration", 12, 2), (14, "type-sample-location", 14, 1),
                                               (15, "sensor-status-annunciation", 15, 2), (16, "sensor-status-annunciation", 15, 2)]
        for (length, field, offset, needed) in cases {
            let available = length - offset
            #expect(decodeError { try GlucoseMeasurement.decode(Array(full.prefix(length)), context: .none) }
                    == expected(0x2A18, field, offset, .tooShort(needed: needed, available: available)), "prefix \(length)")
        }
        #expect(decodeError { try GlucoseMeasurement.decode(full, context: .none) } == nil)
    }

    @Test func outOfRangeBaseTime() {
        // Month 13 is outside the Date Time range 0…12.
        let bytes: [UInt8] = [0x00] + B.le16(1) + B.dateTime(2026, 13, 6, 8, 12, 0)
        #expect(decodeError { try GlucoseMeasurement.decode(bytes, context: .none) }
                == expected(0x2A18, "base-time.month", 5, .outOfRange(value: 13)))
    }
}
