import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct MeasurementValueTests {
    /// IEEE 11073-20601 §F.8 SFLOAT specials: whole 16-bit patterns (exponent nibble 0).
    static let sfloatSpecials: [UInt16: MeasurementValue] = [
        0x07FF: .notANumber,             // mantissa +2047 (2^11 − 1)
        0x0800: .notAtThisResolution,    // mantissa −2048 (−2^11)
        0x07FE: .positiveInfinity,       // mantissa +2046 (2^11 − 2)
        0x0802: .negativeInfinity,       // mantissa −2046 (−(2^11 − 2))
        0x0801: .reserved(raw: 0x0801),  // mantissa −2047 (−(2^11 − 1)), reserved for future use
    ]

    /// Every one of the 65 536 SFLOAT bit patterns: the five specials decode to five distinct special values; every
    /// other pattern (including the special mantissas under a nonzero exponent, which MeasurementValue.sfloat treats
    /// as ordinary numbers: §F.8 defines the specials as whole patterns) is the finite value mantissa × 10^exponent,
    /// with the 12-bit two's-complement mantissa and the 4-bit two's-complement exponent worked out here.
    @Test func everySFLOATPattern() {
        var finite = 0
        for raw in 0...0xFFFF {
            let pattern = UInt16(raw)
            let value = MeasurementValue.sfloat(pattern)
            if let special = Self.sfloatSpecials[pattern] {
                #expect(value == special, "0x\(String(raw, radix: 16))")
                #expect(value.decimal == nil)
                continue
            }
            // Low 12 bits, two's complement: 0x000-0x7FF = 0…2047, 0x800-0xFFF = −2048…−1.
            let low12 = raw & 0x0FFF
            let mantissa = low12 < 0x800 ? low12 : low12 - 0x1000
            // High 4 bits, two's complement: 0-7 = 0…7, 8-15 = −8…−1.
            let high4 = raw >> 12
            let exponent = high4 < 8 ? high4 : high4 - 16
            guard let d = value.decimal else {
                Issue.record("0x\(String(raw, radix: 16)) is not finite: \(value)")
                continue
            }
            #expect(coreIsValue(d, Int64(mantissa), exponent), "0x\(String(raw, radix: 16)) → \(d)")
            finite += 1
        }
        // 65 536 patterns − 5 specials.
        #expect(finite == 65_531)
    }

    @Test func sfloatSpecialsAreDistinct() {
        let values = Self.sfloatSpecials.keys.map { MeasurementValue.sfloat($0) }
        #expect(Set(values).count == 5)
        #expect(Set(values.compactMap(\.specialName)) == ["nan", "nres", "+inf", "-inf", "reserved"])
        #expect(Set(values.map { $0.text() }) == ["NaN", "NRes", "+INF", "-INF", "reserved"])
    }

    @Test func sfloatHandVectors() {
        // 0xF036: exponent 0xF = −1, mantissa 0x036 = 54 → 5.4 (a glucose meter's 5.4 mmol/L).
        #expect(MeasurementValue.sfloat(0xF036).decimal.map { coreIsValue($0, 54, -1) } == true)
        #expect(MeasurementValue.sfloat(0xF036).text() == "5.4")
        // 0x17FF: exponent 1, mantissa 0x7FF = 2047 → 20470 (the NaN mantissa with a nonzero exponent is a number).
        #expect(MeasurementValue.sfloat(0x17FF).decimal.map { coreIsValue($0, 2047, 1) } == true)
        // 0xF800: exponent −1, mantissa 0x800 = −2048 → −204.8 (the NRes mantissa with exponent −1).
        #expect(MeasurementValue.sfloat(0xF800).decimal.map { coreIsValue($0, -2048, -1) } == true)
        // 0x8FFF: exponent −8, mantissa 0xFFF = −1 → −0.00000001.
        #expect(MeasurementValue.sfloat(0x8FFF).text() == "-0.00000001")
        // 0x77FD: exponent 7, mantissa 2045 → 20450000000.
        #expect(MeasurementValue.sfloat(0x77FD).text() == "20450000000")
        // 0x0000 and 0xF000: zero under any exponent.
        #expect(MeasurementValue.sfloat(0x0000).text() == "0" && MeasurementValue.sfloat(0xF000).text() == "0")
    }

    @Test func sfloatThroughByteReader() throws {
        // Little-endian on the wire: 36 F0 = 0xF036 = 5.4; FF 07 = 0x07FF = NaN; 00 08 = NRes.
        var reader = ByteReader([0x36, 0xF0, 0xFF, 0x07, 0x00, 0x08], characteristic: AssignedNumber(0x2A18))
        #expect(try reader.sfloat("a") == .number(DecimalNumber(mantissa: 54, exponent: -1)))
        #expect(try reader.sfloat("b") == .notANumber)
        #expect(try reader.sfloat("c") == .notAtThisResolution)
        #expect(reader.isAtEnd)
    }

    /// FLOAT specials (§F.8): whole 32-bit patterns with exponent byte 0.
    static let floatSpecials: [UInt32: MeasurementValue] = [
        0x007F_FFFF: .notANumber,              // mantissa +(2^23 − 1)
        0x0080_0000: .notAtThisResolution,     // mantissa −2^23
        0x007F_FFFE: .positiveInfinity,        // mantissa +(2^23 − 2)
        0x0080_0002: .negativeInfinity,        // mantissa −(2^23 − 2)
        0x0080_0001: .reserved(raw: 0x0080_0001),
    ]

    /// The expected FLOAT value worked out here: 24-bit two's-complement mantissa, 8-bit two's-complement exponent.
    static func expectedFloat(_ raw: UInt32) -> (mantissa: Int64, exponent: Int) {
        let low24 = Int64(raw & 0x00FF_FFFF)
        let mantissa = low24 < 0x80_0000 ? low24 : low24 - 0x100_0000
        let high8 = Int(raw >> 24)
        return (mantissa, high8 < 128 ? high8 : high8 - 256)
    }

    func checkFloat(_ raw: UInt32, sourceLocation: SourceLocation = #_sourceLocation) {
        let value = MeasurementValue.float(raw)
        if let special = Self.floatSpecials[raw] {
            #expect(value == special, sourceLocation: sourceLocation)
            return
        }
        let e = Self.expectedFloat(raw)
        guard let d = value.decimal else {
            Issue.record("0x\(String(raw, radix: 16)) not finite: \(value)", sourceLocation: sourceLocation)
            return
        }
        #expect(coreIsValue(d, e.mantissa, e.exponent), "0x\(String(raw, radix: 16)) → \(d.mantissa)e\(d.exponent)",
                sourceLocation: sourceLocation)
    }

    @Test func floatSpecialsAndEdges() {
        let values = Self.floatSpecials.keys.map { MeasurementValue.float($0) }
        #expect(Set(values).count == 5)
        for raw in Self.floatSpecials.keys { checkFloat(raw) }
        // Special mantissas under a nonzero exponent are numbers: 0x017FFFFF = 8388607 × 10¹; 0xFF800000 = −8388608 × 10⁻¹.
        #expect(MeasurementValue.float(0x017F_FFFF).decimal.map { coreIsValue($0, 8_388_607, 1) } == true)
        #expect(MeasurementValue.float(0xFF80_0000).decimal.map { coreIsValue($0, -8_388_608, -1) } == true)
        // Neighbours of the specials and the exponent extremes (−128 and +127).
        for raw: UInt32 in [0x0000_0000, 0x007F_FFFD, 0x0080_0003, 0x00FF_FFFF, 0x8000_0001, 0x7F00_0001, 0x80FF_FFFF, 0x7FFF_FFFF,
                            0xFFFF_FFFF, 0x8000_0000, 0x0100_0000] {
            checkFloat(raw)
        }
        // 0xFD00_0C35: exponent −3, mantissa 0x000C35 = 3125 → 3.125.
        #expect(MeasurementValue.float(0xFD00_0C35).text() == "3.125")
    }

    /// 100 000 FLOAT patterns from a seeded SplitMix64 (seed 0x11073), each against the value worked out here, plus
    /// the 5 × 256 patterns that put each special mantissa under every exponent.
    @Test func sampledFLOATPatterns() {
        var rng = CoreSplitMix64(seed: 0x11073)
        for _ in 0..<100_000 { checkFloat(UInt32(truncatingIfNeeded: rng.next())) }
        for mantissa: UInt32 in [0x7F_FFFF, 0x80_0000, 0x7F_FFFE, 0x80_0002, 0x80_0001] {
            for exponent: UInt32 in 0...255 { checkFloat(exponent << 24 | mantissa) }
        }
    }
}
