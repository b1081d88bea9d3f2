import FleetProtocol
import Testing

@Suite struct HexBytesTests {
    @Test func roundTripsAndAcceptsCommonSpellings() {
        #expect(HexBytes.encode([0x00, 0xAB, 0x7F]) == "00ab7f")
        #expect(HexBytes.decode("00AB7f") == [0x00, 0xAB, 0x7F])
        #expect(HexBytes.decode("0x01ff") == [0x01, 0xFF])
        #expect(HexBytes.decode("01:ff") == [0x01, 0xFF])
        #expect(HexBytes.decode("") == [])
    }

    @Test(arguments: ["1", "0g", "01:f", "zz", "0x1", "1:23"])
    func rejectsMalformedHex(_ text: String) {
        #expect(HexBytes.decode(text) == nil)
    }
}
