import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct BloodPressureMeasurementTests {
    let c = BloodPressureMeasurement.characteristic

    @Test func briefVectorPulseAndBodyMovement() throws {
        // flags 0x14: bit0 = 0 mmHg, bit2 pulse rate present, bit4 measurement status present;
        // SFLOAT 0x0080 = 128 × 10^0 = 128 systolic; 0x0052 = 82 diastolic; 0x0061 = 97 MAP; 0x0040 = 64 bpm pulse;
        // status 0x0001: bit0 body movement during measurement (BPS v1.1.1 §3.1.1.5).
        let bytes: [UInt8] = [0x14, 0x80, 0x00, 0x52, 0x00, 0x61, 0x00, 0x40, 0x00, 0x01, 0x00]
        let o = try #require(vitalsDecodeOne(c, bytes))
        #expect(o.profile == .bloodPressure)
        #expect(o.quantity("systolic-pressure")?.value == .number(DecimalNumber(128)))
        #expect(o.quantity("diastolic-pressure")?.value == .number(DecimalNumber(82)))
        #expect(o.quantity("mean-arterial-pressure")?.value == .number(DecimalNumber(97)))
        #expect(o.quantity("systolic-pressure")?.unit == .millimetresOfMercury)
        #expect(o.quantity("pulse-rate")?.value == .number(DecimalNumber(64)))
        #expect(o.quantity("pulse-rate")?.metric == .bloodPressurePulseRate)
        #expect(o.flags == ["body-movement"])
        #expect(o.summary == "128/82 mmHg, pulse 64 bpm — body movement")
    }

    @Test func kilopascalsStayKilopascals() throws {
        // flags 0x01: bit0 = 1 kPa. SFLOAT 0xF0AB = 171 × 10^-1 = 17.1; 0xF06D = 109 × 10^-1 = 10.9;
        // 0xF082 = 130 × 10^-1 = 13.
        let bytes: [UInt8] = [0x01] + VitalsBytes.sfloat(171, -1) + VitalsBytes.sfloat(109, -1) + VitalsBytes.sfloat(130, -1)
        #expect(bytes == [0x01, 0xAB, 0xF0, 0x6D, 0xF0, 0x82, 0xF0])
        let o = try #require(vitalsDecodeOne(c, bytes))
        #expect(o.quantities.map(\.unit) == [.kilopascals, .kilopascals, .kilopascals])
        #expect(o.quantity("systolic-pressure")?.value == .number(DecimalNumber(mantissa: 171, exponent: -1)))
        #expect(o.quantity("mean-arterial-pressure")?.value == .number(DecimalNumber(13)))
        #expect(o.summary == "17.1/10.9 kPa")
    }

    @Test func timeStampAndUser() throws {
        // flags 0x0A: bit1 time stamp, bit3 user id; 120/80/93 mmHg; time EA 07 0C 06 08 0C 00 = 2026-12-06 08:12:00;
        // user 0x03.
        let bytes: [UInt8] = [0x0A] + VitalsBytes.sfloat(120) + VitalsBytes.sfloat(80) + VitalsBytes.sfloat(93)
            + VitalsBytes.sampleTime + [0x03]
        let o = try #require(vitalsDecodeOne(c, bytes))
        #expect(o.deviceTime == VitalsBytes.sampleDeviceTime)
        #expect(o.detail("user-id") == "3")
        #expect(o.summary == "120/80 mmHg, user 3, device time 2026-12-06 08:12")
    }

    @Test func unknownUser() throws {
        // flags 0x08: user id present; 0xFF = 255 "unknown user" (BPS v1.1.1 §3.1.1.4): no user in the summary.
        let bytes: [UInt8] = [0x08] + VitalsBytes.sfloat(120) + VitalsBytes.sfloat(80) + VitalsBytes.sfloat(93) + [0xFF]
        let o = try #require(vitalsDecodeOne(c, bytes))
        #expect(o.detail("user-id") == "unknown")
        #expect(o.summary == "120/80 mmHg")
    }

    @Test func everyMeasurementStatusCombination() throws {
        // Bits 0-5 of Measurement Status (64 combinations): bit0 body movement, bit1 cuff too loose, bit2 irregular
        // pulse, bits 3-4 pulse rate range (1 exceeds upper, 2 below lower, 3 reserved), bit5 improper position.
        for status in 0..<64 {
            let bytes: [UInt8] = [0x10] + VitalsBytes.sfloat(120) + VitalsBytes.sfloat(80) + VitalsBytes.sfloat(93)
                + VitalsBytes.le16(UInt16(status) | 0xFFC0)   // bits 6-15 reserved, set: ignored
            let o = try #require(vitalsDecodeOne(c, bytes))
            var expected: [String] = []
            if status & 0x01 != 0 { expected.append("body-movement") }
            if status & 0x02 != 0 { expected.append("cuff-too-loose") }
            if status & 0x04 != 0 { expected.append("irregular-pulse") }
            if (status >> 3) & 3 == 1 { expected.append("pulse-rate-exceeds-upper-limit") }
            if (status >> 3) & 3 == 2 { expected.append("pulse-rate-below-lower-limit") }
            if status & 0x20 != 0 { expected.append("improper-measurement-position") }
            #expect(o.flags == expected, "status \(status)")
            #expect(o.detail("pulse-rate-range") == ((status >> 3) & 3 == 3 ? "reserved (0x03)" : nil))
            // The reading is never dropped for a flag: the pressures are still there.
            #expect(o.quantity("systolic-pressure")?.value == .number(DecimalNumber(120)))
        }
    }

    @Test func allFlagWordsInTheSummary() throws {
        // status 0x002F: bits 0, 1, 2, 3 (range 0b01 = exceeds upper limit) and 5.
        let bytes: [UInt8] = [0x10] + VitalsBytes.sfloat(120) + VitalsBytes.sfloat(80) + VitalsBytes.sfloat(93) + [0x2F, 0x00]
        #expect(vitalsDecodeOne(c, bytes)?.summary
                == "120/80 mmHg — body movement, cuff too loose, irregular pulse, pulse rate exceeds upper limit, improper measurement position")
    }

    @Test func everyFlagCombination() throws {
        // Bits 0-4 defined (32 combinations), each also with reserved bits 5-7 set.
        for defined in 0..<32 {
            for reserved: UInt8 in [0x00, 0xE0] {
                let flags = UInt8(defined) | reserved
                let (bytes, layout) = BloodPressureVectors.build(flags: flags, first: "systolic")
                let o = try #require(vitalsDecodeOne(c, bytes))
                let unit: MeasurementUnit = flags & 0x01 != 0 ? .kilopascals : .millimetresOfMercury
                #expect(o.quantity("systolic-pressure") == Quantity(.systolicPressure, .number(DecimalNumber(120)), unit))
                #expect(o.quantity("diastolic-pressure") == Quantity(.diastolicPressure, .number(DecimalNumber(80)), unit))
                #expect(o.quantity("mean-arterial-pressure") == Quantity(.meanArterialPressure, .number(DecimalNumber(93)), unit))
                #expect(o.deviceTime == (flags & 0x02 != 0 ? VitalsBytes.sampleDeviceTime : nil))
                #expect(o.quantity("pulse-rate")?.value == (flags & 0x04 != 0 ? .number(DecimalNumber(64)) : nil))
                #expect(o.detail("user-id") == (flags & 0x08 != 0 ? "2" : nil))
                #expect(o.flags == (flags & 0x10 != 0 ? ["irregular-pulse"] : []))
                vitalsExpectLengthRule(c, bytes, layout)
            }
        }
    }

    @Test func specialValuesAreKept() throws {
        // SFLOAT 0x07FF NaN, 0x0800 NRes, 0x07FE +INF: kept apart, never folded into one NaN.
        let bytes: [UInt8] = [0x00, 0xFF, 0x07, 0x00, 0x08, 0xFE, 0x07]
        let o = try #require(vitalsDecodeOne(c, bytes))
        #expect(o.quantities.map(\.value) == [.notANumber, .notAtThisResolution, .positiveInfinity])
        #expect(o.summary == "NaN/NRes mmHg")
    }

    @Test func badTimeStampMonth() {
        // flags 0x02; time stamp at offset 7: year 2026 (7-8), month 13 at offset 9 — GSS Date Time allows 0-12.
        let bytes: [UInt8] = [0x02] + VitalsBytes.sfloat(120) + VitalsBytes.sfloat(80) + VitalsBytes.sfloat(93)
            + VitalsBytes.dateTime(2026, 13, 6, 8, 12, 0)
        #expect(vitalsError(c, bytes) == ProfileDecodeError(characteristic: c, field: "time-stamp.month", offset: 9, problem: .outOfRange(value: 13)))
    }
}

/// Vectors every Blood Pressure flag combination is built from: 120/80/93, time stamp 2026-12-06 08:12:00, pulse 64,
/// user 2, status 0x0004 (irregular pulse).
enum BloodPressureVectors {
    static func build(flags: UInt8, first: String, diastolic: [UInt8] = VitalsBytes.sfloat(80), mean: [UInt8] = VitalsBytes.sfloat(93))
        -> ([UInt8], [VitalsField]) {
        var bytes: [UInt8] = [flags] + VitalsBytes.sfloat(120) + diastolic + mean
        var layout = [VitalsField("flags", 0, 1), VitalsField(first, 1, 2), VitalsField("diastolic", 3, 2),
                      VitalsField("mean-arterial-pressure", 5, 2)]
        if flags & 0x02 != 0 {
            layout += VitalsBytes.dateTimeLayout("time-stamp", at: bytes.count)
            bytes += VitalsBytes.sampleTime
        }
        if flags & 0x04 != 0 {
            layout.append(VitalsField("pulse-rate", bytes.count, 2))
            bytes += VitalsBytes.sfloat(64)
        }
        if flags & 0x08 != 0 {
            layout.append(VitalsField("user-id", bytes.count, 1))
            bytes.append(0x02)
        }
        if flags & 0x10 != 0 {
            layout.append(VitalsField("measurement-status", bytes.count, 2))
            bytes += VitalsBytes.le16(0x0004)
        }
        return (bytes, layout)
    }
}

@Suite(.offCooperativePool) struct IntermediateCuffPressureTests {
    let c = IntermediateCuffPressure.characteristic

    @Test func cuffPressureWithUnusedNaNs() throws {
        // flags 0x00 mmHg; current cuff pressure 0x0078 = 120; diastolic and MAP 0x07FF = NaN, "not used" (BPS §3.2):
        // dropped.
        let o = try #require(vitalsDecodeOne(c, [0x00, 0x78, 0x00, 0xFF, 0x07, 0xFF, 0x07]))
        #expect(o.quantities == [Quantity(.cuffPressure, .number(DecimalNumber(120)), .millimetresOfMercury)])
        #expect(o.summary == "120 mmHg cuff pressure")
    }

    @Test func numbersInTheUnusedFieldsAreKept() throws {
        // diastolic 0x0050 = 80 instead of NaN, MAP NaN: the 80 is kept, the NaN is not.
        let o = try #require(vitalsDecodeOne(c, [0x00, 0x78, 0x00, 0x50, 0x00, 0xFF, 0x07]))
        #expect(o.quantities.map(\.metric.name) == ["cuff-pressure", "diastolic-pressure"])
    }

    @Test func pulseAndStatus() throws {
        // flags 0x15: kPa, pulse, status; 0xF0AB = 17.1 kPa cuff; pulse 0x0040 = 64; status 0x0004 irregular pulse.
        let bytes: [UInt8] = [0x15] + VitalsBytes.sfloat(171, -1) + [0xFF, 0x07, 0xFF, 0x07] + VitalsBytes.sfloat(64) + [0x04, 0x00]
        let o = try #require(vitalsDecodeOne(c, bytes))
        #expect(o.quantity("cuff-pressure")?.unit == .kilopascals)
        #expect(o.summary == "17.1 kPa cuff pressure, pulse 64 bpm — irregular pulse")
    }

    @Test func everyFlagCombination() throws {
        for flags in 0..<32 {
            let (bytes, layout) = BloodPressureVectors.build(flags: UInt8(flags), first: "current-cuff-pressure",
                                                             diastolic: [0xFF, 0x07], mean: [0xFF, 0x07])
            let o = try #require(vitalsDecodeOne(c, bytes))
            #expect(o.quantity("cuff-pressure")?.value == .number(DecimalNumber(120)))
            #expect(o.quantity("diastolic-pressure") == nil)
            #expect(o.quantity("pulse-rate")?.value == (flags & 0x04 != 0 ? .number(DecimalNumber(64)) : nil))
            #expect(o.deviceTime == (flags & 0x02 != 0 ? VitalsBytes.sampleDeviceTime : nil))
            vitalsExpectLengthRule(c, bytes, layout)
        }
    }
}

@Suite(.offCooperativePool) struct BloodPressureFeatureTests {
    let c = BloodPressureFeature.characteristic
    let names = ["body-movement-detection", "cuff-fit-detection", "irregular-pulse-detection", "pulse-rate-range-detection",
                 "measurement-position-detection", "multiple-bonds", "e2e-crc", "user-data-service", "user-facing-time"]

    @Test func eachFeatureBit() throws {
        // Feature bit n set alone: only feature n is supported.
        for (bit, name) in names.enumerated() {
            let o = try #require(vitalsDecodeOne(c, VitalsBytes.le16(1 << UInt16(bit))))
            #expect(o.flags == [name])
            #expect(o.detail(name) == "supported")
            for other in names where other != name { #expect(o.detail(other) == "not supported") }
        }
    }

    @Test func classicFeatures() throws {
        // 0x003F: bits 0-5 (the BPS v1.0 set).
        let o = try #require(vitalsDecodeOne(c, [0x3F, 0x00]))
        #expect(o.flags == Array(names.prefix(6)))
        #expect(o.summary == "blood pressure features: body movement detection, cuff fit detection, irregular pulse detection, "
                + "pulse rate range detection, measurement position detection, multiple bonds")
    }

    @Test func noneAndReservedBits() throws {
        // 0xFE00: only reserved bits 9-15: no feature.
        let o = try #require(vitalsDecodeOne(c, [0x00, 0xFE]))
        #expect(o.flags.isEmpty)
        #expect(o.summary == "blood pressure features: none")
    }

    @Test func lengthRule() {
        vitalsExpectLengthRule(c, [0x01, 0x00], [VitalsField("blood-pressure-feature", 0, 2)])
    }
}
