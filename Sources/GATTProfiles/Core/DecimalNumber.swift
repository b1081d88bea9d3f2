/// An exact decimal: `mantissa × 10^exponent`. IEEE 11073-20601 SFLOAT and FLOAT are decimal by construction
/// (a base-10 exponent), so a meter's 5.4 is kept as 54 × 10⁻¹ and written as `5.4`, never as a binary float's
/// 5.400000095. Resolutions that are binary fractions (RR intervals in 1/1024 s) are exact decimals too.
public struct DecimalNumber: Sendable, Hashable, Codable, CustomStringConvertible, Comparable {
    public var mantissa: Int64
    public var exponent: Int

    public init(mantissa: Int64, exponent: Int = 0) {
        self.mantissa = mantissa
        self.exponent = exponent
    }

    public init(_ integer: Int) { self.init(mantissa: Int64(integer), exponent: 0) }

    /// `numerator / 2^power` as an exact decimal: 1/2^k = 5^k / 10^k.
    public init(numerator: Int64, powerOfTwo k: Int) {
        precondition(k >= 0 && k <= 20, "binary fraction out of range")
        var five: Int64 = 1
        for _ in 0..<k { five *= 5 }
        self.init(mantissa: numerator * five, exponent: -k)
    }

    /// The same value with trailing zeros of the mantissa folded into the exponent (54 × 10⁻¹ stays; 540 × 10⁻² → 54 × 10⁻¹).
    public var normalised: DecimalNumber {
        if mantissa == 0 { return DecimalNumber(mantissa: 0, exponent: 0) }
        var m = mantissa, e = exponent
        while m % 10 == 0 { m /= 10; e += 1 }
        return DecimalNumber(mantissa: m, exponent: e)
    }

    /// The nearest binary double (correctly rounded, through the decimal text).
    public var doubleValue: Double { Double(scientificText) ?? Double.nan }

    private var scientificText: String { "\(mantissa)e\(exponent)" }

    /// Plain decimal text, every digit kept: `5.4`, `-0.25`, `1200`, `0.830078125`.
    public var description: String {
        let negative = mantissa < 0
        let digits = String(mantissa.magnitude)
        var text: String
        if exponent >= 0 {
            text = mantissa == 0 ? "0" : digits + String(repeating: "0", count: exponent)
        } else {
            let places = -exponent
            if digits.count > places {
                let split = digits.index(digits.endIndex, offsetBy: -places)
                text = String(digits[..<split]) + "." + String(digits[split...])
            } else {
                text = "0." + String(repeating: "0", count: places - digits.count) + digits
            }
            if mantissa == 0 { text = "0" }
        }
        return negative ? "-" + text : text
    }

    /// Text rounded half away from zero to `places` decimal places, trailing zeros dropped (`0.830078125` → `0.83`).
    public func text(places: Int) -> String {
        guard exponent < -places else { return normalised.description }
        var m = mantissa.magnitude
        var drop = -exponent - places
        var remainderHalfUp = false
        while drop > 0 {
            remainderHalfUp = m % 10 >= 5
            m /= 10
            drop -= 1
            if drop > 0 { remainderHalfUp = false }
        }
        // Round on the last digit dropped only: a decimal's digits below it cannot carry.
        if remainderHalfUp { m += 1 }
        let rounded = DecimalNumber(mantissa: mantissa < 0 ? -Int64(m) : Int64(m), exponent: -places)
        return rounded.normalised.description
    }

    /// This value scaled by a decimal factor, exactly.
    public func scaled(by factor: DecimalNumber) -> DecimalNumber {
        DecimalNumber(mantissa: mantissa * factor.mantissa, exponent: exponent + factor.exponent)
    }

    public static func == (a: DecimalNumber, b: DecimalNumber) -> Bool {
        let x = a.normalised, y = b.normalised
        return x.mantissa == y.mantissa && x.exponent == y.exponent
    }

    public func hash(into hasher: inout Hasher) {
        let n = normalised
        hasher.combine(n.mantissa)
        hasher.combine(n.exponent)
    }

    public static func < (a: DecimalNumber, b: DecimalNumber) -> Bool { a.doubleValue < b.doubleValue }

    // Encoded as the JSON number itself: a Double whose shortest text is the decimal's text (mantissas here are at
    // most 24 bits, well inside a double's 15 exact digits).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(Double.self)
        guard let parsed = DecimalNumber(parsing: "\(value)") else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a finite decimal: \(value)")
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(doubleValue)
    }

    /// Parses `5.4`, `-12`, `1e-3`, `0.830078125`.
    public init?(parsing text: String) {
        var body = Substring(text)
        var exponent = 0
        if let e = body.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let x = Int(body[body.index(after: e)...]) else { return nil }
            exponent = x
            body = body[..<e]
        }
        var negative = false
        if body.first == "-" { negative = true; body = body.dropFirst() }
        var digits = ""
        var seenPoint = false
        for c in body {
            if c == "." {
                if seenPoint { return nil }
                seenPoint = true
            } else if c.isASCII, c.isNumber {
                digits.append(c)
                if seenPoint { exponent -= 1 }
            } else {
                return nil
            }
        }
        guard !digits.isEmpty, digits.count <= 18, let m = Int64(digits) else { return nil }
        self.init(mantissa: negative ? -m : m, exponent: exponent)
    }
}
