/// The UTF-8 string characteristics of the Device Information Service (DIS v1.1 §3; GSS: each is a `utf8s`,
/// the whole value, no length or terminator). Many devices pad the value with NULs to a fixed size: trailing NULs are
/// stripped. A value that is not well-formed UTF-8 (Unicode 15 §3.9, table 3-7: no overlong forms, no surrogates,
/// nothing above U+10FFFF, no truncated sequence) is an error naming the offset of the first byte that breaks it.
enum DeviceInformationString {
    static func decode(_ bytes: [UInt8], _ characteristic: AssignedNumber, field: String, words: String) throws(ProfileDecodeError) -> [Observation] {
        var end = bytes.count
        while end > 0 && bytes[end - 1] == 0 { end -= 1 }
        let body = Array(bytes[..<end])
        if let bad = firstInvalidUTF8(body) {
            let reader = ByteReader(bytes, characteristic: characteristic)
            throw reader.error(field, .outOfRange(value: Int64(body[bad])), at: bad)
        }
        let text = String(decoding: body, as: UTF8.self)
        return [Observation(profile: .deviceInformation, characteristic: characteristic, details: [ObservationDetail(field, text)],
                            summary: "\(words): \(text)")]
    }

    /// The offset of the first byte that is not part of a well-formed UTF-8 sequence, or nil when all are.
    static func firstInvalidUTF8(_ b: [UInt8]) -> Int? {
        var i = 0
        while i < b.count {
            let lead = b[i]
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF   // the allowed range of the second byte
            switch lead {
            case 0x00...0x7F: i += 1; continue
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0            // no overlong 3-byte forms
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F           // no UTF-16 surrogates (U+D800-U+DFFF)
            case 0xF0: length = 4; low = 0x90            // no overlong 4-byte forms
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F           // nothing above U+10FFFF
            default: return i                            // 0x80-0xC1 (stray continuation, overlong 2-byte), 0xF5-0xFF
            }
            for k in 1..<length {
                guard i + k < b.count else { return i }  // truncated at the end: the sequence's lead byte is at fault
                let byte = b[i + k]
                let (lo, hi) = k == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
                if byte < lo || byte > hi { return i + k }
            }
            i += length
        }
        return nil
    }
}

/// Manufacturer Name String (0x2A29), DIS v1.1 §3.
public enum ManufacturerNameString {
    public static let characteristic = AssignedNumber(0x2A29)
    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        try DeviceInformationString.decode(bytes, characteristic, field: "manufacturer-name", words: "manufacturer")
    }
}

/// Model Number String (0x2A24), DIS v1.1 §3.
public enum ModelNumberString {
    public static let characteristic = AssignedNumber(0x2A24)
    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        try DeviceInformationString.decode(bytes, characteristic, field: "model-number", words: "model")
    }
}

/// Serial Number String (0x2A25), DIS v1.1 §3.
public enum SerialNumberString {
    public static let characteristic = AssignedNumber(0x2A25)
    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        try DeviceInformationString.decode(bytes, characteristic, field: "serial-number", words: "serial number")
    }
}

/// Hardware Revision String (0x2A27), DIS v1.1 §3.
public enum HardwareRevisionString {
    public static let characteristic = AssignedNumber(0x2A27)
    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        try DeviceInformationString.decode(bytes, characteristic, field: "hardware-revision", words: "hardware revision")
    }
}

/// Firmware Revision String (0x2A26), DIS v1.1 §3.
public enum FirmwareRevisionString {
    public static let characteristic = AssignedNumber(0x2A26)
    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        try DeviceInformationString.decode(bytes, characteristic, field: "firmware-revision", words: "firmware revision")
    }
}

/// Software Revision String (0x2A28), DIS v1.1 §3.
public enum SoftwareRevisionString {
    public static let characteristic = AssignedNumber(0x2A28)
    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        try DeviceInformationString.decode(bytes, characteristic, field: "software-revision", words: "software revision")
    }
}

/// System ID (0x2A23), DIS v1.1 §3 and GSS "System ID": 8 bytes, little-endian — Manufacturer Identifier (uint40)
/// then Organizationally Unique Identifier (uint24). `system-id` is the 64-bit value as 16 upper-case hex digits, the
/// OUI in the top 24 bits (`OUI << 40 | manufacturer identifier`, the IEEE EUI-64 order); `oui` is 6 hex digits and
/// `manufacturer-identifier` 10.
public enum SystemID {
    public static let characteristic = AssignedNumber(0x2A23)

    public static func decode(_ bytes: [UInt8], context: DecodingContext) throws(ProfileDecodeError) -> [Observation] {
        var reader = ByteReader(bytes, characteristic: characteristic)
        let identifier = try reader.bytes(5, "manufacturer-identifier")
        let oui = try reader.uint24("organizationally-unique-identifier")
        try reader.finish()
        // uint40, least significant octet first.
        let manufacturer = identifier.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let value = UInt64(oui) << 40 | manufacturer
        let systemID = FitnessText.fixedHex(value, width: 16)
        let ouiText = FitnessText.fixedHex(oui, width: 6)
        let details = [ObservationDetail("system-id", systemID), ObservationDetail("oui", ouiText),
                       ObservationDetail("manufacturer-identifier", FitnessText.fixedHex(manufacturer, width: 10))]
        return [Observation(profile: .deviceInformation, characteristic: characteristic, details: details,
                            summary: "system ID \(systemID) (OUI \(ouiText))")]
    }
}
