import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct WeightMeasurementTests {
    let decode: CharacteristicDecoder.Decode = WeightMeasurement.decode

    /// Every combination of the four defined flag bits (WSS v1.0 §3.2: bit 0 units, 1 time stamp, 2 user ID, 3 BMI and
    /// height), each also with the reserved bits 4-7 set (they do not change the layout).
    @Test func everyFlagCombination() throws {
        for defined in UInt8(0)..<16 {
            for reserved in [UInt8(0x00), 0xF0] {
                let flags = defined | reserved
                let imperial = flags & 0x01 != 0
                // Weight 0x3886 = 14470: SI 14470 × 0.005 = 72.35 kg; imperial 14470 × 0.01 = 144.7 lb.
                var bytes = [flags] + fitLE16(UInt16(14470))
                var last = ("weight", 1, 2)
                if flags & 0x02 != 0 {
                    last = ("time-stamp.seconds", bytes.count + 6, 1)
                    bytes += fitDateTime(2026, 12, 6, 8, 12, 30)
                }
                if flags & 0x04 != 0 {
                    last = ("user-id", bytes.count, 1)
                    bytes += [7]
                }
                if flags & 0x08 != 0 {
                    // BMI 234 × 0.1 = 23.4 kg/m²; height 1756: SI × 0.001 = 1.756 m, imperial × 0.1 = 175.6 in.
                    last = ("height", bytes.count + 2, 2)
                    bytes += fitLE16(UInt16(234)) + fitLE16(UInt16(1756))
                }
                let o = try #require(fitDecode(decode, bytes))
                #expect(o.profile == .weightScale)
                let weight = try #require(o.quantity("body-weight"))
                #expect(weight.value == .number(imperial ? fitDec(1447, -1) : fitDec(7235, -2)))
                #expect(weight.unit == (imperial ? .pounds : .kilograms))
                #expect(weight.metric.mdc == 188_736 && weight.metric.loinc == "29463-7")
                #expect((o.deviceTime != nil) == (flags & 0x02 != 0))
                #expect(o.detail("user-id") == (flags & 0x04 != 0 ? "7" : nil))
                if flags & 0x08 != 0 {
                    #expect(o.quantity("bmi")?.value == .number(fitDec(234, -1)))
                    #expect(o.quantity("bmi")?.unit == .kilogramsPerSquareMetre)
                    #expect(o.quantity("body-height")?.value == .number(imperial ? fitDec(1756, -1) : fitDec(1756, -3)))
                    #expect(o.quantity("body-height")?.unit == (imperial ? .inches : .metres))
                } else {
                    #expect(o.quantity("bmi") == nil && o.quantity("body-height") == nil)
                }
                #expect(o.flags.isEmpty)
                fitExpectLengthRule(decode, bytes, lastField: last.0, fieldOffset: last.1, fieldSize: last.2)
            }
        }
    }

    @Test func handVectorAllFields() throws {
        // flags 0x0E: SI, bit1 time stamp, bit2 user ID, bit3 BMI+height; weight 0x3886 = 14470 × 0.005 = 72.35 kg;
        // time 0x07EA = 2026-12-06 08:12:30; user 3; BMI 0x00EA = 234 → 23.4; height 0x06DC = 1756 → 1.756 m.
        let bytes: [UInt8] = [0x0E, 0x86, 0x38, 0xEA, 0x07, 12, 6, 8, 12, 30, 0x03, 0xEA, 0x00, 0xDC, 0x06]
        let o = try #require(fitDecode(decode, bytes))
        #expect(o.deviceTime == DeviceTime(year: 2026, month: 12, day: 6, hours: 8, minutes: 12, seconds: 30))
        #expect(o.quantities.map(\.metric.name) == ["body-weight", "bmi", "body-height"])
        #expect(o.summary == "72.35 kg, BMI 23.4, height 1.756 m, user 3, device time 2026-12-06 08:12:30")
    }

    @Test func imperialWeightOnly() throws {
        // flags 0x01 imperial; 0x3886 = 14470 × 0.01 lb = 144.7 lb.
        let o = try #require(fitDecode(decode, [0x01, 0x86, 0x38]))
        #expect(o.summary == "144.7 lb")
    }

    @Test func measurementUnsuccessfulKeepsTheReadingWithoutAWeight() throws {
        // flags 0x04 user ID present; weight 0xFFFF = "Measurement Unsuccessful" (WSS §3.2); user 2.
        let o = try #require(fitDecode(decode, [0x04, 0xFF, 0xFF, 0x02]))
        #expect(o.quantities.isEmpty)
        #expect(o.flags == ["measurement-unsuccessful"])
        #expect(o.detail("user-id") == "2")
        #expect(o.summary == "no weight, user 2 — measurement unsuccessful")
        // 0xFFFE is an ordinary (if heavy) weight: 65534 × 0.005 = 327.67 kg.
        #expect(fitDecode(decode, [0x00, 0xFE, 0xFF])?.quantity("body-weight")?.value == .number(fitDec(32767, -2)))
    }

    @Test func unknownUser() throws {
        // User ID 0xFF = "unknown user": detail says so, summary leaves it out.
        let o = try #require(fitDecode(decode, [0x04, 0x86, 0x38, 0xFF]))
        #expect(o.detail("user-id") == "unknown")
        #expect(o.summary == "72.35 kg")
    }

    @Test func errors() {
        #expect(fitError(decode, []) == ProfileDecodeError(characteristic: AssignedNumber(0x2A9D), field: "flags", offset: 0,
                                                            problem: .tooShort(needed: 1, available: 0)))
        #expect(fitError(decode, [0x00, 0x86]) == ProfileDecodeError(characteristic: AssignedNumber(0x2A9D), field: "weight", offset: 1,
                                                                      problem: .tooShort(needed: 2, available: 1)))
        // BMI flag set but only the BMI sent: height missing at offset 5.
        #expect(fitError(decode, [0x08, 0x86, 0x38, 0xEA, 0x00])?.field == "height")
        // Month 13 in the time stamp (offset 3 + 2): out of range.
        #expect(fitError(decode, [0x02, 0x86, 0x38] + fitDateTime(2026, 13, 6, 8, 12, 30))
                == ProfileDecodeError(characteristic: AssignedNumber(0x2A9D), field: "time-stamp.month", offset: 5,
                                      problem: .outOfRange(value: 13)))
    }
}

@Suite(.offCooperativePool) struct WeightScaleFeatureTests {
    let decode: CharacteristicDecoder.Decode = WeightScaleFeature.decode

    @Test func everyFeatureBitAndResolution() throws {
        let weightTable = ["not specified", "0.5 kg or 1 lb", "0.2 kg or 0.5 lb", "0.1 kg or 0.2 lb", "0.05 kg or 0.1 lb",
                           "0.02 kg or 0.05 lb", "0.01 kg or 0.02 lb", "0.005 kg or 0.01 lb"]
        let heightTable = ["not specified", "0.01 m or 1 in", "0.005 m or 0.5 in", "0.001 m or 0.1 in"]
        for bits in UInt32(0)..<8 {
            for weightResolution in UInt32(0)..<16 {
                for heightResolution in UInt32(0)..<8 {
                    // bits 0-2 features, 3-6 weight resolution, 7-9 height resolution (WSS v1.0 §3.1).
                    let raw = bits | weightResolution << 3 | heightResolution << 7
                    let o = try #require(fitDecode(decode, fitLE32(raw)))
                    let names = ["time-stamp", "multiple-users", "bmi"]
                    #expect(o.flags == names.enumerated().filter { bits & (1 << UInt32($0.offset)) != 0 }.map(\.element))
                    for (i, name) in names.enumerated() {
                        #expect(o.detail(name) == (bits & (1 << UInt32(i)) != 0 ? "supported" : "not supported"))
                    }
                    // 8-15 and 4-7 are reserved: kept as a detail, not an error.
                    #expect(o.detail("weight-resolution") == (weightResolution < 8 ? weightTable[Int(weightResolution)]
                                                              : "reserved (0x0\(String(weightResolution, radix: 16)))"))
                    #expect(o.detail("height-resolution") == (heightResolution < 4 ? heightTable[Int(heightResolution)]
                                                              : "reserved (0x0\(heightResolution))"))
                }
            }
        }
    }

    @Test func handVector() throws {
        // 0x000001BF: bits 0-2 all set; bits 3-6 = 0b0111 = 7 (0.005 kg); bits 7-9 = 0b011 = 3 (0.001 m); reserved bit 31 set.
        let o = try #require(fitDecode(decode, [0xBF, 0x01, 0x00, 0x80]))
        #expect(o.summary == "weight scale features: time stamp, multiple users, BMI; weight resolution 0.005 kg or 0.01 lb, "
                + "height resolution 0.001 m or 0.1 in")
        fitExpectLengthRule(decode, [0xBF, 0x01, 0x00, 0x80], lastField: "weight-scale-feature", fieldOffset: 0, fieldSize: 4)
    }
}
