@testable import Supervision
import Policy
import Testing

/// Who gets to connect: one connect in flight per adapter, and a full pool that evicts only as Policy says.
@Suite struct StateMachineAdmissionTests {
    @Test func oneConnectInFlightPerAdapterWithManyCandidates() throws {
        let fleet = (1...6).map { Peripheral(UInt8($0)) }
        var driver = ManualDriver(try FleetFixture.machine(fleet.map { $0.wanted() }, settings: FleetFixture.settings(capacity: 10)))
        driver.adapter()
        var inFlight: [ConnectRequest] = []
        for device in fleet {
            inFlight += driver.see(device.object()).connects
            driver.clock.advance(by: .milliseconds(100))
        }
        #expect(inFlight.count == 1, "BlueZ answers a second concurrent Connect with InProgress")
        #expect(driver.machine.counts.connecting == 1)

        // Each answer (a failure, or the link up) lets exactly one more start.
        var linked: Set<DeviceID> = []
        var failedOnce = false
        while let connect = inFlight.popLast() {
            #expect(inFlight.isEmpty)
            let mark = driver.history.count
            if !failedOnce {
                failedOnce = true
                driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
            } else {
                linked.insert(connect.device)
                let peripheral = try #require(fleet.first { $0.id == connect.device })
                driver.linkUp(peripheral.object())
                driver.connectFinished(connect)
                let setUp = try #require(driver.resolved(peripheral.object()).setUps.first)
                driver.setUpFinished(setUp)
            }
            let next = Array(driver.history[mark...]).connects
            #expect(next.count <= 1)
            inFlight += next
            if inFlight.isEmpty { inFlight += driver.advance(by: .seconds(1)).connects }
        }
        #expect(linked == Set(fleet.map(\.id)), "all six end up linked, the one that failed after its retry")
        #expect(driver.history.connects.count == 7)
    }

    @Test func eachAdapterRunsItsOwnConnect() throws {
        let fleet = (1...4).map { Peripheral(UInt8($0)) }
        var driver = ManualDriver(try FleetFixture.machine(fleet.map { $0.wanted() }))
        driver.adapter(FleetFixture.hci0)
        driver.adapter(FleetFixture.hci1)
        var connects: [ConnectRequest] = []
        for (index, device) in fleet.enumerated() {
            connects += driver.see(device.object(adapter: index.isMultiple(of: 2) ? FleetFixture.hci0 : FleetFixture.hci1)).connects
        }
        #expect(connects.count == 2)
        #expect(Set(connects.map(\.adapter)) == [FleetFixture.hci0, FleetFixture.hci1])
    }

    @Test func criticalEvictsTheLeastRecentlyActiveNormalLink() throws {
        let a = Peripheral(1), b = Peripheral(2), c = Peripheral(3)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted(), c.wanted(.critical)],
                                                           settings: FleetFixture.settings(capacity: 2)))
        driver.adapter()
        let start = driver.now
        try driver.bringUp(a)
        driver.clock.advance(by: .seconds(1))
        let bPath = try driver.bringUp(b)
        // A linked first but is busy; B has been quiet since it linked.
        driver.clock.advance(to: start + .seconds(25))
        driver.see(a.object(rssi: -50))

        driver.clock.advance(to: start + .seconds(40))
        let admitted = driver.see(c.object())
        #expect(admitted.disconnects.map(\.path) == [bPath])
        let evicted = try #require(admitted.events(.evicted).first)
        #expect(evicted.device == b.id)
        #expect(evicted.reason == AdmissionReason.Code.evictLowerClass.rawValue)
        #expect(evicted.delay == .seconds(60))
        #expect(admitted.persists >= 1)
        #expect(admitted.connects.isEmpty, "the admitted device waits until the victim's link is really down")
        #expect(driver.phase(b) == .evicted(until: driver.now + .seconds(60)))
        #expect(driver.phase(a) == .ready)
        #expect(driver.machine.evictions.last?.victim == b.id)
        #expect(driver.machine.evictions.last?.admitted == c.id.rawValue)

        // BlueZ confirms the disconnect; an eviction is not a failure and schedules no backoff.
        let down = driver.linkDown(b.object())
        #expect(down.connects.map(\.device) == [c.id], "the freed slot goes to the critical device")
        #expect(down.scheduled.filter { $0.timer.purpose == .retry }.isEmpty)
        #expect(driver.machine.devices[b.id]?.reconnect.failures == 0)
    }

    @Test func oneAdmissionEvictsOneVictimAcrossAdapters() throws {
        // Found on the real stack: two full adapters that both hear the critical device must not each evict
        // a link for it while the first victim's disconnect is under way.
        let a = Peripheral(1), b = Peripheral(2), c = Peripheral(3)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted(), c.wanted(.critical)],
                                                           settings: FleetFixture.settings(capacity: 1)))
        driver.adapter(FleetFixture.hci0)
        driver.adapter(FleetFixture.hci1)
        try driver.bringUp(a, adapter: FleetFixture.hci0)
        try driver.bringUp(b, adapter: FleetFixture.hci1)
        driver.clock.advance(by: .seconds(40))
        let mark = driver.history.count
        driver.see(c.object(adapter: FleetFixture.hci0))
        driver.see(c.object(adapter: FleetFixture.hci1))
        driver.clock.advance(by: .seconds(1))
        driver.see(c.object(adapter: FleetFixture.hci1))
        driver.see(c.object(adapter: FleetFixture.hci0))
        let meanwhile = Array(driver.history[mark...])
        #expect(meanwhile.events(.evicted).count == 1, "one admission, one victim: \(meanwhile.events(.evicted).map(\.device))")
        #expect(meanwhile.disconnects.count == 1)
        #expect(meanwhile.connects.isEmpty)
        let victim = try #require(meanwhile.events(.evicted).first?.device)
        let (held, keeper, adapter) = victim == a.id ? (a, b, FleetFixture.hci0) : (b, a, FleetFixture.hci1)

        // The operator evicting the same victim meanwhile is refused (it has nothing left to free), so the
        // reservation stands: still no second victim.
        #expect(throws: FleetStateMachine.OperatorRefusal.notLinked(victim)) { try driver.command { try $0.operatorEvict(victim, now: $1) } }
        driver.see(c.object(adapter: FleetFixture.hci0))
        driver.see(c.object(adapter: FleetFixture.hci1))
        #expect(Array(driver.history[mark...]).events(.evicted).allSatisfy { $0.device == victim })

        let down = driver.linkDown(held.object(adapter: adapter))
        #expect(down.connects.map(\.device) == [c.id])
        #expect(down.connects.map(\.adapter) == [adapter], "the admitted device takes the slot its victim freed")
        #expect(driver.phase(keeper) == .ready)
    }

    @Test func evictedDeviceIsHeldOffThenRetried() throws {
        let a = Peripheral(1), b = Peripheral(2), c = Peripheral(3)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted(), c.wanted(.critical)],
                                                           settings: FleetFixture.settings(capacity: 2)))
        driver.adapter()
        try driver.bringUp(a)
        driver.clock.advance(by: .seconds(1))
        try driver.bringUp(b)
        driver.see(a.object())
        driver.clock.advance(by: .seconds(40))
        let admitted = driver.see(c.object())
        let victim = try #require(admitted.events(.evicted).first?.device)
        let held = victim == a.id ? a : b
        let keeper = victim == a.id ? b : a
        let down = driver.linkDown(held.object())
        try driver.completeLink(c, try #require(down.connects.first))

        // A slot frees up during the hold-off: the evicted device still stays away.
        let released = try driver.command { try $0.operatorDisconnect(keeper.id, now: $1) }.actions
        #expect(released.connects.isEmpty)
        #expect(driver.see(held.object()).connects.isEmpty, "held off: adverts do not bring it back early")
        #expect(driver.advance(by: .seconds(59)).connects.isEmpty)

        let retried = driver.advance(by: .seconds(1))
        #expect(retried.connects.map(\.device) == [held.id], "the hold-off timer lets it compete again")
        #expect(driver.machine.devices[held.id]?.reconnect.failures == 0)
    }

    @Test func operatorEvictionHoldsOffThenReconnects() throws {
        let a = Peripheral(1)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter()
        let path = try driver.bringUp(a)
        let outcome = try driver.command { try $0.operatorEvict(a.id, now: $1) }.actions
        #expect(outcome.disconnects.map(\.path) == [path])
        #expect(outcome.scheduled.map(\.timer.purpose) == [.holdOff])
        #expect(driver.machine.evictions.last?.admitted == "operator")
        driver.linkDown(a.object())
        #expect(driver.see(a.object()).connects.isEmpty)
        #expect(driver.advance(by: .seconds(60)).connects.count == 1)
    }

    @Test func hysteresisProtectsAFreshLink() throws {
        let a = Peripheral(1), c = Peripheral(3)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), c.wanted(.critical)], settings: FleetFixture.settings(capacity: 1)))
        driver.adapter()
        let start = driver.now
        try driver.bringUp(a)
        driver.clock.advance(to: start + .seconds(10))
        let early = driver.see(c.object())
        #expect(early.disconnects.isEmpty, "a link younger than 30 s is not evicted")
        #expect(early.connects.isEmpty)
        #expect(driver.phase(c) == .discovered)
        driver.clock.advance(to: start + .seconds(29))
        #expect(driver.see(c.object()).disconnects.isEmpty)

        driver.clock.advance(to: start + .seconds(30))
        let late = driver.see(c.object())
        #expect(late.events(.evicted).map(\.device) == [a.id])
        #expect(driver.linkDown(a.object()).connects.map(\.device) == [c.id])
    }

    @Test func holdTimeEndingAdmitsTheWaitingDeviceWithoutAnotherAdvert() throws {
        let a = Peripheral(1), c = Peripheral(3)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), c.wanted(.critical)], settings: FleetFixture.settings(capacity: 1)))
        driver.adapter()
        try driver.bringUp(a)
        driver.clock.advance(by: .seconds(10))
        driver.see(c.object())
        // BlueZ need not report the waiting device again (DuplicateData off, RSSI steady); Policy said when
        // to ask again (`AdmissionReason.retryAt`), so the machine must come back to it by itself.
        let later = driver.advance(by: .seconds(25))
        #expect(later.events(.evicted).map(\.device) == [a.id], "the critical device waits for the hold time, not for luck")
        #expect(driver.linkDown(a.object()).connects.map(\.device) == [c.id])
    }

    @Test func opportunisticNeverEvicts() throws {
        let a = Peripheral(1), o = Peripheral(4)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(.opportunistic), o.wanted(.opportunistic)],
                                                           settings: FleetFixture.settings(capacity: 1)))
        driver.adapter()
        try driver.bringUp(a)
        driver.clock.advance(by: .seconds(120))
        let seen = driver.see(o.object())
        #expect(seen.disconnects.isEmpty)
        #expect(seen.connects.isEmpty)
        #expect(driver.phase(o) == .discovered)
        // It takes a slot as soon as one is free.
        let dropped = driver.linkDown(a.object())
        #expect(dropped.connects.map(\.device) == [o.id])
    }

    @Test func equalClassesNeverEvictEachOther() throws {
        let a = Peripheral(1), b = Peripheral(2)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(.critical), b.wanted(.critical)], settings: FleetFixture.settings(capacity: 1)))
        driver.adapter()
        try driver.bringUp(a)
        driver.clock.advance(by: .seconds(600))
        let seen = driver.see(b.object())
        #expect(seen.disconnects.isEmpty)
        #expect(seen.connects.isEmpty)
    }

    @Test func normalEvictsAnOpportunisticLink() throws {
        let o = Peripheral(4), n = Peripheral(2)
        var driver = ManualDriver(try FleetFixture.machine([o.wanted(.opportunistic), n.wanted()], settings: FleetFixture.settings(capacity: 1)))
        driver.adapter()
        let path = try driver.bringUp(o)
        driver.clock.advance(by: .seconds(31))
        let seen = driver.see(n.object())
        #expect(seen.disconnects.map(\.path) == [path])
        #expect(driver.linkDown(o.object()).connects.map(\.device) == [n.id])
    }
}
