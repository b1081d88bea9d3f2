@testable import BlueZSimulator
import FleetPlatform
import Testing

@Suite struct WorldDiscoveryTests {
    @Test func devicesAppearOnlyWhileDiscovering() throws {
        var world = SimulatorWorld(configuration: WorldConfiguration())
        try world.addPeripheral(Fixture.strapSpec())
        do {
            let value = world.advance(to: .seconds(5))
            #expect(value.addedPaths.isEmpty)
        }
        _ = try world.startDiscovery(adapter: 0, sender: ":1.9")
        let effects = world.advance(to: .seconds(6))
        #expect(effects.addedPaths == [Fixture.strapPath])
        guard case .addObject(_, let interfaces)? = effects.first(where: { if case .addObject = $0 { true } else { false } }) else {
            Issue.record("no InterfacesAdded"); return
        }
        let props = interfaces[0].properties
        #expect(interfaces[0].interface == .device)
        #expect(props["ManufacturerData"]?.type.description == "a{qv}")
        #expect(props["ManufacturerData"]?.uint16Keyed?[0x006B]?.bytes == [0x0A, 0x01])
        #expect(props["RSSI"] == .int16(-60))
        #expect(props["TxPower"] == .int16(0))
        #expect(props["AddressType"] == .string("public"))
    }

    @Test func heardByPutsADeviceInRangeOfOneAdapterOnly() throws {
        var world = SimulatorWorld(configuration: WorldConfiguration(adapters: 2))
        try world.addPeripheral(Scenario.parseDeviceDefinition("tag address=D0:00:00:00:00:41 heard-by=hci1"))
        try world.addPeripheral(Scenario.parseDeviceDefinition("strap address=D0:00:00:00:00:42"))
        _ = try world.startDiscovery(adapter: 0, sender: ":1.9")
        _ = try world.startDiscovery(adapter: 1, sender: ":1.9")
        let effects = world.advance(to: .seconds(3))
        #expect(Set(effects.addedPaths) == ["/org/bluez/hci1/dev_D0_00_00_00_00_41", "/org/bluez/hci0/dev_D0_00_00_00_00_42",
                                            "/org/bluez/hci1/dev_D0_00_00_00_00_42"])
        #expect(throws: ScenarioError.self) { try Scenario.parseDeviceDefinition("tag address=D0:00:00:00:00:41 heard-by=1") }
    }

    @Test func uuidFilterHidesNonMatchingDevices() throws {
        var world = SimulatorWorld(configuration: WorldConfiguration())
        try world.addPeripheral(Fixture.strapSpec())
        try world.addPeripheral(PeripheralSpec(label: "scale", address: BluetoothAddress("D0:00:00:00:00:31")!, uuids: ["0000181d-0000-1000-8000-00805f9b34fb"]))
        let filter = try DiscoveryFilter.parse(["UUIDs": .variant(.strings(["181d"]))])
        world.setDiscoveryFilter(adapter: 0, sender: ":1.9", filter)
        _ = try world.startDiscovery(adapter: 0, sender: ":1.9")
        do {
            let value = world.advance(to: .seconds(2))
            #expect(value.addedPaths == ["/org/bluez/hci0/dev_D0_00_00_00_00_31"])
        }
    }

    @Test func rssiChangesBelowEightDbmAreSilentWithoutFilter() throws {
        var spec = Fixture.strapSpec()
        spec.rssiJitter = 3
        let (world0, _) = try Fixture.discovering([spec])
        var world = world0
        let effects = world.advance(to: .seconds(60))
        #expect(effects.changes(Fixture.strapPath, .device).filter { $0.0 == "RSSI" }.isEmpty)
    }

    @Test func duplicateDataReportsManufacturerDataOnEveryAdvert() throws {
        var world = SimulatorWorld(configuration: WorldConfiguration())
        try world.addPeripheral(Fixture.strapSpec())
        world.setDiscoveryFilter(adapter: 0, sender: ":1.9", try DiscoveryFilter.parse(["DuplicateData": .variant(.boolean(true))]))
        _ = try world.startDiscovery(adapter: 0, sender: ":1.9")
        _ = world.advance(to: .seconds(1))
        let effects = world.advance(to: .seconds(11))
        #expect(effects.changes(Fixture.strapPath, .device).filter { $0.0 == "ManufacturerData" }.count == 10)
    }

    /// A single-link peripheral falls silent while connected and advertises again once the link is gone;
    /// by default (and with the key's `yes`) a linked device goes on advertising.
    @Test(arguments: [nil, "yes", "no"] as [String?])
    func advertiseWhileLinkedDecidesWhetherALinkedDeviceIsHeard(_ key: String?) throws {
        var spec = Fixture.strapSpec()
        if let key { spec = try Scenario.parseDeviceDefinition("strap address=A0:9E:1A:00:00:01 manufacturer=0x006b:0a01 advertise-while-linked=\(key)") }
        var (world, _) = try Fixture.discovering([spec])
        world.setDiscoveryFilter(adapter: 0, sender: ":1.9", try DiscoveryFilter.parse(["DuplicateData": .variant(.boolean(true))]))
        _ = Fixture.connect(&world)
        let linked = world.advance(to: world.now + .seconds(10))
        let advertsWhileLinked = linked.changes(Fixture.strapPath, .device).filter { $0.0 == "ManufacturerData" }.count
        #expect(advertsWhileLinked == (key == "no" ? 0 : 10))
        #expect(world.dropLink(named: "strap") != nil)
        let unlinked = world.advance(to: world.now + .seconds(10))
        #expect(unlinked.changes(Fixture.strapPath, .device).filter { $0.0 == "ManufacturerData" }.count == 10)
    }

    /// Linked on hci0, a silent peripheral is no longer heard elsewhere: a Connect from hci1 finds nobody
    /// advertising and fails after the LE connection timeout, its object on hci2 goes after BlueZ's
    /// TemporaryTimeout (5.66 device_disappeared), and an address rotation while linked is not heard either.
    @Test func aSilentLinkedPeripheralIsGoneFromTheOtherAdaptersAndCannotBeLinkedTwice() throws {
        var world = SimulatorWorld(configuration: WorldConfiguration(adapters: 3, temporaryTimeout: .seconds(30)))
        try world.addPeripheral(Scenario.parseDeviceDefinition("strap address=A0:9E:1A:00:00:01 advertise-while-linked=no"))
        for adapter in 0..<3 { _ = try world.startDiscovery(adapter: adapter, sender: ":1.9") }
        let heard = world.advance(to: .seconds(2))
        let onHci1 = "/org/bluez/hci1/dev_A0_9E_1A_00_00_01", onHci2 = "/org/bluez/hci2/dev_A0_9E_1A_00_00_01"
        #expect(Set(heard.addedPaths) == [Fixture.strapPath, onHci1, onHci2])
        _ = Fixture.connect(&world)
        #expect(world.links(of: 0) == 1)

        var refused = world.connect(path: onHci1, token: 7)
        refused += world.advance(to: world.now + .seconds(21))
        #expect(refused.reply(7) == .failure(.failed(BlueZError.leConnectionAbortByLocal)), "\(refused)")
        #expect(world.links(of: 0) == 1, "a single-link peripheral that is linked is not linked twice")

        #expect(world.rotateAddress(of: "strap") != nil)
        let silent = world.advance(to: world.now + .seconds(30))
        #expect(silent.removedPaths == [onHci2], "only the object nobody tried to connect to expires")
        #expect(silent.addedPaths.isEmpty, "a rotation while linked is not heard: \(silent.addedPaths)")
    }

    @Test func startTwiceIsBusyAndStopWithoutStartFails() throws {
        var world = SimulatorWorld(configuration: WorldConfiguration())
        _ = try world.startDiscovery(adapter: 0, sender: ":1.9")
        #expect(throws: BlueZError.busy) { try world.startDiscovery(adapter: 0, sender: ":1.9") }
        #expect(throws: BlueZError.failed("No discovery started")) { try world.stopDiscovery(adapter: 0, sender: ":1.10") }
    }

    @Test func stopInvalidatesRssiAndTxPower() throws {
        var (world, _) = try Fixture.discovering()
        let effects = try world.stopDiscovery(adapter: 0, sender: ":1.9")
        #expect(effects.changes("/org/bluez/hci0", .adapter).map(\.0) == ["Discovering"])
        #expect(effects.changes(Fixture.strapPath, .device).map(\.0) == ["RSSI", "TxPower"])
        #expect(effects.changes(Fixture.strapPath, .device).allSatisfy { $0.1 == nil })
    }

    @Test func unseenTemporaryDeviceExpiresAfterTemporaryTimeout() throws {
        var (world, _) = try Fixture.discovering()
        _ = try world.stopDiscovery(adapter: 0, sender: ":1.9")
        do {
            let value = world.advance(to: .seconds(29.9))
            #expect(value.removedPaths.isEmpty)
        }
        do {
            let value = world.advance(to: .seconds(31.5))
            #expect(value.removedPaths == [Fixture.strapPath])
        }
    }

    @Test func advertsKeepADeviceAliveWhileDiscovering() throws {
        var (world, _) = try Fixture.discovering()
        do {
            let value = world.advance(to: .seconds(120))
            #expect(value.removedPaths.isEmpty)
        }
    }

    @Test func rotationCreatesANewObjectAndTheOldOneExpires() throws {
        var spec = Fixture.strapSpec()
        spec.addressType = .random
        spec.rotationInterval = .seconds(10)
        var (world, _) = try Fixture.discovering([spec])
        let effects = world.advance(to: .seconds(12))
        let added = effects.addedPaths
        #expect(added.count == 1)
        #expect(added.first != Fixture.strapPath)
        let found = world.currentAddress(of: "strap")
        let newAddress = try #require(found)
        #expect(newAddress.bytes[0] & 0xC0 == 0x40, "a resolvable private address")
        #expect(added.first == BlueZPath.devicePath(adapter: 0, address: newAddress))
        // The old address was last heard just before 10 s, so it goes at about 40 s; the new one stays.
        let later = world.advance(to: .seconds(41))
        #expect(later.removedPaths == [Fixture.strapPath])
    }

    @Test func powerOffEndsDiscoveryAndStartNeedsPower() throws {
        var (world, _) = try Fixture.discovering()
        let effects = world.setPowered(adapter: 0, false)
        #expect(effects.changes("/org/bluez/hci0", .adapter).map(\.0) == ["Discovering", "Powered"])
        #expect(throws: BlueZError.notReady) { try world.startDiscovery(adapter: 0, sender: ":1.9") }
    }

    @Test func removeDeviceRemovesTheObjectAndUnknownPathsDoNotExist() throws {
        var (world, _) = try Fixture.discovering()
        do {
            let value = try world.removeDevice(adapter: 0, path: Fixture.strapPath)
            #expect(value.removedPaths == [Fixture.strapPath])
        }
        #expect(throws: BlueZError.doesNotExist) { try world.removeDevice(adapter: 0, path: Fixture.strapPath) }
    }

    @Test func aVanishedClientsDiscoveryEnds() throws {
        var (world, _) = try Fixture.discovering()
        do {
            let value = world.clientVanished(":1.9")
            #expect(value.changes("/org/bluez/hci0", .adapter).map(\.0) == ["Discovering"])
        }
    }

    @Test func noAdvertReachesAnAdapterWhileItsConnectIsPending() throws {
        // The kernel disables the LE scan for an LE Create Connection; bluetoothd restarts discovery after it.
        var beacon = Fixture.strapSpec(label: "beacon")
        beacon.connectable = false
        var (world, _) = try Fixture.discovering([beacon])
        _ = world.connect(path: Fixture.strapPath, token: 1)
        let late = Fixture.strapSpec(label: "late", address: BluetoothAddress("A0:9E:1A:00:00:02")!)
        try world.addPeripheral(late)
        let latePath = "/org/bluez/hci0/dev_A0_9E_1A_00_00_02"
        do {
            let value = world.advance(to: world.now + .seconds(10))
            #expect(!value.addedPaths.contains(latePath), "no discovery while the connect is pending")
        }
        do {
            // The connect to the non-connectable device gives up at the LE connection timeout; scanning resumes.
            let value = world.advance(to: world.now + .seconds(12))
            #expect(value.reply(1) == .failure(.failed("le-connection-abort-by-local")))
            #expect(value.addedPaths.contains(latePath))
        }
    }
}
