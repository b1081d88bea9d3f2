import Testing
@testable import GATTProfiles

// Byte builders and error capture for the Fitness tests. Names carry a `fit` prefix: every group's tests end up in
// one test target.

/// Little-endian uint16.
func fitLE16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
/// Little-endian sint16.
func fitLE16(_ v: Int16) -> [UInt8] { fitLE16(UInt16(bitPattern: v)) }
/// Little-endian uint24.
func fitLE24(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF)] }
/// Little-endian uint32.
func fitLE32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
/// A GSS Date Time (7 bytes: year uint16, month, day, hours, minutes, seconds).
func fitDateTime(_ y: UInt16, _ mo: UInt8, _ d: UInt8, _ h: UInt8, _ mi: UInt8, _ s: UInt8) -> [UInt8] {
    fitLE16(y) + [mo, d, h, mi, s]
}

/// The error `decode` throws for `bytes`, or nil when it decodes.
func fitError(_ decode: CharacteristicDecoder.Decode, _ bytes: [UInt8], _ context: DecodingContext = .none) -> ProfileDecodeError? {
    do {
        _ = try decode(bytes, context)
        return nil
    } catch {
        return error
    }
}

/// The single observation `decode` gives for `bytes` (the test fails if it throws or gives another count).
func fitDecode(_ decode: CharacteristicDecoder.Decode, _ bytes: [UInt8], _ context: DecodingContext = .none,
               sourceLocation: SourceLocation = #_sourceLocation) -> Observation? {
    do {
        let observations = try decode(bytes, context)
        #expect(observations.count == 1, sourceLocation: sourceLocation)
        return observations.first
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// `mantissa × 10^exponent`, for expected values.
func fitDec(_ mantissa: Int64, _ exponent: Int = 0) -> DecimalNumber { DecimalNumber(mantissa: mantissa, exponent: exponent) }

/// Checks that dropping the last byte of a valid value fails at `field`/`offset` with the right shortfall, and that
/// one extra byte fails as trailing bytes at the end.
func fitExpectLengthRule(_ decode: CharacteristicDecoder.Decode, _ bytes: [UInt8], lastField field: String, fieldOffset: Int,
                         fieldSize: Int, _ context: DecodingContext = .none, sourceLocation: SourceLocation = #_sourceLocation) {
    let short = fitError(decode, Array(bytes.dropLast()), context)
    #expect(short?.field == field, sourceLocation: sourceLocation)
    #expect(short?.offset == fieldOffset, sourceLocation: sourceLocation)
    #expect(short?.problem == .tooShort(needed: fieldSize, available: fieldSize - 1), sourceLocation: sourceLocation)
    let long = fitError(decode, bytes + [0x00], context)
    #expect(long?.field == "end", sourceLocation: sourceLocation)
    #expect(long?.offset == bytes.count, sourceLocation: sourceLocation)
    #expect(long?.problem == .trailingBytes(count: 1), sourceLocation: sourceLocation)
}

/// One field of a value's wire layout: its error name, byte offset and size.
struct FitField: Sendable {
    var name: String
    var offset: Int
    var size: Int
    init(_ name: String, _ offset: Int, _ size: Int) {
        self.name = name
        self.offset = offset
        self.size = size
    }
}

/// The fields of a GSS Date Time starting at `start`, named `prefix.year` … `prefix.seconds`.
func fitDateTimeLayout(_ prefix: String, at start: Int) -> [FitField] {
    [FitField(prefix + ".year", start, 2), FitField(prefix + ".month", start + 2, 1), FitField(prefix + ".day", start + 3, 1),
     FitField(prefix + ".hours", start + 4, 1), FitField(prefix + ".minutes", start + 5, 1), FitField(prefix + ".seconds", start + 6, 1)]
}

/// Checks the whole length rule of a valid value against its layout: the layout tiles `bytes` exactly; every prefix
/// `bytes[0..<n]` (n < count) fails as too short at the field that n cuts, at that field's offset, needing its size
/// with `n − offset` available; and `bytes` plus one byte fails as trailing bytes at `end`, offset `count`.
func fitExpectTooShortAtEveryField(_ decode: CharacteristicDecoder.Decode, _ bytes: [UInt8], _ layout: [FitField],
                                   characteristic: AssignedNumber, _ context: DecodingContext = .none,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
    var next = 0
    for field in layout {
        #expect(field.offset == next, "layout gap before \(field.name)", sourceLocation: sourceLocation)
        next = field.offset + field.size
    }
    #expect(next == bytes.count, "layout covers \(next) of \(bytes.count) bytes", sourceLocation: sourceLocation)
    for n in 0..<bytes.count {
        guard let field = layout.first(where: { $0.offset <= n && n < $0.offset + $0.size }) else { continue }
        let expected = ProfileDecodeError(characteristic: characteristic, field: field.name, offset: field.offset,
                                          problem: .tooShort(needed: field.size, available: n - field.offset))
        #expect(fitError(decode, Array(bytes.prefix(n)), context) == expected, "prefix \(n)", sourceLocation: sourceLocation)
    }
    #expect(fitError(decode, bytes + [0x5A], context)
            == ProfileDecodeError(characteristic: characteristic, field: "end", offset: bytes.count, problem: .trailingBytes(count: 1)),
            sourceLocation: sourceLocation)
    #expect(fitError(decode, bytes + [0x00, 0xFF, 0x01], context)
            == ProfileDecodeError(characteristic: characteristic, field: "end", offset: bytes.count, problem: .trailingBytes(count: 3)),
            sourceLocation: sourceLocation)
}
