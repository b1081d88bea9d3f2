import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct HeartRateMeasurementTests {
    let c = HeartRateMeasurement.characteristic

    @Test func briefVectorContactAndOneRR() throws {
        // flags 0x16: bit0 = 0 uint8 rate, bits1-2 = 0b11 contact supported+detected, bit4 RR present;
        // 0x48 = 72 bpm; RR 0x0352 = 850/1024 s = 0.830078125 s (HRS v1.0 §3.1.1.4).
        let o = try #require(vitalsDecodeOne(HeartRateMeasurement.characteristic, [0x16, 0x48, 0x52, 0x03]))
        #expect(o.profile == .heartRate)
        #expect(o.characteristic == AssignedNumber(0x2A37))
        #expect(o.quantity("heart-rate")?.value == .number(DecimalNumber(72)))
        #expect(o.quantity("heart-rate")?.unit == .beatsPerMinute)
        #expect(o.quantity("rr-interval")?.value == .number(DecimalNumber(parsing: "0.830078125")!))
        #expect(o.quantity("rr-interval")?.unit == .seconds)
        #expect(o.flags == ["sensor-contact-detected"])
        #expect(o.summary == "72 bpm (contact; RR 0.83 s)")
    }

    @Test func severalRRIntervalsKeepTheirOrder() throws {
        // flags 0x16 as above; RR 0x0352 = 850/1024 = 0.830078125 s, then 0x033C = 828/1024 = 0.80859375 s.
        let o = try #require(vitalsDecodeOne(HeartRateMeasurement.characteristic, [0x16, 0x48, 0x52, 0x03, 0x3C, 0x03]))
        let rr = o.quantities.filter { $0.metric.name == "rr-interval" }.map(\.value)
        #expect(rr == [.number(DecimalNumber(parsing: "0.830078125")!), .number(DecimalNumber(parsing: "0.80859375")!)])
        #expect(o.summary == "72 bpm (contact; RR 0.83, 0.81 s)")
    }

    @Test func contactSupportedNotDetected() throws {
        // flags 0x04: bits1-2 = 0b10 contact supported, not detected; 0x48 = 72 bpm.
        let o = try #require(vitalsDecodeOne(HeartRateMeasurement.characteristic, [0x04, 0x48]))
        #expect(o.flags == ["sensor-contact-not-detected"])
        #expect(o.summary == "72 bpm (no contact)")
    }

    @Test func contactStatusOneMeansNotSupported() throws {
        // flags 0x02: bits1-2 = 0b01, which HRS v1.0 §3.1.1.2 also reads "not supported": no contact flag.
        let o = try #require(vitalsDecodeOne(HeartRateMeasurement.characteristic, [0x02, 0x48]))
        #expect(o.flags.isEmpty)
        #expect(o.summary == "72 bpm")
    }

    @Test func uint16RateAndSaturatedEnergy() throws {
        // flags 0x09: bit0 uint16 rate, bit3 energy present; 0x012C = 300 bpm; energy 0xFFFF = 65535 kJ, the
        // maximum the field holds until reset (HRS v1.0 §3.1.1.3).
        let o = try #require(vitalsDecodeOne(HeartRateMeasurement.characteristic, [0x09, 0x2C, 0x01, 0xFF, 0xFF]))
        #expect(o.quantity("heart-rate")?.value == .number(DecimalNumber(300)))
        #expect(o.quantity("energy-expended")?.value == .number(DecimalNumber(65535)))
        #expect(o.quantity("energy-expended")?.unit == .kilojoules)
        #expect(o.flags == ["energy-expended-at-maximum"])
        #expect(o.summary == "300 bpm (65535 kJ) — energy expended at maximum")
    }

    @Test func everyFlagCombination() throws {
        // Bits 0-4 are the defined flags (32 combinations); the same with reserved bits 5-7 set must decode alike.
        for defined in 0..<32 {
            for reserved: UInt8 in [0x00, 0xE0] {
                let flags = UInt8(defined) | reserved
                var bytes: [UInt8] = [flags]
                var layout = [VitalsField("flags", 0, 1)]
                if flags & 0x01 != 0 {
                    bytes += VitalsBytes.le16(0x0190)          // 0x0190 = 400 bpm
                    layout.append(VitalsField("heart-rate", 1, 2))
                } else {
                    bytes.append(0x48)                         // 0x48 = 72 bpm
                    layout.append(VitalsField("heart-rate", 1, 1))
                }
                if flags & 0x08 != 0 {
                    layout.append(VitalsField("energy-expended", bytes.count, 2))
                    bytes += VitalsBytes.le16(0x00FA)          // 0x00FA = 250 kJ
                }
                if flags & 0x10 != 0 {
                    layout.append(VitalsField("rr-interval", bytes.count, 2))
                    bytes += VitalsBytes.le16(0x0400)          // 0x0400 = 1024/1024 s = 1 s
                }
                let o = try #require(vitalsDecodeOne(HeartRateMeasurement.characteristic, bytes))
                #expect(o.quantity("heart-rate")?.value == .number(DecimalNumber(flags & 0x01 != 0 ? 400 : 72)))
                #expect(o.quantity("energy-expended")?.value == (flags & 0x08 != 0 ? .number(DecimalNumber(250)) : nil))
                #expect(o.quantity("rr-interval")?.value == (flags & 0x10 != 0 ? .number(DecimalNumber(1)) : nil))
                // bits 1-2: 0b10 → not detected, 0b11 → detected, 0b00/0b01 → not supported (no flag).
                let contact = (flags >> 1) & 0b11
                #expect(o.flags == (contact == 0b11 ? ["sensor-contact-detected"] : contact == 0b10 ? ["sensor-contact-not-detected"] : []))
                vitalsExpectLengthRule(c, bytes, layout, repeatsLast: flags & 0x10 != 0)
            }
        }
    }

    @Test func emptyValue() {
        #expect(vitalsError(HeartRateMeasurement.characteristic, [])
                == ProfileDecodeError(characteristic: c, field: "flags", offset: 0, problem: .tooShort(needed: 1, available: 0)))
    }

    @Test func rrFlagWithoutAnyInterval() {
        // flags 0x10 announces "one or more" RR-Intervals (HRS v1.0 §3.1.1.4); none follow the rate byte.
        #expect(vitalsError(HeartRateMeasurement.characteristic, [0x10, 0x48])
                == ProfileDecodeError(characteristic: c, field: "rr-interval", offset: 2, problem: .tooShort(needed: 2, available: 0)))
    }

    @Test func oddByteAfterRRIntervals() {
        // flags 0x10; 72 bpm; RR 0x0400; then one stray byte at offset 4: a truncated interval.
        #expect(vitalsError(HeartRateMeasurement.characteristic, [0x10, 0x48, 0x00, 0x04, 0x01])
                == ProfileDecodeError(characteristic: c, field: "rr-interval", offset: 4, problem: .tooShort(needed: 2, available: 1)))
    }
}

@Suite(.offCooperativePool) struct BodySensorLocationTests {
    @Test func everyDefinedLocation() throws {
        // GSS Body Sensor Location: 0 Other, 1 Chest, 2 Wrist, 3 Finger, 4 Hand, 5 Ear Lobe, 6 Foot.
        let expected = ["other", "chest", "wrist", "finger", "hand", "ear lobe", "foot"]
        for (raw, name) in expected.enumerated() {
            let o = try #require(vitalsDecodeOne(BodySensorLocation.characteristic, [UInt8(raw)]))
            #expect(o.detail("body-sensor-location") == name)
            #expect(o.summary == "\(name) (body sensor location)")
            #expect(o.profile == .heartRate)
        }
    }

    @Test func reservedLocationIsADetail() throws {
        // 7-255 are reserved for future use: kept as `reserved (0x07)` / `reserved (0xff)`.
        #expect(vitalsDecodeOne(BodySensorLocation.characteristic, [0x07])?.detail("body-sensor-location") == "reserved (0x07)")
        #expect(vitalsDecodeOne(BodySensorLocation.characteristic, [0xFF])?.detail("body-sensor-location") == "reserved (0xff)")
    }

    @Test func lengthRule() {
        vitalsExpectLengthRule(BodySensorLocation.characteristic, [0x01], [VitalsField("body-sensor-location", 0, 1)])
    }
}

@Suite(.offCooperativePool) struct BatteryLevelTests {
    @Test func everyLevel() throws {
        // GSS Battery Level: uint8 percent, 0-100.
        for level in 0...100 {
            let o = try #require(vitalsDecodeOne(BatteryLevel.characteristic, [UInt8(level)]))
            #expect(o.quantity("battery-level")?.value == .number(DecimalNumber(level)))
            #expect(o.quantity("battery-level")?.unit == .percent)
            #expect(o.summary == "\(level) %")
            #expect(o.profile == .battery)
        }
    }

    @Test func ninetySeven() throws {
        // 0x61 = 97 %.
        #expect(vitalsDecodeOne(BatteryLevel.characteristic, [0x61])?.summary == "97 %")
    }

    @Test func aboveHundredIsOutOfRange() {
        // 0x65 = 101: GSS allows 0-100 only.
        for raw: UInt8 in [0x65, 0xFF] {
            #expect(vitalsError(BatteryLevel.characteristic, [raw])
                    == ProfileDecodeError(characteristic: BatteryLevel.characteristic, field: "battery-level", offset: 0,
                                          problem: .outOfRange(value: Int64(raw))))
        }
    }

    @Test func lengthRule() {
        vitalsExpectLengthRule(BatteryLevel.characteristic, [0x64], [VitalsField("battery-level", 0, 1)])
    }
}
