import TestScheduling
import Testing
@testable import GATTProfiles

private typealias B = GlucoseBytes

@Suite(.offCooperativePool) struct GlucoseContextTests {
    // Field bytes used below, each with its meaning:
    static let carbohydrate: [UInt8] = [0x01] + [0x32, 0xD0]   // id 1 breakfast; SFLOAT 0xD032: exp -3, mantissa 50 → 0.050 kg = 50 g
    static let meal: [UInt8] = [0x01]                          // 1 preprandial
    static let testerHealth: [UInt8] = [0x51]                  // tester 1 self (bits 0-3), health 5 no health issues (bits 4-7)
    static let exercise: [UInt8] = B.le16(1800) + [50]         // 1800 s = 0x0708, intensity 50 %
    static let medicationKg: [UInt8] = [0x01] + [0x0A, 0xA0]   // id 1 rapid acting; SFLOAT 0xA00A: exp -6, mantissa 10 → 10e-6 kg = 10 mg
    static let medicationL: [UInt8] = [0x04] + [0x0A, 0xD0]    // id 4 long acting; SFLOAT 0xD00A: exp -3, mantissa 10 → 0.010 L = 10 mL
    static let hba1c: [UInt8] = [0x41, 0xF0]                   // SFLOAT 0xF041: exp -1, mantissa 65 → 6.5 %

    @Test func allFieldsHandVector() throws {
        // flags 0xDF: bits 0-4 (carbohydrate, meal, tester-health, exercise, medication), bit 6 HbA1c, bit 7 extended
        // flags; bit 5 clear → medication in kg.
        let bytes: [UInt8] = [0xDF] + B.le16(42) + [0x00] + Self.carbohydrate + Self.meal + Self.testerHealth + Self.exercise
            + Self.medicationKg + Self.hba1c
        let obs = try #require(try GlucoseMeasurementContext.decode(bytes, context: .none).first)
        #expect(obs.record == 42)
        #expect(obs.quantity("carbohydrate")?.value == .number(DecimalNumber(50)))        // 50e-3 kg × 10³ = 50 g
        #expect(obs.quantity("carbohydrate")?.unit == .grams)
        #expect(obs.quantity("exercise-duration")?.value == .number(DecimalNumber(1800)))
        #expect(obs.quantity("exercise-duration")?.unit == .seconds)
        #expect(obs.quantity("exercise-intensity")?.value == .number(DecimalNumber(50)))
        #expect(obs.quantity("exercise-intensity")?.unit == .percent)
        #expect(obs.quantity("medication")?.value == .number(DecimalNumber(10)))          // 10e-6 kg × 10⁶ = 10 mg
        #expect(obs.quantity("medication")?.unit == .milligrams)
        #expect(obs.quantity("hba1c")?.value == .number(DecimalNumber(mantissa: 65, exponent: -1)))
        #expect(obs.quantity("hba1c")?.metric.mdc == 160_220)                             // MDC_CONC_HBA1C 2::29148
        #expect(obs.details == [ObservationDetail("extended-flags", "0x00"), ObservationDetail("carbohydrate-id", "breakfast"),
                                ObservationDetail("meal", "preprandial"), ObservationDetail("tester", "self"),
                                ObservationDetail("health", "no health issues"), ObservationDetail("medication-id", "rapid acting insulin")])
        #expect(obs.flags.isEmpty)
        #expect(obs.summary == "50 g carbohydrate (breakfast), preprandial, tester self, health no health issues, "
                + "exercise 1800 s at 50 %, 10 mg rapid acting insulin, HbA1c 6.5 %, record 42")
    }

    @Test func medicationInLitres() throws {
        // flags 0x30: bit 4 medication present, bit 5 → the value is in litres.
        let bytes: [UInt8] = [0x30] + B.le16(9) + Self.medicationL
        let obs = try #require(try GlucoseMeasurementContext.decode(bytes, context: .none).first)
        #expect(obs.quantity("medication")?.value == .number(DecimalNumber(10)))          // 10e-3 L × 10³ = 10 mL
        #expect(obs.quantity("medication")?.unit == .millilitres)
        #expect(obs.detail("medication-id") == "long acting insulin")
        #expect(obs.summary == "10 mL long acting insulin, record 9")
    }

    @Test func enumerationsAndReservedValues() throws {
        // Carbohydrate ID 0 and 8 reserved; meal 6 reserved; tester 15 / health 15 not available; tester 4 reserved.
        var obs = try #require(try GlucoseMeasurementContext.decode([0x01] + B.le16(1) + [0x08, 0x32, 0xD0], context: .none).first)
        #expect(obs.detail("carbohydrate-id") == "reserved (0x08)")
        obs = try #require(try GlucoseMeasurementContext.decode([0x02] + B.le16(1) + [0x05], context: .none).first)
        #expect(obs.detail("meal") == "bedtime")
        obs = try #require(try GlucoseMeasurementContext.decode([0x02] + B.le16(1) + [0x06], context: .none).first)
        #expect(obs.detail("meal") == "reserved (0x06)")
        obs = try #require(try GlucoseMeasurementContext.decode([0x04] + B.le16(1) + [0xFF], context: .none).first)
        #expect(obs.detail("tester") == "not available")
        #expect(obs.detail("health") == "not available")
        obs = try #require(try GlucoseMeasurementContext.decode([0x04] + B.le16(1) + [0x34], context: .none).first)
        #expect(obs.detail("tester") == "reserved (0x04)")                   // low nibble 4
        #expect(obs.detail("health") == "during menses")                     // high nibble 3
        obs = try #require(try GlucoseMeasurementContext.decode([0x10] + B.le16(1) + [0x05, 0x0A, 0xA0], context: .none).first)
        #expect(obs.detail("medication-id") == "pre-mixed insulin")
    }

    @Test func exerciseOverrun() throws {
        // GSS: Exercise Duration 65535 (0xFFFF) = overrun.
        let obs = try #require(try GlucoseMeasurementContext.decode([0x08] + B.le16(1) + [0xFF, 0xFF, 100], context: .none).first)
        #expect(obs.flags == ["exercise-duration-overrun"])
        #expect(obs.summary == "exercise 65535 s at 100 %, record 1 — exercise duration overrun")
    }

    @Test func everyFlagCombination() throws {
        // All 256 flag values: every bit has a meaning (bit 5 only the medication unit).
        for flags in 0...255 {
            let f = UInt8(flags)
            var bytes: [UInt8] = [f] + B.le16(300)                                 // sequence 300 = 0x012C
            if f & 0x80 != 0 { bytes += [0x00] }
            if f & 0x01 != 0 { bytes += Self.carbohydrate }
            if f & 0x02 != 0 { bytes += Self.meal }
            if f & 0x04 != 0 { bytes += Self.testerHealth }
            if f & 0x08 != 0 { bytes += Self.exercise }
            if f & 0x10 != 0 { bytes += f & 0x20 != 0 ? Self.medicationL : Self.medicationKg }
            if f & 0x40 != 0 { bytes += Self.hba1c }
            let obs = try #require(try GlucoseMeasurementContext.decode(bytes, context: .none).first, "flags \(flags)")
            #expect(obs.record == 300)
            #expect((obs.quantity("carbohydrate") != nil) == (f & 0x01 != 0))
            #expect((obs.detail("meal") != nil) == (f & 0x02 != 0))
            #expect((obs.detail("tester") != nil) == (f & 0x04 != 0))
            #expect((obs.quantity("exercise-duration") != nil) == (f & 0x08 != 0))
            #expect((obs.quantity("medication") != nil) == (f & 0x10 != 0))
            if f & 0x10 != 0 { #expect(obs.quantity("medication")?.unit == (f & 0x20 != 0 ? .millilitres : .milligrams)) }
            #expect((obs.quantity("hba1c") != nil) == (f & 0x40 != 0))
            #expect((obs.detail("extended-flags") != nil) == (f & 0x80 != 0))
            let hasFields = f & 0x5F != 0                       // bits 0-4 and 6 carry fields a person reads
            #expect(obs.summary.hasPrefix("no context") == !hasFields)
            // Length rule: one byte short fails on the last field (or on the sequence number), one more trails.
            #expect(decodeError { try GlucoseMeasurementContext.decode(Array(bytes.dropLast()), context: .none) }.map {
                if case .tooShort = $0.problem { true } else { false }
            } == true)
            #expect(decodeError { try GlucoseMeasurementContext.decode(bytes + [0x00], context: .none) }
                    == expected(0x2A34, "end", bytes.count, .trailingBytes(count: 1)))
        }
    }

    @Test func tooShortAtEachField() {
        // flags 0xDF: extended flags @3, carbohydrate-id @4, carbohydrate @5, meal @7, tester-health @8,
        // exercise-duration @9, exercise-intensity @11, medication-id @12, medication @13, hba1c @15; 17 bytes.
        let full: [UInt8] = [0xDF] + B.le16(42) + [0x00] + Self.carbohydrate + Self.meal + Self.testerHealth + Self.exercise
            + Self.medicationKg + Self.hba1c
        let cases: [(String, Int, Int)] = [("flags", 0, 1), ("sequence-number", 1, 2), ("extended-flags", 3, 1),
                                          ("carbohydrate-id", 4, 1), ("carbohydrate", 5, 2), ("meal", 7, 1), ("tester-health", 8, 1),
                                          ("exercise-duration", 9, 2), ("exercise-intensity", 11, 1), ("medication-id", 12, 1),
                                          ("medication", 13, 2), ("hba1c", 15, 2)]
        for (field, offset, needed) in cases {
            #expect(decodeError { try GlucoseMeasurementContext.decode(Array(full.prefix(offset)), context: .none) }
                    == expected(0x2A34, field, offset, .tooShort(needed: needed, available: 0)))
        }
        #expect(full.count == 17)
    }
}

@Suite(.offCooperativePool) struct GlucoseRecordJoinTests {
    static let measurement: [UInt8] = [0x16] + B.le16(42) + B.dateTime(2026, 12, 6, 8, 12, 0) + [0x36, 0xC0, 0x11]  // + context follows
    static func context(record: UInt16) -> [UInt8] { [0x03] + B.le16(record) + [0x01, 0x32, 0xD0] + [0x01] }   // 50 g breakfast, preprandial

    @Test func matchingRecordsJoin() throws {
        let m = try #require(try GlucoseMeasurement.decode(Self.measurement, context: .none).first)
        let c = try #require(try GlucoseMeasurementContext.decode(Self.context(record: 42), context: .none).first)
        let joined = try #require(GlucoseRecordJoin.join(measurement: m, context: c))
        #expect(joined.characteristic == GlucoseMeasurement.characteristic)
        #expect(joined.quantities.map(\.metric.name) == ["glucose-concentration", "carbohydrate"])
        #expect(joined.details.map(\.name) == ["sample-type", "sample-location", "carbohydrate-id", "meal"])
        #expect(joined.record == 42)
        #expect(joined.deviceTime == m.deviceTime)
        #expect(joined.flags == ["context-follows"])
        #expect(joined.summary == "5.4 mmol/L capillary whole blood, record 42, device time 2026-12-06 08:12; "
                + "50 g carbohydrate (breakfast), preprandial — context follows")
    }

    @Test func mismatchedRecordsDoNotJoin() throws {
        let m = try #require(try GlucoseMeasurement.decode(Self.measurement, context: .none).first)
        let c = try #require(try GlucoseMeasurementContext.decode(Self.context(record: 43), context: .none).first)
        #expect(GlucoseRecordJoin.join(measurement: m, context: c) == nil)
        // Wrong way round: a context is not a measurement.
        let c42 = try #require(try GlucoseMeasurementContext.decode(Self.context(record: 42), context: .none).first)
        #expect(GlucoseRecordJoin.join(measurement: c42, context: m) == nil)
    }

    @Test func contextFlagsCarryOver() throws {
        let m = try #require(try GlucoseMeasurement.decode(Self.measurement, context: .none).first)
        let c = try #require(try GlucoseMeasurementContext.decode([0x08] + B.le16(42) + [0xFF, 0xFF, 10], context: .none).first)
        let joined = try #require(GlucoseRecordJoin.join(measurement: m, context: c))
        #expect(joined.flags == ["context-follows", "exercise-duration-overrun"])
        #expect(joined.summary.hasSuffix("; exercise 65535 s at 10 % — context follows, exercise duration overrun"))
    }
}

@Suite(.offCooperativePool) struct GlucoseFeatureTests {
    @Test func everyBit() throws {
        for bit in 0..<16 {
            let obs = try #require(try GlucoseFeature.decode(B.le16(UInt16(1) << UInt16(bit)), context: .none).first)
            // Bits 0-10 named (GLS v1.0), 11-15 reserved.
            #expect(obs.flags == [bit < 11 ? GlucoseFeature.featureNames[bit] : "feature-reserved-bit-\(bit)"])
        }
        // 0x0401: bit 0 low battery detection, bit 10 multiple bond.
        let obs = try #require(try GlucoseFeature.decode([0x01, 0x04], context: .none).first)
        #expect(obs.flags == ["low-battery-detection-supported", "multiple-bond-supported"])
        #expect(obs.detail("features") == "0x401")
        #expect(obs.summary == "glucose features: 2 supported — low battery detection supported, multiple bond supported")
        #expect(try GlucoseFeature.decode([0x00, 0x00], context: .none).first?.summary == "glucose features: none")
    }

    @Test func length() {
        #expect(decodeError { try GlucoseFeature.decode([0x01], context: .none) }
                == expected(0x2A51, "glucose-feature", 0, .tooShort(needed: 2, available: 1)))
        #expect(decodeError { try GlucoseFeature.decode([0x01, 0x00, 0x00], context: .none) }
                == expected(0x2A51, "end", 2, .trailingBytes(count: 1)))
    }
}
