@testable import Supervision
import Identity
import Policy
import Testing

/// What `fleetctl connect/disconnect/evict/forget/set-policy` and a configuration reload do to the machine.
@Suite struct StateMachineOperatorTests {
    let a = Peripheral(1), b = Peripheral(2)

    @Test func connectWantsANewDeviceAndConnectsItWhenSeen() throws {
        let extra = Peripheral(9)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter()
        #expect(driver.see(extra.object()).isEmpty, "not wanted yet")
        let outcome = driver.machine.operatorConnect(extra.id, now: driver.now)
        #expect(outcome.actions.persists == 1)
        #expect(driver.machine.devices[extra.id]?.isWanted == true)
        #expect(driver.machine.counts.wanted == 2)
        #expect(driver.see(extra.object()).connects.map(\.device) == [extra.id])
    }

    @Test func connectRetriesAGivenUpDeviceAtOnce() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter()
        let connect = try #require(driver.see(a.object()).connects.first)
        driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.NotSupported"))
        guard case .failed = driver.phase(a) else {
            Issue.record("expected failed")
            return
        }
        let outcome = driver.send { $0.operatorConnect(a.id, now: $1).actions }
        #expect(outcome.connects.map(\.device) == [a.id])
        #expect(outcome.events(.connectAttempt).first?.attempt == 1, "the operator's connect starts a fresh count")
        #expect(driver.machine.devices[a.id]?.reconnect.failures == 0)
    }

    @Test func connectOnAReadyDeviceDoesNothing() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter()
        try driver.bringUp(a)
        let outcome = driver.machine.operatorConnect(a.id, now: driver.now)
        #expect(outcome.actions.isEmpty)
        #expect(outcome.message.contains("already"))
        #expect(driver.phase(a) == .ready)
    }

    @Test func disconnectDropsTheLinkAndKeepsItDown() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted()], settings: FleetFixture.settings(capacity: 1)))
        driver.adapter()
        let path = try driver.bringUp(a)
        driver.see(b.object())
        let outcome = try driver.command { try $0.operatorDisconnect(a.id, now: $1) }.actions
        #expect(outcome.disconnects.map(\.path) == [path])
        #expect(outcome.persists == 1)
        #expect(outcome.connects.map(\.device) == [b.id], "the freed slot goes to the waiting device")
        #expect(driver.phase(a) == .idle)
        #expect(driver.machine.devices[a.id]?.isWanted == false)
        let down = driver.linkDown(a.object())
        #expect(down.scheduled.isEmpty, "no reconnect for a device the operator released")
        driver.advance(by: .seconds(600))
        #expect(driver.see(a.object()).connects.isEmpty)
        #expect(driver.machine.counts.wanted == 1)
    }

    @Test func forgetRemovesTheDeviceAndItsIdentity() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter()
        let connect = try #require(driver.see(a.object()).connects.first)
        driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        let retry = try #require(driver.timer(a.id, .retry))
        #expect(driver.machine.registry[a.id.rawValue] != nil)

        let outcome = try driver.command { try $0.operatorForget(a.id, now: $1) }.actions
        #expect(outcome.cancelled == [retry])
        #expect(outcome.persists == 1)
        #expect(driver.machine.devices[a.id] == nil)
        #expect(driver.machine.registry[a.id.rawValue] == nil)
        #expect(driver.machine.snapshot.devices.isEmpty)
        #expect(driver.send { $0.timerFired(retry, now: $1) }.isEmpty)
        #expect(driver.see(a.object()).isEmpty, "a forgotten device is a stranger again")
    }

    @Test func forgetDisconnectsALinkedDevice() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter()
        let path = try driver.bringUp(a)
        let outcome = try driver.command { try $0.operatorForget(a.id, now: $1) }.actions
        #expect(outcome.disconnects.map(\.path) == [path])
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.links.isEmpty == true)
    }

    @Test func setPolicyChangesWhoMayBeEvicted() throws {
        let c = Peripheral(3)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), c.wanted(.critical)], settings: FleetFixture.settings(capacity: 1)))
        driver.adapter()
        try driver.bringUp(a)
        let outcome = try driver.command { try $0.operatorSetPolicy(a.id, .critical, now: $1) }.actions
        #expect(outcome.persists == 1)
        #expect(driver.machine.devices[a.id]?.policyClass == .critical)
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.links[a.id.rawValue]?.policyClass == .critical)
        driver.clock.advance(by: .seconds(120))
        #expect(driver.see(c.object()).disconnects.isEmpty, "a critical link is not evicted for another critical device")

        // Demoted, it is evicted for the waiting critical device at once.
        let demoted = try driver.command { try $0.operatorSetPolicy(a.id, .opportunistic, now: $1) }.actions
        #expect(demoted.events(.evicted).map(\.device) == [a.id])
        #expect(driver.linkDown(a.object()).connects.map(\.device) == [c.id])
    }

    @Test func commandsOnUnknownDevicesSayNoSuchDevice() throws {
        var machine = try FleetFixture.machine([a.wanted()])
        let unknown = DeviceID("mfr-0059-000000000000")
        let refusal = FleetStateMachine.OperatorRefusal.unknownDevice(unknown)
        #expect(throws: refusal) { try machine.operatorDisconnect(unknown, now: .zero) }
        #expect(throws: refusal) { try machine.operatorEvict(unknown, now: .zero) }
        #expect(throws: refusal) { try machine.operatorForget(unknown, now: .zero) }
        #expect(throws: refusal) { try machine.operatorSetPolicy(unknown, .critical, now: .zero) }
    }

    /// What can be evicted is the machine's rule: a device with no link and no connect in flight has no slot
    /// to free, so the operator's evict is refused and changes nothing.
    @Test func onlyALinkedOrConnectingDeviceCanBeEvicted() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted()]))
        #expect(throws: FleetStateMachine.OperatorRefusal.notLinked(a.id)) { try driver.command { try $0.operatorEvict(a.id, now: $1) } }
        #expect(driver.phase(a) == .unknown)
        driver.adapter()
        let connect = try #require(driver.see(a.object()).connects.first)
        #expect(driver.phase(a) == .connecting)
        let evicted = try driver.command { try $0.operatorEvict(a.id, now: $1) }
        #expect(evicted.actions.events(.evicted).map(\.device) == [a.id], "a connect in flight can be evicted")
        #expect(throws: FleetStateMachine.OperatorRefusal.notLinked(a.id), "an evicted device has nothing left to free") {
            try driver.command { try $0.operatorEvict(a.id, now: $1) }
        }
        driver.connectFinished(connect)
        try driver.bringUp(b)
        #expect(try driver.command { try $0.operatorEvict(b.id, now: $1) }.actions.disconnects.map(\.device) == [b.id])
    }

    // MARK: Reload

    @Test func reloadAddsAWantedDevice() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter()
        #expect(driver.see(b.object()).connects.isEmpty)
        let (actions, summary) = try driver.machine.reload(rules: FleetFixture.rules(), wanted: [a.wanted(), b.wanted()],
                                                           previouslyConfigured: [a.id], now: driver.now)
        #expect(actions.persists == 1)
        #expect(summary.contains("1 added"))
        #expect(driver.phase(b) == .unknown)
        #expect(driver.see(b.object()).connects.map(\.device) == [b.id])
    }

    @Test func reloadRemovesADeviceAndDisconnectsIt() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted()]))
        driver.adapter()
        let path = try driver.bringUp(a)
        let (actions, summary) = try driver.machine.reload(rules: FleetFixture.rules(), wanted: [b.wanted()],
                                                           previouslyConfigured: [a.id, b.id], now: driver.now)
        #expect(actions.disconnects.map(\.path) == [path])
        #expect(summary.contains("1 no longer configured"))
        #expect(driver.phase(a) == .idle)
        #expect(driver.machine.devices[a.id]?.isWanted == false)
        #expect(driver.linkDown(a.object()).scheduled.isEmpty)
    }

    @Test func reloadedSubscriptionsApplyOnTheNextConnect() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter()
        try driver.bringUp(a)
        let changed = a.wanted(subscribe: [FleetFixture.heartRate, FleetFixture.battery], read: [])
        let (_, summary) = try driver.machine.reload(rules: FleetFixture.rules(), wanted: [changed], previouslyConfigured: [a.id], now: driver.now)
        #expect(summary.contains("1 changed"))
        #expect(driver.phase(a) == .ready, "links stay up across a reload")
        let delay = try #require(driver.linkDown(a.object()).scheduled.first?.after)
        let connect = try #require(driver.advance(by: delay).connects.first)
        driver.linkUp(a.object())
        driver.connectFinished(connect)
        let setUp = try #require(driver.resolved(a.object()).setUps.first)
        #expect(setUp.subscribe == changed.subscribe)
        #expect(setUp.read.isEmpty)
    }

    @Test func reloadWithBadRulesChangesNothing() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        // Two IRKs with one label: the resolver refuses them, so the reload must leave everything as it was.
        let key = try IdentityResolvingKey(key: Array(repeating: 0x11, count: 16), label: "strap")
        let duplicate = try FleetFixture.rules() + [.resolvingKeys([key, key])]
        #expect(throws: (any Error).self) {
            _ = try driver.machine.reload(rules: duplicate, wanted: [], previouslyConfigured: [a.id], now: driver.now)
        }
        #expect(driver.machine.devices[a.id]?.isWanted == true)
        driver.adapter()
        #expect(driver.see(a.object()).connects.count == 1, "the old rules still resolve the device")
    }
}
