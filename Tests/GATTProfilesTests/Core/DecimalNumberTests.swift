import Foundation   // JSONEncoder/JSONDecoder in the test only: the library itself imports nothing.
import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct DecimalNumberTests {
    func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func fivePointFourStaysFivePointFour() throws {
        // 54 × 10⁻¹: as a binary float 5.4 is 5.4000000000000003552713678800500929355621337890625 (and as a Float
        // 5.400000095367431640625); as a decimal it is exactly 5.4.
        let d = DecimalNumber(mantissa: 54, exponent: -1)
        #expect(d.description == "5.4")
        #expect(d.text(places: 2) == "5.4")
        #expect(try json(d) == "5.4")
        #expect(try json([d]) == "[5.4]")
        // Inside a Quantity's wire form: "value":5.4.
        let q = Quantity(Metric(name: "glucose", display: "glucose"), d, .millimolesPerLitre)
        let text = try json(q)
        #expect(text.contains("\"value\":5.4,") || text.contains("\"value\":5.4}"), "\(text)")
        // And back: JSON 5.4 → 54 × 10⁻¹.
        let back = try JSONDecoder().decode(DecimalNumber.self, from: Data("5.4".utf8))
        #expect(coreIsValue(back, 54, -1))
        let quantity = try JSONDecoder().decode(Quantity.self, from: Data(text.utf8))
        #expect(quantity.value.decimal.map { coreIsValue($0, 54, -1) } == true)
    }

    @Test func jsonTextIsTheDecimalText() throws {
        // Decimals the decoders produce, each with the JSON text it must give (the shortest text of the nearest double
        // is the decimal's own text while the significant digits stay within a double's 15).
        let cases: [(DecimalNumber, String)] = [
            (DecimalNumber(mantissa: 7235, exponent: -2), "72.35"),            // 14470 × 0.005 kg
            (DecimalNumber(mantissa: -25, exponent: -2), "-0.25"),
            (DecimalNumber(mantissa: 12, exponent: 2), "1200"),
            (DecimalNumber(numerator: 850, powerOfTwo: 10), "0.830078125"),    // RR 850/1024 s
            (DecimalNumber(numerator: 65535, powerOfTwo: 8), "255.99609375"),  // RSC 0xFFFF/256 m/s
            (DecimalNumber(numerator: 65535, powerOfTwo: 11), "31.99951171875"), // CPS wheel time 0xFFFF/2048 s
            (DecimalNumber(mantissa: 0, exponent: -3), "0"),
            (DecimalNumber(mantissa: 3031, exponent: -2), "30.31"),
        ]
        for (d, expected) in cases {
            #expect(try json(d) == expected)
            let back = try JSONDecoder().decode(DecimalNumber.self, from: Data(expected.utf8))
            #expect(back == d)
        }
        // Every SFLOAT finite value with a negative or zero exponent (the ones meters send) survives JSON exactly.
        for raw in 0...0xFFFF {
            guard let d = MeasurementValue.sfloat(UInt16(raw)).decimal, d.exponent <= 0 else { continue }
            let text = try json(d)
            let back = try JSONDecoder().decode(DecimalNumber.self, from: Data(text.utf8))
            #expect(back == d, "0x\(String(raw, radix: 16)): \(d) → \(text)")
            if back != d { break }
        }
    }

    @Test func descriptionKeepsEveryDigit() {
        // description writes the representation (trailing zeros kept); normalised folds them.
        #expect(DecimalNumber(mantissa: 540, exponent: -2).description == "5.40")
        #expect(DecimalNumber(mantissa: 540, exponent: -2).normalised.description == "5.4")
        #expect(DecimalNumber(mantissa: 5, exponent: -3).description == "0.005")
        #expect(DecimalNumber(mantissa: -5, exponent: -3).description == "-0.005")
        #expect(DecimalNumber(mantissa: 5, exponent: 3).description == "5000")
        #expect(DecimalNumber(mantissa: 0, exponent: 3).description == "0")
        #expect(DecimalNumber(mantissa: 123, exponent: -3).description == "0.123")
    }

    @Test func parsingRoundTrips() throws {
        // Every (mantissa, exponent) in a grid: parse(description) gives the same value.
        for mantissa: Int64 in [0, 1, -1, 7, 54, -54, 999, 1000, -2048, 2047, 8_388_607, -8_388_608, 123_456_789] {
            for exponent in -12...8 {
                let d = DecimalNumber(mantissa: mantissa, exponent: exponent)
                let parsed = try #require(DecimalNumber(parsing: d.description), "\(d)")
                #expect(parsed == d && coreIsValue(parsed, mantissa, exponent), "\(mantissa)e\(exponent)")
            }
        }
        // Hand cases: text → mantissa × 10^exponent.
        let cases: [(String, Int64, Int)] = [("5.4", 54, -1), ("-12", -12, 0), ("1e-3", 1, -3), ("0.830078125", 830_078_125, -9),
                                             ("2.5E2", 25, 1), ("-0.25", -25, -2), ("007", 7, 0), (".5", 5, -1), ("5.", 5, 0)]
        for (text, m, e) in cases {
            let parsed = try #require(DecimalNumber(parsing: text), "\(text)")
            #expect(coreIsValue(parsed, m, e), "\(text)")
        }
        // Not numbers.
        for text in ["", "-", ".", "abc", "1.2.3", "1e", "1e+", "5,4", "1 2", "nan", "inf", "--1", "1234567890123456789"] {
            #expect(DecimalNumber(parsing: text) == nil, "\(text)")
        }
    }

    @Test func binaryFractionsAreExact() throws {
        // 850/1024 = 850 × 5¹⁰ / 10¹⁰ = 8 300 781 250 × 10⁻¹⁰ = 0.830078125.
        let rr = DecimalNumber(numerator: 850, powerOfTwo: 10)
        #expect(rr.mantissa == 8_300_781_250 && rr.exponent == -10)
        #expect(rr.normalised.description == "0.830078125")
        #expect(rr == DecimalNumber(mantissa: 830_078_125, exponent: -9))
        #expect(rr.text(places: 2) == "0.83")
        // 1/2 = 0.5, 1/4 = 0.25, …, 1/2²⁰ = 0.00000095367431640625; and n/2^k × 2^k = n exactly (checked with
        // 128-bit arithmetic: mantissa × 2^k = n × 10^(−exponent)).
        #expect(DecimalNumber(numerator: 1, powerOfTwo: 20).description == "0.00000095367431640625")
        for k in 0...20 {
            for n: Int64 in [0, 1, 3, 1023, 65535, -7] {
                let d = DecimalNumber(numerator: n, powerOfTwo: k)
                #expect(d.exponent == -k)
                var tenToK: Int128 = 1
                for _ in 0..<k { tenToK *= 10 }
                #expect(Int128(d.mantissa) << k == Int128(n) * tenToK, "\(n)/2^\(k)")
            }
        }
    }

    @Test func roundingHalfAwayFromZero() {
        // text(places:) rounds half away from zero on the first dropped digit, trailing zeros dropped.
        let cases: [(Int64, Int, Int, String)] = [
            (830_078_125, -9, 2, "0.83"),   // 0.830… → 0.83
            (125, -3, 2, "0.13"),           // 0.125 → 0.13 (half up)
            (-125, -3, 2, "-0.13"),         // −0.125 → −0.13 (away from zero)
            (124_999, -6, 2, "0.12"),       // 0.124999 → 0.12 (the first dropped digit decides)
            (995, -3, 2, "1"),              // 0.995 → 1.00 → 1
            (996, -2, 1, "10"),             // 9.96 → 10.0 → 10
            (25, -1, 0, "3"),               // 2.5 → 3
            (-25, -1, 0, "-3"),
            (12, 2, 2, "1200"),             // no places to drop
            (54, -1, 2, "5.4"),             // fewer places than asked: unchanged
            (5400, -3, 1, "5.4"),           // 5.400 → 5.4
            (4, -3, 2, "0"),                // 0.004 → 0.00 → 0
        ]
        for (m, e, places, expected) in cases {
            #expect(DecimalNumber(mantissa: m, exponent: e).text(places: places) == expected, "\(m)e\(e) to \(places)")
        }
    }

    @Test func equalityHashingAndOrder() {
        // 5.4 = 54 × 10⁻¹ = 540 × 10⁻² = 5400 × 10⁻³: equal and one element in a set.
        let a = DecimalNumber(mantissa: 54, exponent: -1), b = DecimalNumber(mantissa: 540, exponent: -2)
        #expect(a == b && Set([a, b, DecimalNumber(mantissa: 5400, exponent: -3)]).count == 1)
        #expect(DecimalNumber(mantissa: 0, exponent: 5) == DecimalNumber(0))
        #expect(a != DecimalNumber(mantissa: 55, exponent: -1))
        #expect(DecimalNumber(mantissa: 54, exponent: -1) < DecimalNumber(mantissa: 541, exponent: -2))
        #expect(DecimalNumber(mantissa: -1, exponent: 0) < DecimalNumber(mantissa: 1, exponent: -9))
        // scaled: 54 × 10⁻¹ × 18 = 97.2 (mmol/L to a mg/dL-type shift is a decimal factor).
        #expect(a.scaled(by: DecimalNumber(18)) == DecimalNumber(mantissa: 972, exponent: -1))
        #expect(a.scaled(by: DecimalNumber(mantissa: 1, exponent: 3)).description == "5400")
    }
}
