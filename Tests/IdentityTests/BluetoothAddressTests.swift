import Foundation
import Testing
import Identity

@Suite struct BluetoothAddressTests {
    @Test func parsesBlueZTextAndPrintsItBack() throws {
        let a = try BluetoothAddress("aa:bb:cc:dd:ee:0f", type: .public)
        #expect(a.rawValue == 0xAABB_CCDD_EE0F)
        #expect(a.description == "AA:BB:CC:DD:EE:0F")
        #expect(a.bytes == [0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0x0F])
        #expect(try BluetoothAddress(a.description, type: .public) == a)
    }

    @Test func randomSubtypeComesFromTheTopTwoBits() throws {
        #expect(try BluetoothAddress("C0:00:00:00:00:01", type: .random).kind == .staticRandom)
        #expect(try BluetoothAddress("70:81:94:0D:FB:AA", type: .random).kind == .resolvablePrivate)
        #expect(try BluetoothAddress("3F:FF:FF:FF:FF:FF", type: .random).kind == .nonResolvablePrivate)
        #expect(try BluetoothAddress("80:00:00:00:00:00", type: .random).kind == .reservedRandom)
        // The same bits under a public type say nothing about randomness.
        #expect(try BluetoothAddress("70:81:94:0D:FB:AA", type: .public).kind == .public)
    }

    @Test func identityAddressesAreOnlyPublicAndStatic() throws {
        #expect(try BluetoothAddress("70:81:94:0D:FB:AA", type: .public).isIdentityAddress)
        #expect(try BluetoothAddress("C0:81:94:0D:FB:AA", type: .random).isIdentityAddress)
        #expect(!(try BluetoothAddress("70:81:94:0D:FB:AA", type: .random).isIdentityAddress))
        #expect(!(try BluetoothAddress("00:81:94:0D:FB:AA", type: .random).isIdentityAddress))
    }

    @Test func typeIsPartOfEquality() throws {
        #expect(try BluetoothAddress("C0:00:00:00:00:01", type: .random) != BluetoothAddress("C0:00:00:00:00:01", type: .public))
    }

    @Test func parsesDeviceObjectPathsAndTheirChildren() throws {
        let a = try BluetoothAddress(devicePath: "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF", type: .random)
        #expect(a.description == "AA:BB:CC:DD:EE:FF")
        #expect(a.type == .random)
        #expect(a.devicePath(adapter: "hci0") == "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF")
        let child = try BluetoothAddress(devicePath: "/org/bluez/hci1/dev_AA_BB_CC_DD_EE_FF/service0010/char0011", type: .public)
        #expect(child.rawValue == a.rawValue)
    }

    @Test(arguments: [
        "", "AA:BB:CC:DD:EE", "AA:BB:CC:DD:EE:FF:00", "AA-BB-CC-DD-EE-FF", "GG:BB:CC:DD:EE:FF",
        "AA:BB:CC:DD:EE:F", "AA:BB:CC:DD:EE:FFF", " AA:BB:CC:DD:EE:FF", "AABBCCDDEEFF", "ÄA:BB:CC:DD:EE:FF",
    ])
    func rejectsMalformedAddressText(_ text: String) {
        #expect(throws: IdentityError.self) { try BluetoothAddress(text, type: .public) }
        do {
            _ = try BluetoothAddress(text, type: .public)
        } catch {
            #expect(error.code == .invalidAddress)
            #expect(error.message.contains("'\(text)'"))
        }
    }

    @Test(arguments: [
        "", "/", "/org/bluez/hci0", "/org/bluez/hci0/dev_AA:BB:CC:DD:EE:FF", "/org/bluez//dev_AA_BB_CC_DD_EE_FF",
        "org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF", "/org/bluez/hci0/dev_AA_BB_CC_DD_EE", "/com/bluez/hci0/dev_AA_BB_CC_DD_EE_FF",
        "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF/", "/org/bluez/hci0/xdev_AA_BB_CC_DD_EE_FF",
    ])
    func rejectsPathsThatAreNotDevices(_ path: String) {
        #expect(throws: IdentityError(.invalidDevicePath, "'\(path)' is not a BlueZ device path like /org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF")) {
            try BluetoothAddress(devicePath: path, type: .public)
        }
    }

    @Test func addressTypeIsBlueZsStringOrATypedError() throws {
        #expect(try AddressType(bluez: "public") == .public)
        #expect(try AddressType(bluez: "random") == .random)
        for bad in ["", "Public", "static", "rpa"] {
            #expect(throws: IdentityError.self) { try AddressType(bluez: bad) }
        }
        #expect(throws: IdentityError(.unknownAddressType, "address type 'le' is neither 'public' nor 'random'")) {
            try BluetoothAddress(bluezAddress: "AA:BB:CC:DD:EE:FF", addressType: "le")
        }
    }

    @Test func codableRoundTripKeepsTheType() throws {
        let a = try BluetoothAddress("70:81:94:0D:FB:AA", type: .random)
        let data = try JSONEncoder().encode(a)
        #expect(String(decoding: data, as: UTF8.self).contains("70:81:94:0D:FB:AA"))
        #expect(try JSONDecoder().decode(BluetoothAddress.self, from: data) == a)
    }
}
