import TestScheduling
import Testing
@testable import GATTProfiles

/// Measurement Status and Device and Sensor Status names by bit, PLXS v1.0 / GSS.
enum PLXNames {
    static let measurement: [Int: String] = [
        5: "measurement-ongoing", 6: "early-estimated-data", 7: "validated-data", 8: "fully-qualified-data",
        9: "data-from-measurement-storage", 10: "data-for-demonstration", 11: "data-for-testing", 12: "calibration-ongoing",
        13: "measurement-unavailable", 14: "questionable-measurement", 15: "invalid-measurement",
    ]
    static let deviceAndSensor: [Int: String] = [
        0: "extended-display-update-ongoing", 1: "equipment-malfunction", 2: "signal-processing-irregularity", 3: "inadequate-signal",
        4: "poor-signal", 5: "low-perfusion", 6: "erratic-signal", 7: "non-pulsatile-signal", 8: "questionable-pulse",
        9: "signal-analysis-ongoing", 10: "sensor-interference", 11: "sensor-unconnected-to-user", 12: "unknown-sensor-connected",
        13: "sensor-displaced", 14: "sensor-malfunctioning", 15: "sensor-disconnected",
    ]
}

@Suite(.offCooperativePool) struct PLXSpotCheckMeasurementTests {
    let c = PLXSpotCheckMeasurement.characteristic
    /// SpO2 0x0061 = 97 %, PR 0x0040 = 64 bpm.
    let spo2PR: [UInt8] = [0x61, 0x00, 0x40, 0x00]

    @Test func minimal() throws {
        // flags 0x00: SpO2PR-Spot-Check only.
        let o = try #require(vitalsDecodeOne(c, [0x00] + spo2PR))
        #expect(o.profile == .pulseOximeter)
        #expect(o.quantities == [Quantity(.spo2, .number(DecimalNumber(97)), .percent),
                                 Quantity(.oximetryPulseRate, .number(DecimalNumber(64)), .beatsPerMinute)])
        #expect(o.summary == "97 % SpO2, pulse 64 bpm")
    }

    @Test func everything() throws {
        // flags 0x1F: bit0 timestamp, bit1 measurement status, bit2 device and sensor status, bit3 PAI, bit4 device
        // clock not set. Status 0x0020 = bit5 measurement ongoing; D&S 0x000020 = bit5 low perfusion;
        // PAI SFLOAT 0xF019 = 25 × 10^-1 = 2.5 %.
        let bytes: [UInt8] = [0x1F] + spo2PR + VitalsBytes.sampleTime + [0x20, 0x00] + [0x20, 0x00, 0x00] + [0x19, 0xF0]
        let o = try #require(vitalsDecodeOne(c, bytes))
        #expect(o.deviceTime == VitalsBytes.sampleDeviceTime)
        #expect(o.quantity("pulse-amplitude-index") == Quantity(.pulseAmplitudeIndex, .number(DecimalNumber(mantissa: 25, exponent: -1)), .percent))
        #expect(o.flags == ["device-clock-not-set", "measurement-ongoing", "low-perfusion"])
        #expect(o.summary == "97 % SpO2, pulse 64 bpm, PAI 2.5 %, device time 2026-12-06 08:12 — device clock not set, measurement ongoing, low perfusion")
    }

    @Test func everyStatusBit() throws {
        // One bit at a time in Measurement Status (bits 5-15) and Device and Sensor Status (bits 0-15); reserved
        // bits (0-4 and 16-23) give no flag.
        for bit in 0..<16 {
            let status = UInt16(1) << UInt16(bit)
            let o = try #require(vitalsDecodeOne(c, [0x02] + spo2PR + VitalsBytes.le16(status)))
            #expect(o.flags == (PLXNames.measurement[bit].map { [$0] } ?? []), "measurement status bit \(bit)")
        }
        for bit in 0..<24 {
            let o = try #require(vitalsDecodeOne(c, [0x04] + spo2PR + VitalsBytes.le24(UInt32(1) << UInt32(bit))))
            #expect(o.flags == (PLXNames.deviceAndSensor[bit].map { [$0] } ?? []), "device and sensor status bit \(bit)")
        }
    }

    @Test func everyFlagCombination() throws {
        // Bits 0-4 defined (32 combinations), each also with reserved bits 5-7 set.
        for defined in 0..<32 {
            for reserved: UInt8 in [0x00, 0xE0] {
                let flags = UInt8(defined) | reserved
                var bytes: [UInt8] = [flags] + spo2PR
                var layout = [VitalsField("flags", 0, 1), VitalsField("spo2", 1, 2), VitalsField("pulse-rate", 3, 2)]
                if flags & 0x01 != 0 {
                    layout += VitalsBytes.dateTimeLayout("timestamp", at: bytes.count)
                    bytes += VitalsBytes.sampleTime
                }
                if flags & 0x02 != 0 {
                    layout.append(VitalsField("measurement-status", bytes.count, 2))
                    bytes += VitalsBytes.le16(0x8000)        // bit15 invalid measurement
                }
                if flags & 0x04 != 0 {
                    layout.append(VitalsField("device-and-sensor-status", bytes.count, 3))
                    bytes += VitalsBytes.le24(0x008000)      // bit15 sensor disconnected
                }
                if flags & 0x08 != 0 {
                    layout.append(VitalsField("pulse-amplitude-index", bytes.count, 2))
                    bytes += VitalsBytes.sfloat(25, -1)      // 2.5 %
                }
                let o = try #require(vitalsDecodeOne(c, bytes))
                #expect(o.deviceTime == (flags & 0x01 != 0 ? VitalsBytes.sampleDeviceTime : nil))
                var expected: [String] = []
                if flags & 0x10 != 0 { expected.append("device-clock-not-set") }
                if flags & 0x02 != 0 { expected.append("invalid-measurement") }
                if flags & 0x04 != 0 { expected.append("sensor-disconnected") }
                #expect(o.flags == expected)
                #expect(o.quantity("pulse-amplitude-index")?.value == (flags & 0x08 != 0 ? .number(DecimalNumber(mantissa: 25, exponent: -1)) : nil))
                // SpO2 and PR are there whatever the status says.
                #expect(o.quantity("spo2")?.value == .number(DecimalNumber(97)))
                vitalsExpectLengthRule(c, bytes, layout)
            }
        }
    }

    @Test func featuresSayWhichConditionsAreNotMonitored() throws {
        // PLX Features: supported 0x0003 (both support fields follow); Measurement Status Support 0xFFE0 minus bit14
        // = 0xBFE0 (questionable measurement not supported); D&S Support 0x00FFFF minus bits 5 and 13 = 0x00DFDF
        // (low perfusion and sensor displaced not supported).
        let features: [UInt8] = [0x03, 0x00] + VitalsBytes.le16(0xBFE0) + VitalsBytes.le24(0x00DFDF)
        let context = DecodingContext(features: [PLXFeatures.characteristic: features])
        // flags 0x06: both status fields; status 0x0000, D&S 0x002000 = bit13 sensor displaced, set although the
        // features call it unsupported: still a flag.
        let o = try #require(vitalsDecodeOne(c, [0x06] + spo2PR + [0x00, 0x00] + [0x00, 0x20, 0x00], context: context))
        #expect(o.flags == ["sensor-displaced"])
        #expect(o.detail("measurement-status-not-supported") == "questionable-measurement")
        #expect(o.detail("device-and-sensor-status-not-supported") == "low-perfusion, sensor-displaced")
    }

    @Test func undecodableFeaturesAreIgnored() throws {
        // A features value of one byte does not decode: the measurement decodes without the support details.
        let context = DecodingContext(features: [PLXFeatures.characteristic: [0x03]])
        let o = try #require(vitalsDecodeOne(c, [0x02] + spo2PR + [0x00, 0x00], context: context))
        #expect(o.details.isEmpty)
    }
}

@Suite(.offCooperativePool) struct PLXContinuousMeasurementTests {
    let c = PLXContinuousMeasurement.characteristic
    let spo2PR: [UInt8] = [0x61, 0x00, 0x40, 0x00]   // 97 %, 64 bpm

    @Test func fastAndSlow() throws {
        // flags 0x03: bit0 fast, bit1 slow. Fast 0x0060 = 96 %, 0x0041 = 65 bpm; slow 0x0061 = 97 %, 0x003F = 63 bpm.
        let bytes: [UInt8] = [0x03] + spo2PR + [0x60, 0x00, 0x41, 0x00] + [0x61, 0x00, 0x3F, 0x00]
        let o = try #require(vitalsDecodeOne(c, bytes))
        #expect(o.quantities.map(\.metric.name) == ["spo2", "pulse-rate", "spo2-fast", "pulse-rate-fast", "spo2-slow", "pulse-rate-slow"])
        #expect(o.quantity("spo2-fast")?.value == .number(DecimalNumber(96)))
        #expect(o.quantity("pulse-rate-slow")?.value == .number(DecimalNumber(63)))
        #expect(o.deviceTime == nil)
        #expect(o.summary == "97 % SpO2, pulse 64 bpm (fast 96 %/65 bpm; slow 97 %/63 bpm)")
    }

    @Test func statusAndPAI() throws {
        // flags 0x1C: measurement status 0x2000 = bit13 measurement unavailable; D&S 0x000010 = bit4 poor signal;
        // PAI 0xF00C = 12 × 10^-1 = 1.2 %. SpO2 0x07FF = NaN while unavailable.
        let bytes: [UInt8] = [0x1C, 0xFF, 0x07, 0xFF, 0x07, 0x00, 0x20, 0x10, 0x00, 0x00, 0x0C, 0xF0]
        let o = try #require(vitalsDecodeOne(c, bytes))
        #expect(o.quantity("spo2")?.value == .notANumber)
        #expect(o.flags == ["measurement-unavailable", "poor-signal"])
        #expect(o.summary == "NaN % SpO2, pulse NaN bpm, PAI 1.2 % — measurement unavailable, poor signal")
    }

    @Test func everyFlagCombination() throws {
        for defined in 0..<32 {
            for reserved: UInt8 in [0x00, 0xE0] {
                let flags = UInt8(defined) | reserved
                var bytes: [UInt8] = [flags] + spo2PR
                var layout = [VitalsField("flags", 0, 1), VitalsField("spo2", 1, 2), VitalsField("pulse-rate", 3, 2)]
                if flags & 0x01 != 0 {
                    layout += [VitalsField("spo2-fast", bytes.count, 2), VitalsField("pulse-rate-fast", bytes.count + 2, 2)]
                    bytes += VitalsBytes.sfloat(96) + VitalsBytes.sfloat(65)
                }
                if flags & 0x02 != 0 {
                    layout += [VitalsField("spo2-slow", bytes.count, 2), VitalsField("pulse-rate-slow", bytes.count + 2, 2)]
                    bytes += VitalsBytes.sfloat(98) + VitalsBytes.sfloat(63)
                }
                if flags & 0x04 != 0 {
                    layout.append(VitalsField("measurement-status", bytes.count, 2))
                    bytes += VitalsBytes.le16(0x0400)        // bit10 data for demonstration
                }
                if flags & 0x08 != 0 {
                    layout.append(VitalsField("device-and-sensor-status", bytes.count, 3))
                    bytes += VitalsBytes.le24(0x000400)      // bit10 sensor interference
                }
                if flags & 0x10 != 0 {
                    layout.append(VitalsField("pulse-amplitude-index", bytes.count, 2))
                    bytes += VitalsBytes.sfloat(7)           // 7 %
                }
                let o = try #require(vitalsDecodeOne(c, bytes))
                #expect(o.quantity("spo2-fast")?.value == (flags & 0x01 != 0 ? .number(DecimalNumber(96)) : nil))
                #expect(o.quantity("pulse-rate-fast")?.value == (flags & 0x01 != 0 ? .number(DecimalNumber(65)) : nil))
                #expect(o.quantity("spo2-slow")?.value == (flags & 0x02 != 0 ? .number(DecimalNumber(98)) : nil))
                #expect(o.quantity("pulse-rate-slow")?.value == (flags & 0x02 != 0 ? .number(DecimalNumber(63)) : nil))
                var expected: [String] = []
                if flags & 0x04 != 0 { expected.append("data-for-demonstration") }
                if flags & 0x08 != 0 { expected.append("sensor-interference") }
                #expect(o.flags == expected)
                #expect(o.quantity("pulse-amplitude-index")?.value == (flags & 0x10 != 0 ? .number(DecimalNumber(7)) : nil))
                vitalsExpectLengthRule(c, bytes, layout)
            }
        }
    }
}

@Suite(.offCooperativePool) struct PLXFeaturesTests {
    let c = PLXFeatures.characteristic
    let names = ["measurement-status", "device-and-sensor-status", "spot-check-measurement-storage", "spot-check-timestamp",
                 "spo2pr-fast", "spo2pr-slow", "pulse-amplitude-index", "multiple-bonds"]

    @Test func supportFields() throws {
        // Supported 0x0013: bit0 (Measurement Status Support follows), bit1 (D&S Status Support follows), bit4 fast.
        // Measurement Status Support 0x0120 = bits 5 and 8; D&S Support 0x000021 = bits 0 and 5.
        let bytes: [UInt8] = [0x13, 0x00, 0x20, 0x01, 0x21, 0x00, 0x00]
        let o = try #require(vitalsDecodeOne(c, bytes))
        #expect(o.flags == ["measurement-status", "device-and-sensor-status", "spo2pr-fast"])
        #expect(o.detail("spo2pr-slow") == "not supported")
        #expect(o.detail("measurement-status-support") == "measurement-ongoing, fully-qualified-data")
        #expect(o.detail("device-and-sensor-status-support") == "extended-display-update-ongoing, low-perfusion")
        #expect(o.summary == "pulse oximeter features: measurement status, device and sensor status, spo2pr fast")
    }

    @Test func everyFeatureBitAndItsLength() throws {
        // Bits 0-7 one at a time, and all of them; bits 0 and 1 each add their support field (2 and 3 bytes).
        for bits in (0..<8).map({ UInt16(1) << UInt16($0) }) + [0x00FF] {
            var bytes = VitalsBytes.le16(bits)
            var layout = [VitalsField("supported-features", 0, 2)]
            if bits & 0x01 != 0 {
                layout.append(VitalsField("measurement-status-support", bytes.count, 2))
                bytes += VitalsBytes.le16(0xFFE0)
            }
            if bits & 0x02 != 0 {
                layout.append(VitalsField("device-and-sensor-status-support", bytes.count, 3))
                bytes += VitalsBytes.le24(0x00FFFF)
            }
            let o = try #require(vitalsDecodeOne(c, bytes))
            #expect(o.flags == names.enumerated().filter { bits & (1 << UInt16($0.offset)) != 0 }.map(\.element))
            vitalsExpectLengthRule(c, bytes, layout)
        }
    }

    @Test func noFeatures() throws {
        #expect(vitalsDecodeOne(c, [0x00, 0x00])?.summary == "pulse oximeter features: none")
    }
}
