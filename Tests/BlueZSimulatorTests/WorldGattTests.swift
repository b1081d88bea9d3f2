@testable import BlueZSimulator
import FleetPlatform
import Testing

@Suite struct WorldGattTests {
    static let measurement = Fixture.strapPath + "/service000a/char000b"
    static let location = Fixture.strapPath + "/service000a/char000e"
    /// The glucose record: service 0x0010, characteristic 0x0011 (after heart rate's 0x000a…0x000f).
    static let record = Fixture.strapPath + "/service0010/char0011"

    static func connected() throws -> SimulatorWorld {
        var (world, _) = try Fixture.discovering()
        _ = Fixture.connect(&world)
        return world
    }

    @Test func readReturnsTheValueAndCachesIt() throws {
        var world = try Self.connected()
        do {
            let value = try world.readValue(path: Self.location, options: [:], token: 5)
            #expect(value.isEmpty)
        }
        let effects = world.advance(to: world.now + .seconds(1))
        #expect(effects.reply(5) == .success([.bytes([0x01])]))
        #expect(effects.changes(Self.location, .gattCharacteristic).map(\.0) == ["Value"])
        #expect(world.counters.reads == 1)
    }

    @Test func longValueReadsWholeAndFromAnOffset() throws {
        var world = try Self.connected()
        _ = try world.readValue(path: Self.record, options: [:], token: 1)
        #expect(throws: BlueZError.inProgress, "a read at another offset while one runs is refused") {
            try world.readValue(path: Self.record, options: ["offset": .variant(.uint16(60))], token: 2)
        }
        var effects = world.advance(to: world.now + .seconds(1))
        #expect(effects.reply(1) == .success([.bytes((0..<64).map { UInt8($0) })]))
        _ = try world.readValue(path: Self.record, options: ["offset": .variant(.uint16(60))], token: 3)
        effects = world.advance(to: world.now + .seconds(1))
        #expect(effects.reply(3) == .success([.bytes([60, 61, 62, 63])]))
    }

    @Test func readErrorsMatchBlueZ() throws {
        var world = try Self.connected()
        #expect(throws: BlueZError.invalidArguments("Invalid offset")) {
            try world.readValue(path: Self.record, options: ["offset": .variant(.uint16(65))], token: 1)
        }
        #expect(throws: BlueZError.invalidArguments) { try world.readValue(path: Self.record, options: ["offset": .variant(.uint32(1))], token: 1) }
        #expect(throws: BlueZError.notPermitted("Read not permitted")) { try world.readValue(path: Self.measurement, options: [:], token: 1) }
        _ = try world.readValue(path: Self.record, options: [:], token: 2)
        #expect(throws: BlueZError.inProgress) { try world.readValue(path: Self.record, options: ["offset": .variant(.uint16(4))], token: 3) }
    }

    @Test func notificationsFlowUntilStopNotifyOrTheLinkDrops() throws {
        var world = try Self.connected()
        let start = try world.startNotify(path: Self.measurement, sender: ":1.9", token: 1)
        #expect(start.changes(Self.measurement, .gattCharacteristic).map(\.0) == ["Notifying"])
        #expect(start.reply(1) == .success([]))
        let effects = world.advance(to: world.now + .seconds(5.5))
        let values = effects.changes(Self.measurement, .gattCharacteristic).filter { $0.0 == "Value" }
        #expect(values.count == 5)
        #expect(world.counters.notificationsSent == 5)
        _ = world.dropLink(named: "strap")
        do {
            let value = world.advance(to: world.now + .seconds(10))
            #expect(value.changes(Self.measurement, .gattCharacteristic).isEmpty)
        }
    }

    @Test func notifyErrors() throws {
        var world = try Self.connected()
        #expect(throws: BlueZError.notSupported) { try world.startNotify(path: Self.location, sender: ":1.9", token: 1) }
        #expect(throws: BlueZError.failed("No notify session started")) { try world.stopNotify(path: Self.measurement, sender: ":1.9") }
        _ = try world.startNotify(path: Self.measurement, sender: ":1.9", token: 2)
        do {
            let value = try world.startNotify(path: Self.measurement, sender: ":1.9", token: 3)
            #expect(value.reply(3) == .success([]))
        }
        do {
            let value = try world.stopNotify(path: Self.measurement, sender: ":1.9")
            #expect(value.changes(Self.measurement, .gattCharacteristic).map(\.1) == [.boolean(false)])
        }
    }

    @Test func writesFollowTheTypeOption() throws {
        let profile = GattProfile(services: [GattProfile.controlPoint])
        var spec = Fixture.strapSpec()
        spec.profile = profile
        var (world, _) = try Fixture.discovering([spec])
        _ = Fixture.connect(&world)
        let racp = Fixture.strapPath + "/service000a/char000b"
        let command = Fixture.strapPath + "/service000a/char000e"
        do {
            let value = try world.writeValue(path: racp, value: [0x01, 0x01], options: ["type": .variant(.string("request"))], token: 1)
            #expect(value.isEmpty)
        }
        #expect(throws: BlueZError.inProgress) { try world.writeValue(path: racp, value: [0x01], options: [:], token: 2) }
        do {
            let value = world.advance(to: world.now + .seconds(1))
            #expect(value.reply(1) == .success([]))
        }
        #expect(throws: BlueZError.notPermitted("Write not permitted")) { try world.writeValue(path: command, value: [1], options: ["type": .variant(.string("request"))], token: 3) }
        do {
            let value = try world.writeValue(path: command, value: [1], options: ["type": .variant(.string("command"))], token: 4)
            #expect(value.reply(4) == .success([]))
        }
        #expect(throws: BlueZError.notSupported) { try world.writeValue(path: command, value: [1], options: ["type": .variant(.string("command")), "offset": .variant(.uint16(1))], token: 5) }
        #expect(throws: BlueZError.invalidArguments("Invalid offset")) { try world.writeValue(path: racp, value: [1], options: ["offset": .variant(.uint16(9))], token: 6) }
        #expect(world.counters.writes == 2)
    }

    @Test func gattCallsOnACachedObjectOfADisconnectedDeviceAreNotConnected() throws {
        var (world, _) = try Fixture.discovering(cache: .always)
        _ = Fixture.connect(&world)
        _ = world.dropLink(named: "strap")
        #expect(throws: BlueZError.failed("Not connected")) { try world.readValue(path: Self.location, options: [:], token: 1) }
        #expect(throws: BlueZError.failed("Not connected")) { try world.writeValue(path: Self.location, value: [1], options: [:], token: 1) }
    }

    @Test func responseDelaySlowsReplies() throws {
        var world = try Self.connected()
        do {
            let value = world.setResponseDelay(named: "strap", .seconds(3))
            #expect(value)
        }
        _ = try world.readValue(path: Self.location, options: [:], token: 1)
        do {
            let value = world.advance(to: world.now + .seconds(2.9))
            #expect(value.reply(1) == nil)
        }
        do {
            let value = world.advance(to: world.now + .seconds(0.2))
            #expect(value.reply(1) == .success([.bytes([1])]))
        }
    }
}
