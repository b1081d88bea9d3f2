import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct RSCMeasurementTests {
    let decode: CharacteristicDecoder.Decode = RSCMeasurement.decode
    static let characteristic = AssignedNumber(0x2A53)

    /// Every combination of the three defined flag bits (RSCS v1.0 §3.1: bit 0 stride length present, bit 1 total
    /// distance present, bit 2 walking 0 / running 1), with reserved bits 3-7 clear and set.
    @Test func everyFlagCombination() throws {
        for defined in UInt8(0)..<8 {
            for reserved in [UInt8(0x00), 0xF8] {
                let flags = defined | reserved
                // Speed 0x0380 = 896/256 = 3.5 m/s; cadence 0xAA = 170 steps/min.
                var bytes = [flags] + fitLE16(UInt16(0x0380)) + [0xAA]
                var layout = [FitField("flags", 0, 1), FitField("instantaneous-speed", 1, 2), FitField("instantaneous-cadence", 3, 1)]
                var parts = ["3.5 m/s", "170 steps/min"]
                if flags & 0x01 != 0 {
                    // Stride 0x0080 = 128 × 0.01 m = 1.28 m.
                    layout.append(FitField("instantaneous-stride-length", bytes.count, 2))
                    bytes += fitLE16(UInt16(0x0080))
                    parts.append("stride 1.28 m")
                }
                if flags & 0x02 != 0 {
                    // Distance 0x000030D4 = 12500 × 0.1 m = 1250 m.
                    layout.append(FitField("total-distance", bytes.count, 4))
                    bytes += fitLE32(UInt32(12500))
                    parts.append("total 1250 m")
                }
                fitExpectTooShortAtEveryField(decode, bytes, layout, characteristic: Self.characteristic)

                let o = try #require(fitDecode(decode, bytes))
                #expect(o.profile == .runningSpeedCadence && o.characteristic == Self.characteristic)
                #expect(o.quantity("running-speed")?.value == .number(fitDec(35, -1)))
                #expect(o.quantity("running-speed")?.unit == .metresPerSecond)
                #expect(o.quantity("cadence")?.value == .number(fitDec(170)))
                #expect(o.quantity("cadence")?.unit == .stepsPerMinute)
                #expect(o.quantity("stride-length")?.value == (flags & 0x01 != 0 ? .number(fitDec(128, -2)) : nil))
                #expect(o.quantity("total-distance")?.value == (flags & 0x02 != 0 ? .number(fitDec(1250)) : nil))
                if flags & 0x01 != 0 { #expect(o.quantity("stride-length")?.unit == .metres) }
                if flags & 0x02 != 0 { #expect(o.quantity("total-distance")?.unit == .metres) }
                // No RSC Feature in the context: the status bit is reported as sent.
                let status = flags & 0x04 != 0 ? "running" : "walking"
                #expect(o.flags == [status])
                #expect(o.summary == parts.joined(separator: ", ") + " — " + status)
            }
        }
    }

    @Test func handVector() throws {
        // flags 0x07: bit0 stride, bit1 distance, bit2 running; speed 0x03E8 = 1000/256 = 3.90625 m/s (shown 3.91);
        // cadence 0xB4 = 180; stride 0x0073 = 115 → 1.15 m; distance 0x0001E240 = 123456 → 12345.6 m.
        let bytes: [UInt8] = [0x07, 0xE8, 0x03, 0xB4, 0x73, 0x00, 0x40, 0xE2, 0x01, 0x00]
        let o = try #require(fitDecode(decode, bytes))
        #expect(o.quantity("running-speed")?.value == .number(fitDec(390_625, -5)))
        #expect(o.quantity("stride-length")?.value == .number(fitDec(115, -2)))
        #expect(o.quantity("total-distance")?.value == .number(fitDec(123_456, -1)))
        #expect(o.quantities.map(\.metric.name) == ["running-speed", "cadence", "stride-length", "total-distance"])
        #expect(o.summary == "3.91 m/s, 180 steps/min, stride 1.15 m, total 12345.6 m — running")
    }

    @Test func speedIsAnExactBinaryFraction() throws {
        // 0xFFFF = 65535/256 = 255.99609375 m/s exactly (shown 256 m/s at 0.01); 0x0001 = 1/256 = 0.00390625 m/s (shown 0).
        let top = try #require(fitDecode(decode, [0x00, 0xFF, 0xFF, 0x00]))
        #expect(top.quantity("running-speed")?.value == .number(fitDec(25_599_609_375, -8)))
        #expect(top.summary == "256 m/s, 0 steps/min — walking")
        let bottom = try #require(fitDecode(decode, [0x00, 0x01, 0x00, 0x00]))
        #expect(bottom.quantity("running-speed")?.value == .number(fitDec(390_625, -8)))
    }

    @Test func statusFollowsTheRSCFeature() throws {
        // RSC Feature (0x2A54) bit 2 = Walking or Running Status Supported (RSCS v1.0 §3.2).
        let running: [UInt8] = [0x04, 0x80, 0x03, 0xAA]   // flags bit 2 running; 0x0380 = 3.5 m/s; 170 steps/min
        for (feature, expected) in [([UInt8(0x04), 0x00], ["running"]),   // supported: the bit is meaningful
                                    ([0x07, 0x00], ["running"]),          // supported with other features
                                    ([0x03, 0x00], []),                   // not supported: bit 2 carries nothing
                                    ([0x00, 0x00], [])] as [([UInt8], [String])] {
            let o = try #require(fitDecode(decode, running, DecodingContext(features: [AssignedNumber(0x2A54): feature])))
            #expect(o.flags == expected, "feature \(feature)")
            #expect(o.summary == (expected.isEmpty ? "3.5 m/s, 170 steps/min" : "3.5 m/s, 170 steps/min — running"))
        }
        // Walking (bit 2 clear) with the status supported.
        let walking = try #require(fitDecode(decode, [0x00, 0x80, 0x03, 0xAA], DecodingContext(features: [AssignedNumber(0x2A54): [0x04, 0x00]])))
        #expect(walking.flags == ["walking"])
    }

    @Test func errors() {
        let c = Self.characteristic
        #expect(fitError(decode, []) == ProfileDecodeError(characteristic: c, field: "flags", offset: 0, problem: .tooShort(needed: 1, available: 0)))
        // Speed cut after one byte.
        #expect(fitError(decode, [0x00, 0x80]) == ProfileDecodeError(characteristic: c, field: "instantaneous-speed", offset: 1,
                                                                      problem: .tooShort(needed: 2, available: 1)))
        // flags 0x02 (distance) but a stride-sized field: total distance needs 4 at offset 4, 2 left.
        #expect(fitError(decode, [0x02, 0x80, 0x03, 0xAA, 0x80, 0x00])
                == ProfileDecodeError(characteristic: c, field: "total-distance", offset: 4, problem: .tooShort(needed: 4, available: 2)))
        // flags 0x00 but a stride sent: 2 trailing bytes at offset 4.
        #expect(fitError(decode, [0x00, 0x80, 0x03, 0xAA, 0x80, 0x00])
                == ProfileDecodeError(characteristic: c, field: "end", offset: 4, problem: .trailingBytes(count: 2)))
    }
}
