/// Conversions fleetd offers but never applies by itself: a reading is delivered in the unit the device sent, and a
/// consumer that wants another asks for it, with the rounding it chooses. Each is `y = (x + before) × numerator ÷
/// denominator + after`, computed exactly in integers and rounded half away from zero once, at the end, to `places`.
///
/// | from → to | factor | source |
/// | --- | --- | --- |
/// | mmHg ↔ kPa | 1 mmHg = 101.325/760 kPa = 0.133322368… kPa | the standard atmosphere, 760 mmHg = 101 325 Pa (BIPM SI brochure, ISO 80000-4) |
/// | glucose mg/dL ↔ mmol/L | 1 mmol/L = 18.0156 mg/dL | molar mass of glucose C₆H₁₂O₆, 180.156 g/mol (IUPAC atomic weights) |
/// | °C ↔ °F | °F = °C × 9/5 + 32 | definition |
/// | kg ↔ lb | 1 lb = 0.45359237 kg | the international pound (1959), exact |
///
/// Glucose's factor depends on the substance: it is offered for glucose concentration only.
public enum UnitConversion {
    /// `quantity` in `unit`, rounded to `places` decimal places; nil when fleetd knows no conversion between the
    /// two units (or the quantity has no number: NaN, NRes, ±INF stay what they are), or for glucose mg/dL ↔
    /// mmol/L asked of another metric.
    public static func convert(_ quantity: Quantity, to unit: MeasurementUnit, places: Int) -> Quantity? {
        guard case .number(let value) = quantity.value else { return nil }
        if quantity.unit.ucum == unit.ucum { return quantity }
        guard let rule = rule(from: quantity.unit.ucum, to: unit.ucum),
              !rule.glucoseOnly || quantity.metric.name == "glucose-concentration",
              let converted = apply(rule, to: value, places: places) else { return nil }
        return Quantity(quantity.metric, converted, unit)
    }

    struct Rule {
        var before: DecimalNumber = DecimalNumber(0)
        var numerator: Int64
        var denominator: Int64
        var after: DecimalNumber = DecimalNumber(0)
        var glucoseOnly = false
    }

    static func rule(from: String, to: String) -> Rule? {
        switch (from, to) {
        case ("mm[Hg]", "kPa"): Rule(numerator: 101_325, denominator: 760_000)
        case ("kPa", "mm[Hg]"): Rule(numerator: 760_000, denominator: 101_325)
        case ("mg/dL", "mmol/L"): Rule(numerator: 10_000, denominator: 180_156, glucoseOnly: true)
        case ("mmol/L", "mg/dL"): Rule(numerator: 180_156, denominator: 10_000, glucoseOnly: true)
        case ("Cel", "[degF]"): Rule(numerator: 9, denominator: 5, after: DecimalNumber(32))
        case ("[degF]", "Cel"): Rule(before: DecimalNumber(-32), numerator: 5, denominator: 9)
        case ("kg", "[lb_av]"): Rule(numerator: 100_000_000, denominator: 45_359_237)
        case ("[lb_av]", "kg"): Rule(numerator: 45_359_237, denominator: 100_000_000)
        default: nil
        }
    }

    /// Exact: the sum at a common exponent, the product and the quotient in 128-bit integers, one rounding.
    static func apply(_ rule: Rule, to value: DecimalNumber, places: Int) -> DecimalNumber? {
        guard (0...12).contains(places) else { return nil }
        let x = value.normalised, before = rule.before, after = rule.after
        let exponent = min(x.exponent, before.exponent, after.exponent, -places)
        guard exponent >= -30, let sum = scaled(x, to: exponent).flatMap({ a in scaled(before, to: exponent).map { a + $0 } }),
              let shifted = scaled(after, to: exponent) else { return nil }
        // y × 10^-exponent = sum × num / den + shifted; then to `places`: divide by 10^(-exponent - places).
        let numerator = sum * Int128(rule.numerator) + shifted * Int128(rule.denominator)
        var denominator = Int128(rule.denominator)
        for _ in 0..<(-exponent - places) { denominator *= 10 }
        let quotient = numerator / denominator, remainder = numerator % denominator
        let rounded = remainder.magnitude * 2 >= denominator.magnitude ? quotient + (numerator < 0 ? -1 : 1) : quotient
        guard let mantissa = Int64(exactly: rounded) else { return nil }
        return DecimalNumber(mantissa: mantissa, exponent: -places).normalised
    }

    private static func scaled(_ d: DecimalNumber, to exponent: Int) -> Int128? {
        var m = Int128(d.mantissa)
        for _ in 0..<(d.exponent - exponent) {
            let (next, overflow) = m.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            m = next
        }
        return m
    }
}
