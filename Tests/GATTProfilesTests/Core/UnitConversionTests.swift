import GATTProfiles
import TestScheduling
import Testing

/// The conversions fleetd offers (never applies): each expected value worked by hand from the factor in
/// UnitConversion's table, rounded half away from zero once.
@Suite(.offCooperativePool) struct UnitConversionTests {
    func convert(_ metric: Metric, _ text: String, _ from: MeasurementUnit, to: MeasurementUnit, places: Int) -> String? {
        guard let value = DecimalNumber(parsing: text),
              let converted = UnitConversion.convert(Quantity(metric, value, from), to: to, places: places),
              case .number(let number) = converted.value else { return nil }
        #expect(converted.unit == to && converted.metric == metric)
        return number.description
    }

    @Test func pressure() {
        // 120 mmHg × 101 325/760 000 kPa = 15.99868… kPa → 16.00 at 2 places.
        #expect(convert(.systolicPressure, "120", .millimetresOfMercury, to: .kilopascals, places: 2) == "16")
        // 16 kPa × 760 000/101 325 = 120.0099 mmHg → 120.
        #expect(convert(.systolicPressure, "16", .kilopascals, to: .millimetresOfMercury, places: 0) == "120")
        // 82 mmHg → 82 × 0.1333224 = 10.93243… kPa → 10.9 at 1 place.
        #expect(convert(.diastolicPressure, "82", .millimetresOfMercury, to: .kilopascals, places: 1) == "10.9")
    }

    @Test func glucose() {
        // 99 mg/dL ÷ 18.0156 = 5.49524… mmol/L → 5.5.
        #expect(convert(.glucoseCapillaryWholeBlood, "99", .milligramsPerDecilitre, to: .millimolesPerLitre, places: 1) == "5.5")
        // 5.4 mmol/L × 18.0156 = 97.28424 mg/dL → 97.
        #expect(convert(.glucoseCapillaryWholeBlood, "5.4", .millimolesPerLitre, to: .milligramsPerDecilitre, places: 0) == "97")
        // The factor is glucose's molar mass: not offered for another metric.
        #expect(convert(.heartRate, "99", .milligramsPerDecilitre, to: .millimolesPerLitre, places: 1) == nil)
    }

    @Test func temperatureAndWeight() {
        // 37 °C × 9/5 + 32 = 98.6 °F; back: (98.6 − 32) × 5/9 = 37.
        #expect(convert(.bodyTemperature, "37", .degreesCelsius, to: .degreesFahrenheit, places: 1) == "98.6")
        #expect(convert(.bodyTemperature, "98.6", .degreesFahrenheit, to: .degreesCelsius, places: 1) == "37")
        // −40 is the same on both scales: −40 × 9/5 + 32 = −40 (negative values round away from zero too).
        #expect(convert(.bodyTemperature, "-40", .degreesCelsius, to: .degreesFahrenheit, places: 0) == "-40")
        // −0.05 °C → 31.91 °F exactly; at 1 place 31.9.
        #expect(convert(.bodyTemperature, "-0.05", .degreesCelsius, to: .degreesFahrenheit, places: 1) == "31.9")
        // 70 kg ÷ 0.45359237 = 154.32358… lb → 154.32; 1 lb = 0.45359237 kg exactly, so at 8 places it is exact.
        #expect(convert(.bodyWeight, "70", .kilograms, to: .pounds, places: 2) == "154.32")
        #expect(convert(.bodyWeight, "1", .pounds, to: .kilograms, places: 8) == "0.45359237")
    }

    @Test func whatIsNotConverted() {
        // A special value has no number to convert; units fleetd knows no rule for give nil; same unit is itself.
        #expect(UnitConversion.convert(Quantity(.systolicPressure, .notAtThisResolution, .millimetresOfMercury), to: .kilopascals, places: 1) == nil)
        #expect(convert(.systolicPressure, "120", .millimetresOfMercury, to: .milligramsPerDecilitre, places: 1) == nil)
        #expect(convert(.systolicPressure, "120", .millimetresOfMercury, to: .millimetresOfMercury, places: 0) == "120")
    }
}
