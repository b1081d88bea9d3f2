import FleetCLI
import FleetControlServer
import FleetProtocol
import FleetTestKit
import Testing

@Suite struct DeviceReferenceTests {
    struct Device: ReferableDevice, Equatable {
        var id: String
        var displayName: String
        var address: String?
    }

    let fleet = [
        Device(id: "a1b2c3", displayName: "Kitchen Lamp", address: "AA:BB:CC:00:00:01"),
        Device(id: "a1b2ff", displayName: "Hall Lamp", address: "AA:BB:CC:00:00:02"),
        Device(id: "c0ffee", displayName: "Thermometer", address: nil),
        Device(id: "d00d", displayName: "a1b2", address: nil),
    ]

    @Test func matchesExactIdFirst() throws {
        #expect(try DeviceReference.resolve("c0ffee", in: fleet).id == "c0ffee")
    }

    @Test func matchesAddressIgnoringCaseAndSeparators() throws {
        #expect(try DeviceReference.resolve("aa-bb-cc-00-00-02", in: fleet).id == "a1b2ff")
    }

    @Test func displayNameBeatsIdPrefix() throws {
        // "a1b2" is a prefix of two ids but exactly one display name: the name wins.
        #expect(try DeviceReference.resolve("a1b2", in: fleet).id == "d00d")
        #expect(try DeviceReference.resolve("kitchen lamp", in: fleet).id == "a1b2c3")
    }

    @Test func uniquePrefixMatches() throws {
        #expect(try DeviceReference.resolve("a1b2c", in: fleet).id == "a1b2c3")
    }

    @Test func ambiguousPrefixListsCandidates() {
        #expect(throws: FleetControlError.ambiguousDevice(reference: "a1", candidates: ["a1b2c3", "a1b2ff"])) {
            try DeviceReference.resolve("a1", in: fleet)
        }
    }

    @Test(arguments: ["zz", "", "   ", "Lamp"])
    func unknownReferencesAreNotFound(_ reference: String) {
        #expect(throws: FleetControlError.deviceNotFound(reference: reference)) { try DeviceReference.resolve(reference, in: fleet) }
    }
}
