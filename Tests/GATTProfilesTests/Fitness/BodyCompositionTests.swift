import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct BodyCompositionMeasurementTests {
    let decode: CharacteristicDecoder.Decode = BodyCompositionMeasurement.decode

    /// BCS v1.0 §3.2 optional fields after the time stamp (bit 1) and user ID (bit 2), in wire order: bit, metric,
    /// raw value sent, expected value for SI and for imperial. Masses: SI raw × 0.005 kg, imperial raw × 0.01 lb;
    /// height SI raw × 0.001 m, imperial raw × 0.1 in; percentages raw × 0.1 %; impedance raw × 0.1 Ω; basal
    /// metabolism raw kJ.
    static let fields: [(bit: Int, metric: String, raw: UInt16, si: DecimalNumber, imperial: DecimalNumber)] = [
        (3, "basal-metabolism", 6500, fitDec(6500), fitDec(6500)),                // 6500 kJ either way
        (4, "muscle-percentage", 412, fitDec(412, -1), fitDec(412, -1)),          // 41.2 %
        (5, "muscle-mass", 6100, fitDec(305, -1), fitDec(61)),                    // 6100 × 0.005 = 30.5 kg; × 0.01 = 61 lb
        (6, "fat-free-mass", 11400, fitDec(57), fitDec(114)),                     // 57 kg; 114 lb
        (7, "soft-lean-mass", 10800, fitDec(54), fitDec(108)),                    // 54 kg; 108 lb
        (8, "body-water-mass", 8020, fitDec(401, -1), fitDec(802, -1)),           // 40.1 kg; 80.2 lb
        (9, "impedance", 5002, fitDec(5002, -1), fitDec(5002, -1)),               // 500.2 Ω
        (10, "body-weight", 14470, fitDec(7235, -2), fitDec(1447, -1)),           // 72.35 kg; 144.7 lb
        (11, "body-height", 1756, fitDec(1756, -3), fitDec(1756, -1)),            // 1.756 m; 175.6 in
    ]

    /// All 4096 combinations of bits 0-11, with and without the reserved bits 13-15.
    @Test func everyFlagCombination() throws {
        for defined in UInt16(0)..<0x1000 {
            for reserved in [UInt16(0), 0xE000] where reserved == 0 || defined % 97 == 0 {
                let flags = defined | reserved
                let imperial = flags & 1 != 0
                // Body fat 213 × 0.1 = 21.3 %.
                var bytes = fitLE16(flags) + fitLE16(UInt16(213))
                var last = ("body-fat-percentage", 2, 2)
                if flags & 0x02 != 0 {
                    last = ("time-stamp.seconds", bytes.count + 6, 1)
                    bytes += fitDateTime(2026, 12, 6, 8, 12, 30)
                }
                if flags & 0x04 != 0 {
                    last = ("user-id", bytes.count, 1)
                    bytes += [3]
                }
                let names = ["basal-metabolism", "muscle-percentage", "muscle-mass", "fat-free-mass", "soft-lean-mass",
                             "body-water-mass", "impedance", "weight", "height"]
                for (i, field) in Self.fields.enumerated() where flags & (1 << UInt16(field.bit)) != 0 {
                    last = (names[i], bytes.count, 2)
                    bytes += fitLE16(field.raw)
                }
                let o = try #require(fitDecode(decode, bytes))
                #expect(o.profile == .bodyComposition)
                #expect(o.quantity("body-fat-percentage")?.value == .number(fitDec(213, -1)))
                #expect((o.deviceTime != nil) == (flags & 0x02 != 0))
                #expect(o.detail("user-id") == (flags & 0x04 != 0 ? "3" : nil))
                for field in Self.fields {
                    let q = o.quantity(field.metric)
                    if flags & (1 << UInt16(field.bit)) != 0 {
                        #expect(q?.value == .number(imperial ? field.imperial : field.si), "\(field.metric) flags \(flags)")
                    } else {
                        #expect(q == nil)
                    }
                }
                // Body fat first, then the optional fields in wire order.
                #expect(o.quantities.count == 1 + Self.fields.filter { flags & (1 << UInt16($0.bit)) != 0 }.count)
                #expect(o.flags.isEmpty)
                if defined % 7 == 0 {
                    fitExpectLengthRule(decode, bytes, lastField: last.0, fieldOffset: last.1, fieldSize: last.2)
                }
            }
        }
    }

    @Test func unitsFollowBitZero() throws {
        // flags 0x0C20: bit 5 muscle mass, bit 10 weight, bit 11 height, SI; then the same with bit 0 (imperial).
        let payload = fitLE16(UInt16(213)) + fitLE16(UInt16(6100)) + fitLE16(UInt16(14470)) + fitLE16(UInt16(1756))
        let si = try #require(fitDecode(decode, fitLE16(UInt16(0x0C20)) + payload))
        #expect(si.quantity("muscle-mass")?.unit == .kilograms)
        #expect(si.quantity("body-weight")?.unit == .kilograms)
        #expect(si.quantity("body-height")?.unit == .metres)
        let imperial = try #require(fitDecode(decode, fitLE16(UInt16(0x0C21)) + payload))
        #expect(imperial.quantity("muscle-mass")?.unit == .pounds)
        #expect(imperial.quantity("body-weight")?.unit == .pounds)
        #expect(imperial.quantity("body-height")?.unit == .inches)
        #expect(imperial.quantity("impedance") == nil)
    }

    @Test func handVector() throws {
        // flags 0x060E: bits 1 time, 2 user, 3 basal metabolism, 9 impedance, 10 weight (SI);
        // fat 0x00D5 = 213 → 21.3 %; 2026-12-06 08:12:30; user 3; basal 0x1964 = 6500 kJ;
        // impedance 0x138A = 5002 → 500.2 Ω; weight 0x3886 = 14470 → 72.35 kg.
        let bytes: [UInt8] = [0x0E, 0x06, 0xD5, 0x00, 0xEA, 0x07, 12, 6, 8, 12, 30, 0x03, 0x64, 0x19, 0x8A, 0x13, 0x86, 0x38]
        let o = try #require(fitDecode(decode, bytes))
        #expect(o.quantity("body-fat-percentage")?.metric.mdc == 188_748)
        #expect(o.quantity("impedance")?.unit == .ohms)
        #expect(o.summary == "21.3 % body fat, basal metabolism 6500 kJ, impedance 500.2 Ω, weight 72.35 kg, user 3, "
                + "device time 2026-12-06 08:12:30")
    }

    @Test func measurementUnsuccessful() throws {
        // Body fat 0xFFFF = "Measurement Unsuccessful": no body-fat quantity, the reading is still delivered.
        let o = try #require(fitDecode(decode, [0x00, 0x00, 0xFF, 0xFF]))
        #expect(o.quantities.isEmpty)
        #expect(o.flags == ["measurement-unsuccessful"])
        #expect(o.summary == "no body fat — measurement unsuccessful")
    }

    // Two halves of one measurement (BCS v1.0 §3.2 bit 12), SI:
    // first  flags 0x100E = bits 1 time, 2 user, 3 basal, 12 multiple packet; fat 21.3 %; time; user 3; basal 6500 kJ.
    // second flags 0x1E00 = bits 9 impedance, 10 weight, 11 height, 12; fat 21.3 %; 500.2 Ω; 72.35 kg; 1.756 m.
    static let first: [UInt8] = [0x0E, 0x10, 0xD5, 0x00, 0xEA, 0x07, 12, 6, 8, 12, 30, 0x03, 0x64, 0x19]
    static let second: [UInt8] = [0x00, 0x1E, 0xD5, 0x00, 0x8A, 0x13, 0x86, 0x38, 0xDC, 0x06]

    @Test func firstPacketAlone() throws {
        let o = try #require(fitDecode(decode, Self.first))
        #expect(o.quantities.map(\.metric.name) == ["body-fat-percentage", "basal-metabolism"])
        #expect(o.flags == ["multiple-packet-measurement"])
    }

    @Test func secondPacketJoinsTheFirst() throws {
        let o = try #require(fitDecode(decode, Self.second, DecodingContext(previous: Self.first)))
        #expect(o.quantities.map(\.metric.name) == ["body-fat-percentage", "basal-metabolism", "impedance", "body-weight", "body-height"])
        #expect(o.deviceTime == DeviceTime(year: 2026, month: 12, day: 6, hours: 8, minutes: 12, seconds: 30))
        #expect(o.detail("user-id") == "3")
        #expect(o.flags == ["multiple-packet-measurement", "packets-merged"])
        #expect(o.detail("second-packet-body-fat-percentage") == nil)
        #expect(o.summary == "21.3 % body fat, basal metabolism 6500 kJ, impedance 500.2 Ω, weight 72.35 kg, height 1.756 m, "
                + "user 3, device time 2026-12-06 08:12:30 — multiple packet measurement, packets merged")
    }

    @Test func packetsThatAreNotTwoHalvesAreNotJoined() throws {
        // The second half alone (no previous): its own fields only.
        #expect(fitDecode(decode, Self.second)?.quantities.count == 4)
        // A first half after a second half (the next measurement): bit 11 of the previous is after bit 1 of this one.
        #expect(fitDecode(decode, Self.first, DecodingContext(previous: Self.second))?.flags == ["multiple-packet-measurement"])
        // The same half twice (a repeated indication).
        #expect(fitDecode(decode, Self.second, DecodingContext(previous: Self.second))?.quantities.count == 4)
        // Different unit systems: the previous (imperial, bit 0) cannot be the other half.
        var imperialFirst = Self.first
        imperialFirst[0] |= 0x01
        #expect(fitDecode(decode, Self.second, DecodingContext(previous: imperialFirst))?.quantities.count == 4)
        // The previous is not a multiple-packet value.
        var single = Self.first
        single[1] = 0x00
        #expect(fitDecode(decode, Self.second, DecodingContext(previous: single))?.quantities.count == 4)
        // The previous does not decode (truncated): no join and no error.
        #expect(fitDecode(decode, Self.second, DecodingContext(previous: Array(Self.first.dropLast())))?.quantities.count == 4)
    }

    @Test func secondHalfWithADifferentBodyFatIsKept() throws {
        var second = Self.second
        second[2] = 0xD6   // 214 → 21.4 %
        let o = try #require(fitDecode(decode, second, DecodingContext(previous: Self.first)))
        #expect(o.quantity("body-fat-percentage")?.value == .number(fitDec(213, -1)))
        #expect(o.detail("second-packet-body-fat-percentage") == "21.4 %")
    }

    @Test func errors() {
        #expect(fitError(decode, [0x00]) == ProfileDecodeError(characteristic: AssignedNumber(0x2A9C), field: "flags", offset: 0,
                                                                problem: .tooShort(needed: 2, available: 1)))
        #expect(fitError(decode, [0x00, 0x00, 0xD5]) == ProfileDecodeError(characteristic: AssignedNumber(0x2A9C),
                                                                            field: "body-fat-percentage", offset: 2,
                                                                            problem: .tooShort(needed: 2, available: 1)))
        // Weight flagged (bit 10) after impedance (bit 9): weight missing at offset 6.
        #expect(fitError(decode, [0x00, 0x06, 0xD5, 0x00, 0x8A, 0x13])
                == ProfileDecodeError(characteristic: AssignedNumber(0x2A9C), field: "weight", offset: 6,
                                      problem: .tooShort(needed: 2, available: 0)))
    }
}

@Suite(.offCooperativePool) struct BodyCompositionMergeTests {
    // Composition: 21.3 % body fat, user 3, no weight/height. Weight: flags 0x0C SI, 72.35 kg, user 3, BMI 23.4, 1.756 m.
    let composition = fitDecode(BodyCompositionMeasurement.decode, [0x04, 0x00, 0xD5, 0x00, 0x03])!
    let weight = fitDecode(WeightMeasurement.decode, [0x0C, 0x86, 0x38, 0x03, 0xEA, 0x00, 0xDC, 0x06])!

    @Test func addsWeightHeightAndBMI() {
        let merged = BodyCompositionMerge.merge(composition: composition, weight: weight)
        #expect(merged.quantities.map(\.metric.name) == ["body-fat-percentage", "body-weight", "body-height", "bmi"])
        #expect(merged.quantity("body-weight") == weight.quantity("body-weight"))
        #expect(merged.detail("merged-from") == "2A9D")
        #expect(merged.summary == "21.3 % body fat, weight 72.35 kg, height 1.756 m, BMI 23.4, user 3")
    }

    @Test func keepsTheCompositionsOwnValues() throws {
        // Composition with its own weight (bit 10: 0x2EE0 = 12000 → 60 kg): the scale's 72.35 kg does not replace it.
        let ownValue = fitDecode(BodyCompositionMeasurement.decode, [0x04, 0x04, 0xD5, 0x00, 0x03, 0xE0, 0x2E])  // outside #require: swift-frontend 6.3 crashes on a typed-throws function value in the macro
        let own = try #require(ownValue)
        let merged = BodyCompositionMerge.merge(composition: own, weight: weight)
        #expect(merged.quantity("body-weight")?.value == .number(fitDec(60)))
        #expect(merged.quantity("bmi") != nil)
    }

    @Test func refusesToMixUsersOrCharacteristics() throws {
        // Weight of user 4.
        let otherValue = fitDecode(WeightMeasurement.decode, [0x0C, 0x86, 0x38, 0x04, 0xEA, 0x00, 0xDC, 0x06])  // outside #require: swift-frontend 6.3 crashes on a typed-throws function value in the macro
        let other = try #require(otherValue)
        #expect(BodyCompositionMerge.merge(composition: composition, weight: other) == composition)
        // Arguments the wrong way round.
        #expect(BodyCompositionMerge.merge(composition: weight, weight: composition) == weight)
        // An unsuccessful weight (0xFFFF) has nothing to add.
        let failedValue = fitDecode(WeightMeasurement.decode, [0x04, 0xFF, 0xFF, 0x03])  // outside #require: swift-frontend 6.3 crashes on a typed-throws function value in the macro
        let failed = try #require(failedValue)
        #expect(BodyCompositionMerge.merge(composition: composition, weight: failed) == composition)
    }
}

@Suite(.offCooperativePool) struct BodyCompositionFeatureTests {
    let decode: CharacteristicDecoder.Decode = BodyCompositionFeature.decode

    @Test func everyFeatureBitAndResolution() throws {
        let names = ["time-stamp", "multiple-users", "basal-metabolism", "muscle-percentage", "muscle-mass", "fat-free-mass",
                     "soft-lean-mass", "body-water-mass", "impedance", "weight", "height"]
        let massTable = ["not specified", "0.5 kg or 1 lb", "0.2 kg or 0.5 lb", "0.1 kg or 0.2 lb", "0.05 kg or 0.1 lb",
                         "0.02 kg or 0.05 lb", "0.01 kg or 0.02 lb", "0.005 kg or 0.01 lb"]
        let heightTable = ["not specified", "0.01 m or 1 in", "0.005 m or 0.5 in", "0.001 m or 0.1 in"]
        for bits in UInt32(0)..<0x800 {
            // bits 0-10 features; 11-14 mass resolution; 15-17 height resolution (BCS v1.0 §3.1).
            let mass = bits % 16, height = bits % 8
            let raw = bits | mass << 11 | height << 15
            let o = try #require(fitDecode(decode, fitLE32(raw)))
            #expect(o.flags == names.enumerated().filter { bits & (1 << UInt32($0.offset)) != 0 }.map(\.element))
            #expect(o.detail("mass-resolution") == (mass < 8 ? massTable[Int(mass)] : "reserved (0x0\(String(mass, radix: 16)))"))
            #expect(o.detail("height-resolution") == (height < 4 ? heightTable[Int(height)] : "reserved (0x0\(height))"))
        }
        fitExpectLengthRule(decode, fitLE32(0x7FF), lastField: "body-composition-feature", fieldOffset: 0, fieldSize: 4)
    }
}
