import Testing
import Identity

@Suite struct ServiceUUIDTests {
    @Test func shortAndFullFormsAreOneKey() throws {
        let canonical = "0000180d-0000-1000-8000-00805f9b34fb"
        for text in ["180d", "180D", "0x180D", "0000180d", canonical, canonical.uppercased(), "0000180d00001000800000805f9b34fb"] {
            let uuid = try ServiceUUID(text)
            #expect(uuid.description == canonical, "\(text)")
            #expect(uuid.shortValue == 0x180D)
            #expect(uuid.compactDescription == "180d")
        }
    }

    @Test func vendorUUIDsStayFull() throws {
        let uuid = try ServiceUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        #expect(uuid.description == "6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(uuid.shortValue == nil)
        #expect(uuid.compactDescription == "6e400001b5a3f393e0a9e50e24dcca9e")
    }

    @Test func thirtyTwoBitFormsExpandOverTheBase() throws {
        #expect(try ServiceUUID("12345678").description == "12345678-0000-1000-8000-00805f9b34fb")
        #expect(try ServiceUUID("12345678").shortValue == nil)
    }

    @Test(arguments: ["", "18", "180", "180d1", "xyz1", "0000180d-0000-1000-8000-00805f9b34f", "0000180d-00001000-8000-00805f9b34fb", "18:0d", "180d-"])
    func rejectsOtherText(_ text: String) {
        #expect(throws: IdentityError.self) { try ServiceUUID(text) }
    }
}
