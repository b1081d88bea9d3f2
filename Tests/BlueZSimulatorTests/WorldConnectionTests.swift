@testable import BlueZSimulator
import FleetPlatform
import Testing

@Suite struct WorldConnectionTests {
    @Test func connectSignalsConnectedThenRepliesThenResolvesServices() throws {
        var (world, _) = try Fixture.discovering()
        let effects = Fixture.connect(&world)
        #expect(effects.trace(Fixture.strapPath) == ["Connected=true", "reply1", "gatt+", "ServicesResolved=true"],
                "as bluetoothd 5.66 signals it on a real controller: device_add_connection first")
        #expect(!effects.contains { if case .setQuietly = $0 { true } else { false } })
        #expect(effects.addedPaths.contains(Fixture.strapPath + "/service000a/char000b/desc000d"))
        #expect(world.counters.connectsAttempted == 1 && world.counters.linksUp == 1)
    }

    @Test func quietOrderRepliesThenResolvesServicesWithNoConnectedSignal() throws {
        var (world, _) = try Fixture.discovering(linkUpOrder: .quiet)
        let effects = Fixture.connect(&world)
        #expect(effects.trace(Fixture.strapPath) == ["reply1", "gatt+", "ServicesResolved=true"], "as bluetoothd 5.66 signals it under btvirt")
        #expect(effects.contains(.setQuietly(path: Fixture.strapPath, interface: .device, changed: ["Connected": .boolean(true)])),
                "Connected reads true without a signal")
        #expect(effects.addedPaths.contains(Fixture.strapPath + "/service000a/char000b/desc000d"))
        #expect(world.counters.connectsAttempted == 1 && world.counters.linksUp == 1)
    }

    @Test func connectWhenConnectedSucceedsAndWhileConnectingFails() throws {
        var (world, _) = try Fixture.discovering()
        do {
            let value = world.connect(path: Fixture.strapPath, token: 1)
            #expect(value.isEmpty)
        }
        do {
            let value = world.connect(path: Fixture.strapPath, token: 2)
            #expect(value.reply(2) == .failure(.failed("Operation already in progress")))
        }
        _ = world.advance(to: world.now + .seconds(1))
        do {
            let value = world.connect(path: Fixture.strapPath, token: 3)
            #expect(value.reply(3) == .success([]))
        }
    }

    @Test func linkDropRemovesGattThenClearsResolvedAndConnectedTogether() throws {
        var (world, _) = try Fixture.discovering()
        _ = Fixture.connect(&world)
        let found = world.dropLink(named: "strap")
        let effects = try #require(found)
        #expect(effects.trace(Fixture.strapPath) == ["gatt-", "Connected=false,ServicesResolved=false"], "one signal, as 5.66 sends it")
        #expect(world.counters.linksLost == 1)
    }

    @Test func cachedGattObjectsSurviveTheLinkWithCacheAlways() throws {
        var (world, _) = try Fixture.discovering(cache: .always)
        _ = Fixture.connect(&world)
        let found = world.dropLink(named: "strap")
        let effects = try #require(found)
        #expect(effects.removedPaths.isEmpty)
        do {
            let value = Fixture.connect(&world, token: 2)
            #expect(value.addedPaths.isEmpty)
        }
    }

    @Test func disconnectAnswersBeforeConnectedFalse() throws {
        var (world, _) = try Fixture.discovering()
        _ = Fixture.connect(&world)
        var effects = world.disconnect(path: Fixture.strapPath, token: 7)
        effects += world.advance(to: world.now + .seconds(1))
        #expect(effects.trace(Fixture.strapPath) == ["gatt-", "ServicesResolved=false", "reply7", "Connected=false"])
        #expect(world.counters.disconnects == 1 && world.counters.linksLost == 0)
    }

    @Test func poolLimitFailsTheConnectBeyondCapacity() throws {
        let specs = (1...3).map { i in Fixture.strapSpec(label: "s\(i)", address: BluetoothAddress(bytes: [0xA0, 0, 0, 0, 0, UInt8(i)])!) }
        var (world, _) = try Fixture.discovering(specs, capacity: 2)
        let paths = specs.map { BlueZPath.devicePath(adapter: 0, address: $0.address) }
        do {
            let value = Fixture.connect(&world, paths[0], token: 1)
            #expect(value.reply(1) == .success([]))
        }
        do {
            let value = Fixture.connect(&world, paths[1], token: 2)
            #expect(value.reply(2) == .success([]))
        }
        let third = Fixture.connect(&world, paths[2], token: 3)
        #expect(third.reply(3) == .failure(.failed("le-connection-abort-by-local")))
        #expect(third.trace(paths[2]) == ["reply3:le-connection-abort-by-local"], "no Connected signal for a refused link")
        _ = world.dropLink(named: "s1")
        do {
            let value = Fixture.connect(&world, paths[2], token: 4)
            #expect(value.reply(4) == .success([]))
        }
    }

    @Test func neverCompleteIsCancelledByDisconnect() throws {
        var (world, _) = try Fixture.discovering()
        do {
            let value = world.setConnectBehaviour(named: "strap", .neverComplete)
            #expect(value)
        }
        do {
            let value = world.connect(path: Fixture.strapPath, token: 1)
            #expect(value.isEmpty)
        }
        do {
            let value = world.advance(to: world.now + .seconds(600))
            #expect(value.reply(1) == nil)
        }
        let effects = world.disconnect(path: Fixture.strapPath, token: 2)
        #expect(effects.reply(1) == .failure(.failed("br-connection-canceled")))
        #expect(effects.reply(2) == .success([]))
    }

    @Test(arguments: [
        (ConnectBehaviour.inProgress, BlueZError.inProgress),
        (ConnectBehaviour.fail(BlueZError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-remote")),
         BlueZError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-remote")),
    ])
    func injectedConnectFailures(behaviour: ConnectBehaviour, expected: BlueZError) throws {
        var (world, _) = try Fixture.discovering()
        _ = world.setConnectBehaviour(named: "strap", behaviour)
        let effects = Fixture.connect(&world)
        #expect(effects.reply(1) == .failure(expected))
        #expect(effects.changes(Fixture.strapPath, .device).isEmpty)
    }

    @Test func nonConnectableDeviceTimesOutAfterTheKernelTimeout() throws {
        var spec = Fixture.strapSpec()
        spec.connectable = false
        var (world, _) = try Fixture.discovering([spec])
        _ = world.connect(path: Fixture.strapPath, token: 1)
        do {
            let value = world.advance(to: world.now + .seconds(19))
            #expect(value.reply(1) == nil)
        }
        do {
            let value = world.advance(to: world.now + .seconds(2))
            #expect(value.reply(1) == .failure(.failed("le-connection-abort-by-local")))
        }
    }

    @Test func powerOffDropsLinksAndConnectThenFails() throws {
        var (world, _) = try Fixture.discovering()
        _ = Fixture.connect(&world)
        let effects = world.setPowered(adapter: 0, false)
        #expect(effects.changes(Fixture.strapPath, .device).map(\.0) == ["Connected", "ServicesResolved", "RSSI", "TxPower"],
                "links drop first, then discovery ends and invalidates RSSI/TxPower")
        do {
            let value = world.connect(path: Fixture.strapPath, token: 2)
            #expect(value.reply(2) == .failure(.failed("Input/output error")))
        }
    }

    @Test func aConnectedPublicDeviceIsNoLongerTemporary() throws {
        var (world, _) = try Fixture.discovering()
        _ = Fixture.connect(&world)
        _ = try world.stopDiscovery(adapter: 0, sender: ":1.9")
        _ = world.dropLink(named: "strap")
        do {
            let value = world.advance(to: world.now + .seconds(120))
            #expect(value.removedPaths.isEmpty)
        }
    }

    @Test func aConnectedPrivateDeviceStaysTemporaryAndExpiresAfterTheLink() throws {
        var spec = Fixture.strapSpec(address: BluetoothAddress("5A:3C:00:00:00:20")!)
        spec.addressType = .random
        var (world, _) = try Fixture.discovering([spec])
        let path = BlueZPath.devicePath(adapter: 0, address: spec.address)
        _ = Fixture.connect(&world, path)
        _ = try world.stopDiscovery(adapter: 0, sender: ":1.9")
        do {
            let value = world.advance(to: world.now + .seconds(120))
            #expect(value.removedPaths.isEmpty, "never while connected")
        }
        _ = world.dropLink(named: "strap")
        do {
            let value = world.advance(to: world.now + .seconds(31))
            #expect(value.removedPaths == [path])
        }
    }

    @Test func removedPeripheralLosesItsObjectsAtOnce() throws {
        var (world, _) = try Fixture.discovering()
        _ = Fixture.connect(&world)
        let found = world.removePeripheral(named: "strap")
        let effects = try #require(found)
        #expect(effects.removedPaths.last == Fixture.strapPath)
        #expect(effects.changes(Fixture.strapPath, .device).map(\.0) == ["Connected", "ServicesResolved"])
        do {
            let value = world.connect(path: Fixture.strapPath, token: 9)
            #expect(value.reply(9) == .failure(.doesNotExist))
        }
    }
}
