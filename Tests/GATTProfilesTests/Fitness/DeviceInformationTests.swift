import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct DeviceInformationStringTests {
    /// The six `utf8s` characteristics of DIS v1.1 §3: decoder, assigned number, detail name, summary words.
    static let strings: [(decode: CharacteristicDecoder.Decode, characteristic: AssignedNumber, field: String, words: String)] = [
        (ManufacturerNameString.decode, AssignedNumber(0x2A29), "manufacturer-name", "manufacturer"),
        (ModelNumberString.decode, AssignedNumber(0x2A24), "model-number", "model"),
        (SerialNumberString.decode, AssignedNumber(0x2A25), "serial-number", "serial number"),
        (FirmwareRevisionString.decode, AssignedNumber(0x2A26), "firmware-revision", "firmware revision"),
        (HardwareRevisionString.decode, AssignedNumber(0x2A27), "hardware-revision", "hardware revision"),
        (SoftwareRevisionString.decode, AssignedNumber(0x2A28), "software-revision", "software revision"),
    ]

    @Test func plainASCII() throws {
        for s in Self.strings {
            // "Roche" = 52 6F 63 68 65: the whole value is the string (no length, no terminator).
            let o = try #require(fitDecode(s.decode, [0x52, 0x6F, 0x63, 0x68, 0x65]))
            #expect(o.profile == .deviceInformation && o.characteristic == s.characteristic)
            #expect(o.details == [ObservationDetail(s.field, "Roche")])
            #expect(o.quantities.isEmpty && o.flags.isEmpty)
            #expect(o.summary == "\(s.words): Roche")
        }
    }

    @Test func multiByteUTF8() throws {
        // "é" = C3 A9 (U+00E9, 2 bytes); "€" = E2 82 AC (U+20AC, 3 bytes); "😀" = F0 9F 98 80 (U+1F600, 4 bytes);
        // U+10FFFF = F4 8F BF BF, the highest code point; U+D7FF = ED 9F BF, just below the surrogates.
        let d = Self.strings[0].decode
        #expect(fitDecode(d, [0x43, 0x61, 0x66, 0xC3, 0xA9])?.detail("manufacturer-name") == "Caf\u{E9}")
        #expect(fitDecode(d, [0xE2, 0x82, 0xAC, 0x31])?.detail("manufacturer-name") == "\u{20AC}1")
        #expect(fitDecode(d, [0xF0, 0x9F, 0x98, 0x80])?.detail("manufacturer-name") == "\u{1F600}")
        #expect(fitDecode(d, [0xF4, 0x8F, 0xBF, 0xBF])?.detail("manufacturer-name") == "\u{10FFFF}")
        #expect(fitDecode(d, [0xED, 0x9F, 0xBF])?.detail("manufacturer-name") == "\u{D7FF}")
    }

    @Test func trailingNULsAreStripped() throws {
        // Devices pad to a fixed size: "AB" + 6 NULs → "AB"; a NUL inside the text is kept (U+0000 is well-formed).
        for s in Self.strings {
            #expect(fitDecode(s.decode, [0x41, 0x42, 0, 0, 0, 0, 0, 0])?.detail(s.field) == "AB")
            #expect(fitDecode(s.decode, [0x41, 0x00, 0x42, 0x00])?.detail(s.field) == "A\u{0}B")
            // All NULs, or an empty value: the empty string.
            #expect(fitDecode(s.decode, [0, 0, 0, 0])?.detail(s.field) == "")
            #expect(fitDecode(s.decode, [])?.detail(s.field) == "")
        }
        // A multi-byte character before the padding survives: "€" E2 82 AC + NUL.
        #expect(fitDecode(Self.strings[1].decode, [0xE2, 0x82, 0xAC, 0x00])?.summary == "model: \u{20AC}")
    }

    @Test func invalidUTF8NamesTheFirstBadByte() {
        // (bytes, offset of the first byte that breaks well-formedness, that byte) — Unicode §3.9 table 3-7.
        let cases: [([UInt8], Int, UInt8)] = [
            ([0x41, 0x80], 1, 0x80),               // stray continuation byte
            ([0x41, 0xC0, 0x80], 1, 0xC0),         // C0: overlong 2-byte lead, never valid
            ([0xC1, 0xBF], 0, 0xC1),               // C1 likewise
            ([0xF5, 0x80, 0x80, 0x80], 0, 0xF5),   // F5-FF: never valid (above U+10FFFF)
            ([0xFF], 0, 0xFF),
            ([0xE0, 0x80, 0x80], 1, 0x80),         // E0 needs A0-BF next: 80 would be an overlong 3-byte form
            ([0xED, 0xA0, 0x80], 1, 0xA0),         // ED A0 80 = U+D800, a surrogate
            ([0xF0, 0x8F, 0xBF, 0xBF], 1, 0x8F),   // F0 needs 90-BF next: overlong 4-byte form
            ([0xF4, 0x90, 0x80, 0x80], 1, 0x90),   // F4 90 = above U+10FFFF
            ([0xE2, 0x28, 0xA1], 1, 0x28),         // second byte not a continuation
            ([0xE2, 0x82, 0x41], 2, 0x41),         // third byte not a continuation
            ([0xF0, 0x9F, 0x98, 0x41], 3, 0x41),   // fourth byte not a continuation
            ([0x41, 0xE2, 0x82], 1, 0xE2),         // truncated at the end: the lead byte is at fault
            ([0x41, 0xE2, 0x82, 0x00, 0x00], 1, 0xE2), // same after the padding is stripped
            ([0xC3], 0, 0xC3),                     // lone lead byte
        ]
        for s in Self.strings {
            for (bytes, offset, byte) in cases {
                #expect(fitError(s.decode, bytes) == ProfileDecodeError(characteristic: s.characteristic, field: s.field, offset: offset,
                                                                        problem: .outOfRange(value: Int64(byte))), "\(bytes)")
            }
        }
    }

    /// Every 1- and 2-byte value, and 3-byte values over every lead byte E0-F4 and every second byte with a spread of
    /// third bytes, agree with the standard library's own UTF-8 validation (after stripping trailing NULs).
    @Test func agreesWithTheStandardLibrary() throws {
        let d = Self.strings[2].decode
        func check(_ bytes: [UInt8]) {
            var body = bytes
            while body.last == 0 { body.removeLast() }
            let reference = String(validating: body, as: UTF8.self)
            let result = fitError(d, bytes)
            if let reference {
                #expect(result == nil, "\(bytes)")
                if result == nil { #expect(fitDecode(d, bytes)?.detail("serial-number") == reference) }
            } else {
                #expect(result != nil, "\(bytes)")
                if let result { #expect(result.offset < body.count && result.field == "serial-number") }
            }
        }
        for a in 0...255 {
            check([UInt8(a)])
            for b in 0...255 { check([UInt8(a), UInt8(b)]) }
        }
        for a in 0xE0...0xF4 {
            for b in 0...255 {
                for c in [0x00, 0x41, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF] { check([UInt8(a), UInt8(b), UInt8(c)]) }
            }
        }
    }
}

@Suite(.offCooperativePool) struct SystemIDTests {
    let decode: CharacteristicDecoder.Decode = SystemID.decode
    static let characteristic = AssignedNumber(0x2A23)

    @Test func handVector() throws {
        // GSS "System ID": Manufacturer Identifier uint40 LE = 05 04 03 02 01 → 0x0102030405; OUI uint24 LE = 63 1B 00 →
        // 0x001B63. system-id = OUI << 40 | manufacturer = 0x001B630102030405.
        let bytes: [UInt8] = [0x05, 0x04, 0x03, 0x02, 0x01, 0x63, 0x1B, 0x00]
        let o = try #require(fitDecode(decode, bytes))
        #expect(o.profile == .deviceInformation && o.characteristic == Self.characteristic)
        #expect(o.details == [ObservationDetail("system-id", "001B630102030405"), ObservationDetail("oui", "001B63"),
                              ObservationDetail("manufacturer-identifier", "0102030405")])
        #expect(o.summary == "system ID 001B630102030405 (OUI 001B63)")
        fitExpectTooShortAtEveryField(decode, bytes, [FitField("manufacturer-identifier", 0, 5), FitField("organizationally-unique-identifier", 5, 3)],
                                      characteristic: Self.characteristic)
    }

    @Test func extremesAndByteOrder() throws {
        // All zero → 16 zeros; all 0xFF → 16 F's; each byte position lands in its own hex pair.
        #expect(fitDecode(decode, [UInt8](repeating: 0, count: 8))?.detail("system-id") == "0000000000000000")
        #expect(fitDecode(decode, [UInt8](repeating: 0xFF, count: 8))?.detail("system-id") == "FFFFFFFFFFFFFFFF")
        for i in 0..<8 {
            var bytes = [UInt8](repeating: 0, count: 8)
            bytes[i] = 0xA5
            // Byte i of the little-endian value is hex pair 7 − i of the text (most significant first).
            var pairs = [String](repeating: "00", count: 8)
            pairs[7 - i] = "A5"
            let o = try #require(fitDecode(decode, bytes))
            #expect(o.detail("system-id") == pairs.joined())
            #expect(o.detail("oui") == pairs[0..<3].joined())
            #expect(o.detail("manufacturer-identifier") == pairs[3..<8].joined())
        }
    }
}
