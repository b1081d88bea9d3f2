import TestScheduling
import Testing
@testable import GATTProfiles

@Suite(.offCooperativePool) struct CRC16MCRF4XXTests {
    @Test func checkValue() {
        // CRC catalogue, CRC-16/MCRF4XX: check = 0x6F91 over ASCII "123456789" (0x31 … 0x39).
        #expect(CRC16MCRF4XX.checksum(Array("123456789".utf8)) == 0x6F91)
        // The same bytes as a slice of a larger array: the function takes any collection, in order.
        let padded: [UInt8] = [0xAA] + Array("123456789".utf8) + [0xBB]
        #expect(CRC16MCRF4XX.checksum(padded[1..<10]) == 0x6F91)
    }

    @Test func emptyInputIsTheSeed() {
        // No bytes: nothing is folded in and xorout is 0, so the CRC is the init value 0xFFFF.
        #expect(CRC16MCRF4XX.checksum([UInt8]()) == 0xFFFF)
    }

    @Test func nordicToolboxVector() {
        // Cross-check with Nordic's nRF Toolbox CGMSParsingTest.testCRC: [0x3E, 0x01 … 0x09] → 12033 (0x2F01).
        #expect(CRC16MCRF4XX.checksum([0x3E, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09]) == 12033)
    }

    /// The textbook (non-reflected) CRC with refin/refout done by bit reversal, as the CRC catalogue defines the
    /// parameters: poly 0x1021, init 0xFFFF, refin, refout, xorout 0. An independent check of the reflected shortcut.
    static func reference(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            let reflected = UInt8(byte.bitReversed)
            crc ^= UInt16(reflected) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return crc.bitReversed
    }

    @Test func agreesWithTheTextbookForm() {
        // Deterministic pseudo-random inputs of every length 0…64 (a linear congruential generator).
        var state: UInt32 = 12345
        for length in 0...64 {
            var bytes: [UInt8] = []
            for _ in 0..<length {
                state = state &* 1_103_515_245 &+ 12345
                bytes.append(UInt8(truncatingIfNeeded: state >> 16))
            }
            #expect(CRC16MCRF4XX.checksum(bytes) == Self.reference(bytes), "length \(length)")
        }
    }

    @Test func detectsEverySingleBitError() {
        // A CRC with a degree-16 polynomial detects every single-bit error: flip each bit of a CGM record in turn.
        let record: [UInt8] = [0x08, 0x00, 0x78, 0x00, 0x1E, 0x00]
        let good = CRC16MCRF4XX.checksum(record)
        for i in 0..<record.count {
            for bit in 0..<8 {
                var bad = record
                bad[i] ^= 1 << bit
                #expect(CRC16MCRF4XX.checksum(bad) != good)
            }
        }
    }
}

private extension UInt8 {
    var bitReversed: UInt8 {
        var v = self, r: UInt8 = 0
        for _ in 0..<8 { r = r << 1 | v & 1; v >>= 1 }
        return r
    }
}

private extension UInt16 {
    var bitReversed: UInt16 {
        var v = self, r: UInt16 = 0
        for _ in 0..<16 { r = r << 1 | v & 1; v >>= 1 }
        return r
    }
}
