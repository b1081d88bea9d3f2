@testable import Supervision
import Policy
import Testing

/// Links that drop come back through backoff and are set up (re-subscribed) again; an adapter that goes off
/// pauses its devices without counting failures, and its return reconnects them.
@Suite struct StateMachineReconnectTests {
    let strap = Peripheral(1)

    @Test func droppedLinkIsReestablishedAndResubscribedEveryTime() throws {
        let wanted = strap.wanted(subscribe: [FleetFixture.heartRate, "00002a38-0000-1000-8000-00805f9b34fb"])
        var driver = ManualDriver(try FleetFixture.machine([wanted]))
        driver.adapter()
        try driver.bringUp(strap)

        for cycle in 1...3 {
            let dropped = driver.linkDown(strap.object())
            #expect(dropped.events(.disconnected).first?.reason == "link-lost", "cycle \(cycle)")
            let (retry, delay) = try #require(dropped.scheduled.first)
            #expect(retry.purpose == .retry)
            #expect(delay <= Backoff().ceiling(afterFailures: cycle), "a quick drop keeps counting: cycle \(cycle)")
            #expect(dropped.connects.isEmpty)
            #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.links.isEmpty == true, "the slot is freed")

            let retried = driver.advance(by: delay)
            let connect = try #require(retried.connects.first, "cycle \(cycle): the retry reconnects")
            driver.linkUp(strap.object())
            driver.connectFinished(connect)
            let resolved = driver.resolved(strap.object())
            let setUp = try #require(resolved.setUps.first, "cycle \(cycle): set-up runs again")
            #expect(setUp.subscribe == wanted.subscribe, "every configured notification is re-armed")
            #expect(setUp.read == wanted.readOnConnect)
            driver.setUpFinished(setUp)
            #expect(driver.phase(strap) == .ready)
            driver.advance(by: .seconds(1))
        }
        #expect(driver.history.setUps.count == 4)
    }

    @Test func quickSessionsLengthenTheDelayWithoutSpendingBudgetAndAStableLinkResetsThem() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        try driver.bringUp(strap)
        // Two sessions that reached ready and ended quickly: short sessions, not failures (a cuff that uploads
        // and hangs up is working) …
        for _ in 1...2 {
            let delay = try #require(driver.linkDown(strap.object()).scheduled.first?.after)
            let connect = try #require(driver.advance(by: delay).connects.first)
            try driver.completeLink(strap, connect)
        }
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0)
        #expect(driver.machine.devices[strap.id]?.reconnect.shortSessions == 2)
        // … a link that lasts past stableAfter (60 s) starts again from n = 1.
        driver.advance(by: .seconds(61))
        let dropped = driver.linkDown(strap.object())
        #expect(driver.machine.devices[strap.id]?.reconnect.shortSessions == 0)
        #expect(dropped.events(.backoffScheduled).first?.failures == 0)
        #expect((dropped.scheduled.first?.after ?? .seconds(999)) <= .seconds(1))
    }

    @Test func adapterOffPausesWithoutBurningAttemptsAndOnReconnects() throws {
        let other = Peripheral(2)
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted(), other.wanted()],
                                                           settings: FleetFixture.settings(policy: FleetFixture.slowRetries())))
        driver.adapter()
        try driver.bringUp(strap)
        // The other device has failed twice and is backing off (retry due in 10…20 s).
        var connect = try #require(driver.see(other.object()).connects.first)
        driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        connect = try #require(driver.advance(by: .seconds(10)).connects.first)
        driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        let retry = try #require(driver.timer(other.id, .retry))
        #expect(driver.machine.devices[other.id]?.reconnect.failures == 2)
        // Well after those failures (outside any "the outage caused it" grace), the adapter goes off.
        driver.advance(by: .seconds(5))
        #expect(driver.timer(other.id, .retry) == retry)

        let off = driver.power(false)
        #expect(off.events(.adapterOff).count == 1)
        #expect(off.cancelled.contains(retry), "a backing-off device's retry is cancelled while the adapter is off")
        #expect(off.connects.isEmpty)
        #expect(driver.phase(strap) == .waitingForAdapter)
        #expect(driver.phase(other) == .waitingForAdapter)
        #expect(driver.machine.counts.waiting == 2)
        // BlueZ reports the links gone after the power-off; that is not a second failure.
        let gone = driver.linkDown(strap.object())
        #expect(gone.scheduled.isEmpty)
        #expect(driver.phase(strap) == .waitingForAdapter)

        // While off: adverts, stale timers and time passing start nothing.
        #expect(driver.send { $0.timerFired(retry, now: $1) }.isEmpty)
        #expect(driver.see(other.object()).connects.isEmpty)
        #expect(driver.advance(by: .seconds(300)).connects.isEmpty)
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0, "no attempt burnt")
        #expect(driver.machine.devices[other.id]?.reconnect.failures == 2, "no attempt burnt")

        let on = driver.power(true)
        #expect(on.events(.adapterOn).count == 1)
        #expect(on.discoveryStarts == [FleetFixture.hci0])
        let returns = on.scheduled.filter { $0.timer.purpose == .retry }
        #expect(Set(returns.map(\.timer.device)) == [strap.id, other.id])
        #expect(returns.allSatisfy { $0.after <= .seconds(30) }, "spread over the normal class's 30 s recovery window")

        // Both reconnect, one at a time on the one adapter.
        let mark = driver.history.count
        var answered: Set<UInt64> = []
        for _ in 0..<4 {
            driver.advance(by: .seconds(30))
            while let request = Array(driver.history[mark...]).connects.first(where: { !answered.contains($0.token) }) {
                answered.insert(request.token)
                try driver.completeLink(request.device == strap.id ? strap : other, request)
            }
        }
        #expect(Set(Array(driver.history[mark...]).connects.map(\.device)) == [strap.id, other.id])
        #expect(answered.count == 2, "one connect each, no storm")
        #expect(driver.machine.devices[other.id]?.reconnect.failures == 0, "kept at 2 through the outage, cleared by reaching ready")
    }

    @Test func dropsReportedJustBeforeThePowerOffAreTakenBack() throws {
        // BlueZ reports an adapter's links as dropped a moment before it reports Powered=false. The link here
        // drops before the device was ready, which on its own is a failure.
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let connect = try #require(driver.see(strap.object()).connects.first)
        driver.linkUp(strap.object())
        driver.connectFinished(connect)
        driver.linkDown(strap.object())
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 1)
        driver.clock.advance(by: .milliseconds(300))
        let off = driver.power(false)
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0, "the outage burnt no attempt")
        #expect(driver.phase(strap) == .waitingForAdapter)
        #expect(off.cancelled.count == 1, "the drop's retry timer is cancelled")
    }

    @Test func adapterOffDuringConnectDropsTheLateReply() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let connect = try #require(driver.see(strap.object()).connects.first)
        driver.power(false)
        #expect(driver.phase(strap) == .waitingForAdapter)
        // The Connect that was in flight fails because the adapter went away; that is not the device's fault.
        let late = driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.Failed", "le-connection-abort-by-local"))
        #expect(late.effects.isEmpty, "only counted")
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0)
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.connectInFlight == nil)
        let on = driver.power(true)
        let delay = try #require(on.scheduled.first?.after)
        #expect(driver.advance(by: delay).connects.count == 1)
    }

    @Test func criticalDevicesComeBackWithinFiveSeconds() throws {
        let devices = (1...6).map { Peripheral(UInt8($0)) }
        var driver = ManualDriver(try FleetFixture.machine(devices.map { $0.wanted(.critical) }, settings: FleetFixture.settings(capacity: 10)))
        driver.adapter()
        for device in devices { try driver.bringUp(device) }
        driver.power(false)
        let on = driver.power(true)
        let delays = on.scheduled.map(\.after)
        #expect(delays.count == devices.count)
        #expect(delays.allSatisfy { $0 <= .seconds(5) })
        #expect(Set(delays).count > 1, "returns are spread, not in lock-step")
    }

    @Test func adapterRemovedAndReaddedReconnects() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        try driver.bringUp(strap)
        driver.change(.adapterRemoved(FleetFixture.hci0))
        #expect(driver.phase(strap) == .waitingForAdapter)
        #expect(driver.machine.adapters[FleetFixture.hci0] == nil)
        let back = driver.adapter()
        let delay = try #require(back.scheduled.first?.after)
        driver.advance(by: delay)
        #expect(driver.see(strap.object()).connects.count == 1)
    }

    @Test func unusedAdapterIsIgnored() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()], settings: FleetFixture.settings(adapters: ["hci1"])))
        #expect(driver.adapter(FleetFixture.hci0).isEmpty)
        #expect(driver.see(strap.object(adapter: FleetFixture.hci0)).connects.isEmpty)
        driver.adapter(FleetFixture.hci1)
        #expect(driver.see(strap.object(adapter: FleetFixture.hci1)).connects.map(\.adapter) == [FleetFixture.hci1])
    }
}
