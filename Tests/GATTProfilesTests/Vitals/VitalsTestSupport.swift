import Testing
@testable import GATTProfiles

/// Byte builders for the Vitals tests: every vector is built from the spec's field encodings, so each expected value
/// can be derived beside it.
enum VitalsBytes {
    /// Little-endian uint16, as GATT sends it.
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le24(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF)] }
    static func le32(_ v: UInt32) -> [UInt8] { le24(v) + [UInt8(v >> 24)] }

    /// IEEE 11073-20601 SFLOAT: 4-bit two's-complement exponent over a 12-bit two's-complement mantissa.
    static func sfloat(_ mantissa: Int, _ exponent: Int = 0) -> [UInt8] {
        le16(UInt16((exponent & 0xF) << 12 | (mantissa & 0xFFF)))
    }

    /// IEEE 11073-20601 FLOAT: 8-bit exponent over a 24-bit mantissa.
    static func float(_ mantissa: Int, _ exponent: Int = 0) -> [UInt8] {
        le32(UInt32((exponent & 0xFF) << 24 | (mantissa & 0xFF_FFFF)))
    }

    /// GSS Date Time: year uint16, month, day, hours, minutes, seconds.
    static func dateTime(_ y: UInt16, _ mo: UInt8, _ d: UInt8, _ h: UInt8, _ mi: UInt8, _ s: UInt8) -> [UInt8] {
        le16(y) + [mo, d, h, mi, s]
    }

    /// 2026-12-06 08:12:00 (2026 = 0x07EA → EA 07).
    static let sampleTime = dateTime(2026, 12, 6, 8, 12, 0)
    static let sampleDeviceTime = DeviceTime(year: 2026, month: 12, day: 6, hours: 8, minutes: 12, seconds: 0)
    /// The Date Time sub-fields, relative to where the time stamp starts, as ByteReader names them.
    static func dateTimeLayout(_ name: String, at start: Int) -> [VitalsField] {
        [VitalsField(name + ".year", start, 2), VitalsField(name + ".month", start + 2, 1), VitalsField(name + ".day", start + 3, 1),
         VitalsField(name + ".hours", start + 4, 1), VitalsField(name + ".minutes", start + 5, 1), VitalsField(name + ".seconds", start + 6, 1)]
    }
}

/// One field of a value's layout: its name as the decoder reports it, its offset and its size.
struct VitalsField {
    var name: String
    var offset: Int
    var size: Int
    init(_ name: String, _ offset: Int, _ size: Int) {
        self.name = name
        self.offset = offset
        self.size = size
    }
}

/// The registry's decoder for `characteristic` (every Vitals test decodes through it, so the wiring is tested too).
func vitalsDecoder(_ characteristic: AssignedNumber) -> CharacteristicDecoder? {
    VitalsDecoders.all.first { $0.characteristic == characteristic }
}

/// The error decoding `bytes` throws, or nil when it decodes.
func vitalsError(_ characteristic: AssignedNumber, _ bytes: [UInt8], context: DecodingContext = .none) -> ProfileDecodeError? {
    guard let decoder = vitalsDecoder(characteristic) else { return nil }
    do {
        _ = try decoder.decode(bytes, context)
        return nil
    } catch {
        return error
    }
}

/// The single observation a value decodes to (failing the test when it throws or gives another count).
func vitalsDecodeOne(_ characteristic: AssignedNumber, _ bytes: [UInt8], context: DecodingContext = .none,
                     sourceLocation: SourceLocation = #_sourceLocation) -> Observation? {
    guard let decoder = vitalsDecoder(characteristic) else {
        Issue.record("no Vitals decoder for \(characteristic)", sourceLocation: sourceLocation)
        return nil
    }
    do {
        let list = try decoder.decode(bytes, context)
        #expect(list.count == 1, sourceLocation: sourceLocation)
        return list.first
    } catch {
        Issue.record("did not decode: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The length rule for one value whose `layout` lists every field in order: each shorter prefix fails at the first
/// field that does not fit (named, at its offset, with what it needed and what was left); one byte more is
/// `trailingBytes` at the end — or, where the last field repeats to fill the value (RR intervals), a truncated
/// repetition of it.
func vitalsExpectLengthRule(_ characteristic: AssignedNumber, _ bytes: [UInt8], _ layout: [VitalsField], repeatsLast: Bool = false,
                      context: DecodingContext = .none, sourceLocation: SourceLocation = #_sourceLocation) {
    let total = layout.last.map { $0.offset + $0.size } ?? 0
    #expect(total == bytes.count, "layout covers \(total) bytes, vector has \(bytes.count)", sourceLocation: sourceLocation)
    #expect(vitalsError(characteristic, bytes, context: context) == nil, sourceLocation: sourceLocation)
    for length in 0..<bytes.count {
        guard let field = layout.first(where: { $0.offset + $0.size > length }) else { continue }
        let expected = ProfileDecodeError(characteristic: characteristic, field: field.name, offset: field.offset,
                                          problem: .tooShort(needed: field.size, available: length - field.offset))
        #expect(vitalsError(characteristic, Array(bytes.prefix(length)), context: context) == expected, "prefix of \(length) bytes",
                sourceLocation: sourceLocation)
    }
    let expected: ProfileDecodeError
    if repeatsLast, let last = layout.last {
        expected = ProfileDecodeError(characteristic: characteristic, field: last.name, offset: bytes.count,
                                      problem: .tooShort(needed: last.size, available: 1))
    } else {
        expected = ProfileDecodeError(characteristic: characteristic, field: "end", offset: bytes.count, problem: .trailingBytes(count: 1))
    }
    #expect(vitalsError(characteristic, bytes + [0x00], context: context) == expected, sourceLocation: sourceLocation)
}
