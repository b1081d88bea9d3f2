/// A number as an IEEE 11073-20601 medical float carries it (§F.8, "SFLOAT-Type" and "FLOAT-Type"): a finite
/// decimal, or one of the special values the standard keeps apart. They are never folded into one NaN: a meter
/// that says "not at this resolution" (NRes) told you something different from "not a number".
public enum MeasurementValue: Sendable, Hashable {
    case number(DecimalNumber)
    /// Not a Number (SFLOAT 0x07FF, FLOAT 0x007FFFFF).
    case notANumber
    /// Not at this Resolution (SFLOAT 0x0800, FLOAT 0x00800000).
    case notAtThisResolution
    /// +INFINITY (SFLOAT 0x07FE, FLOAT 0x007FFFFE).
    case positiveInfinity
    /// −INFINITY (SFLOAT 0x0802, FLOAT 0x00800002).
    case negativeInfinity
    /// Reserved for future use (SFLOAT 0x0801, FLOAT 0x00800001): kept with its raw bits.
    case reserved(raw: UInt32)

    /// The finite value, or nil for a special value.
    public var decimal: DecimalNumber? {
        if case .number(let d) = self { return d }
        return nil
    }

    /// The special value's name on the wire (`nan`, `nres`, `+inf`, `-inf`, `reserved`), nil for a number.
    public var specialName: String? {
        switch self {
        case .number: nil
        case .notANumber: "nan"
        case .notAtThisResolution: "nres"
        case .positiveInfinity: "+inf"
        case .negativeInfinity: "-inf"
        case .reserved: "reserved"
        }
    }

    /// For a person: the number, or the special value spelt out.
    public func text(places: Int? = nil) -> String {
        switch self {
        case .number(let d): places.map { d.text(places: $0) } ?? d.normalised.description
        case .notANumber: "NaN"
        case .notAtThisResolution: "NRes"
        case .positiveInfinity: "+INF"
        case .negativeInfinity: "-INF"
        case .reserved: "reserved"
        }
    }

    /// Decodes a 16-bit SFLOAT: a 4-bit signed exponent (high nibble) over a 12-bit signed mantissa.
    /// The specials are whole 16-bit patterns with exponent 0 (§F.8); every other pattern is a finite value.
    public static func sfloat(_ raw: UInt16) -> MeasurementValue {
        switch raw {
        case 0x07FF: return .notANumber
        case 0x0800: return .notAtThisResolution
        case 0x07FE: return .positiveInfinity
        case 0x0802: return .negativeInfinity
        case 0x0801: return .reserved(raw: UInt32(raw))
        default:
            var mantissa = Int64(raw & 0x0FFF)
            if mantissa >= 0x0800 { mantissa -= 0x1000 }
            var exponent = Int(raw >> 12)
            if exponent >= 0x8 { exponent -= 0x10 }
            return .number(DecimalNumber(mantissa: mantissa, exponent: exponent))
        }
    }

    /// Decodes a 32-bit FLOAT: an 8-bit signed exponent (high byte) over a 24-bit signed mantissa.
    public static func float(_ raw: UInt32) -> MeasurementValue {
        switch raw {
        case 0x007F_FFFF: return .notANumber
        case 0x0080_0000: return .notAtThisResolution
        case 0x007F_FFFE: return .positiveInfinity
        case 0x0080_0002: return .negativeInfinity
        case 0x0080_0001: return .reserved(raw: raw)
        default:
            var mantissa = Int64(raw & 0x00FF_FFFF)
            if mantissa >= 0x0080_0000 { mantissa -= 0x0100_0000 }
            let exponent = Int(Int8(bitPattern: UInt8(raw >> 24)))
            return .number(DecimalNumber(mantissa: mantissa, exponent: exponent))
        }
    }
}
