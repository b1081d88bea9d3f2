@testable import GATTProfiles

/// Builders for the byte vectors the Glucose tests assemble (every multi-octet GATT field is little-endian).
enum GlucoseBytes {
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le16(signed v: Int16) -> [UInt8] { le16(UInt16(bitPattern: v)) }
    static func le24(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF)] }

    /// An IEEE 11073 SFLOAT: 4-bit exponent over a 12-bit mantissa, both two's complement.
    static func sfloat(mantissa: Int, exponent: Int) -> [UInt8] {
        let m = UInt16(truncatingIfNeeded: mantissa) & 0x0FFF
        let e = UInt16(truncatingIfNeeded: exponent) & 0x000F
        return le16(e << 12 | m)
    }

    /// A Date Time (0x2A08): year uint16, month, day, hours, minutes, seconds.
    static func dateTime(_ y: UInt16, _ mo: UInt8, _ d: UInt8, _ h: UInt8, _ mi: UInt8, _ s: UInt8) -> [UInt8] {
        le16(y) + [mo, d, h, mi, s]
    }

    /// `bytes` followed by their CRC-16/MCRF4XX, least significant octet first.
    static func withCRC(_ bytes: [UInt8]) -> [UInt8] { bytes + le16(CRC16MCRF4XX.checksum(bytes)) }

    /// A CGM Feature value: features (24 bits), type-sample location, and the E2E-CRC when feature bit 12 is set
    /// (else the 0xFFFF filler).
    static func cgmFeature(_ features: UInt32, typeLocation: UInt8) -> [UInt8] {
        let body = le24(features) + [typeLocation]
        return features & (1 << 12) != 0 ? withCRC(body) : body + [0xFF, 0xFF]
    }

    /// A context with a CGM Feature that does (or does not) announce the E2E-CRC; type 9 ISF, location 5 subcutaneous.
    static func cgmContext(crc: Bool) -> DecodingContext {
        DecodingContext(features: [AssignedNumber(0x2AA8): cgmFeature(crc ? 1 << 12 : 0, typeLocation: 0x59)])
    }
}

/// The error a decode throws, or nil when it decodes. (Untyped `throws` here: inside `#expect` a closure's thrown
/// type is inferred as `any Error`; the decoders throw only `ProfileDecodeError`.)
func decodeError(_ body: () throws -> [Observation]) -> ProfileDecodeError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? ProfileDecodeError
    }
}

func expected(_ characteristic: UInt16, _ field: String, _ offset: Int, _ problem: ProfileDecodeError.Problem) -> ProfileDecodeError {
    ProfileDecodeError(characteristic: AssignedNumber(characteristic), field: field, offset: offset, problem: problem)
}
