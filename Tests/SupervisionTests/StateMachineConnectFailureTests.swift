@testable import Supervision
import Policy
import Testing

/// What each class of Connect failure leads to, and that replies and timers that are no longer current do nothing.
@Suite struct StateMachineConnectFailureTests {
    let strap = Peripheral(1)

    /// A driver with the strap advertising and its first connect in flight.
    func connecting(_ policyClass: PolicyClass = .normal, seed: UInt64 = 0x5EED) throws -> (ManualDriver, ConnectRequest) {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted(policyClass)], seed: seed))
        driver.adapter()
        let connect = try #require(driver.see(strap.object()).connects.first)
        return (driver, connect)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func abortByLocalBacksOffWithJitterWithinTheCap(seed: UInt64) throws {
        var (driver, connect) = try connecting(.critical, seed: seed)
        let table = Backoff(configuration: BackoffConfiguration())
        var delays: [Duration] = []
        for n in 1...12 {
            let failed = driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
            let backoff = try #require(failed.events(.backoffScheduled).first, "failure \(n) schedules a backoff")
            #expect(backoff.reason == "le-connection-abort-by-local")
            #expect(backoff.failures == n, "FLEET_FAILURES counts consecutive failures")
            let (timer, delay) = try #require(failed.scheduled.first)
            #expect(timer.purpose == .retry)
            #expect(backoff.delay == delay)
            #expect(table.bounds(afterFailures: n).contains(delay), "failure \(n): \(delay) outside \(table.bounds(afterFailures: n))")
            #expect(delay <= .seconds(60))
            #expect(driver.phase(strap) == .backoff(until: driver.now + delay))
            #expect(driver.machine.devices[strap.id]?.reconnect.failures == n)
            #expect(failed.connects.isEmpty, "no connect before the retry timer")
            delays.append(delay)

            let retried = driver.advance(by: delay)
            connect = try #require(retried.connects.first, "the retry timer reconnects")
            #expect(retried.events(.connectAttempt).first?.attempt == n + 1)
        }
        #expect(Set(delays.suffix(6)).count > 1, "delays at the cap are jittered, not all \(delays.last ?? .zero)")
    }

    @Test func normalDeviceGivesUpWhenItsRetryBudgetIsSpent() throws {
        var (driver, connect) = try connecting(.normal)
        for n in 1...9 {
            let failed = driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
            #expect(failed.events(.backoffScheduled).first?.failures == n)
            connect = try #require(driver.advance(by: .seconds(60)).connects.first)
        }
        let last = driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        #expect(last.events(.gaveUp).count == 1)
        #expect(last.scheduled.isEmpty)
        guard case .failed = driver.phase(strap) else {
            Issue.record("expected failed after 10 failures, got \(String(describing: driver.phase(strap)))")
            return
        }
        #expect(driver.advance(by: .seconds(3600)).connects.isEmpty)
        #expect(driver.see(strap.object()).connects.isEmpty, "a given-up device is not retried on its next advert")
    }

    @Test(arguments: [("org.bluez.Error.NotSupported", ""), ("org.bluez.Error.Failed", "le-connection-not-supported")])
    func notSupportedGivesUpOnANormalDevice(name: String, message: String) throws {
        var (driver, connect) = try connecting(.normal)
        let failed = driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, name, message))
        #expect(failed.events(.gaveUp).count == 1)
        #expect(failed.persists == 1)
        #expect(failed.scheduled.isEmpty)
        #expect(failed.connects.isEmpty)
        guard case .failed = driver.phase(strap) else {
            Issue.record("expected failed, got \(String(describing: driver.phase(strap)))")
            return
        }
        #expect(driver.machine.counts.failed == 1)
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.connectInFlight == nil, "the adapter is free for others")
    }

    @Test func notSupportedIsRetriedAtTheCapForACriticalDevice() throws {
        var (driver, connect) = try connecting(.critical)
        let failed = driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.NotSupported"))
        #expect(failed.events(.gaveUp).isEmpty)
        #expect(failed.scheduled.map(\.after) == [.seconds(60)])
        #expect(driver.advance(by: .seconds(60)).connects.count == 1)
    }

    @Test func stuckInProgressIsClearedWithDisconnectThenRemoveDevice() throws {
        var (driver, connect) = try connecting(.normal)
        let inProgress = FleetFixture.connectError(connect.path, "org.bluez.Error.InProgress", "In Progress")

        let first = driver.connectFinished(connect, error: inProgress)
        #expect(first.disconnects.map(\.path) == [strap.path()])
        #expect(first.removals.isEmpty)
        #expect(first.events(.staleStateCleared).map(\.reason) == ["disconnect"])
        #expect(first.scheduled.map(\.timer.purpose) == [.retry])

        connect = try #require(driver.advance(by: .seconds(2)).connects.first)
        let second = driver.connectFinished(connect, error: inProgress)
        #expect(second.removals.map(\.path) == [strap.path()])
        #expect(second.removals.map(\.adapter) == [FleetFixture.hci0])
        #expect(second.events(.staleStateCleared).map(\.reason) == ["remove-device"])
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 2, "clearing stale state still counts")

        // RemoveDevice makes BlueZ drop the object; the device is connected again once it is seen again.
        driver.remove(strap.path())
        #expect(driver.advance(by: .seconds(4)).connects.isEmpty)
        #expect(driver.see(strap.object()).connects.count == 1)
    }

    @Test func connectTimeoutCancelsBlueZsAttemptAndBacksOff() throws {
        var (driver, connect) = try connecting(.normal)
        driver.advance(by: connect.timeout)
        let failed = driver.connectFinished(connect, error: FleetFixture.connectTimeout(connect.path))
        #expect(failed.disconnects.map(\.path) == [connect.path], "Disconnect cancels BlueZ's pending connect")
        #expect(failed.events(.backoffScheduled).first?.reason == "connect-timeout")
        #expect(failed.scheduled.map(\.timer.purpose) == [.retry])
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.connectInFlight == nil)
        #expect(driver.advance(by: .seconds(1)).connects.count == 1)
    }

    /// Found by the soak (seed 2): fleetd was killed while BlueZ still worked on its Connect to a device that never
    /// answers. Its successor's Connect on that object is `Failed "Operation already in progress"` (device_connect_le:
    /// -EALREADY). fleetd never starts two connects to one device, so the pending one is a stale leftover: it is
    /// cancelled with Disconnect on the path that answered (not the device's most recent sighting), or BlueZ keeps
    /// it, and the controller slot it holds, for ever.
    @Test func aConnectLeftPendingInBlueZIsCancelledOnThePathThatAnswered() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter(FleetFixture.hci0)
        driver.adapter(FleetFixture.hci1)
        let connect = try #require(driver.see(strap.object(adapter: FleetFixture.hci0, rssi: -40)).connects.first)
        #expect(connect.adapter == FleetFixture.hci0)
        driver.advance(by: .milliseconds(100))
        driver.see(strap.object(adapter: FleetFixture.hci1, rssi: -90))
        #expect(driver.machine.devices[strap.id]?.bestSighting?.adapter == FleetFixture.hci1, "the newest sighting is elsewhere")
        let busy = FleetFixture.connectError(connect.path, "org.bluez.Error.Failed", "Operation already in progress")
        let failed = driver.connectFinished(connect, error: busy)
        #expect(failed.disconnects.map(\.path) == [connect.path], "the pending connect is cancelled where it is")
        #expect(failed.events(.staleStateCleared).map(\.reason) == ["disconnect"])
        #expect(failed.scheduled.map(\.timer.purpose) == [.retry])
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0, "the leftover was an earlier fleetd's, not the device's (soak seed 210)")
    }

    /// Found by the soak (seed 3, invariant 6): every adapter heard the device, and its connects through the best
    /// of them aborted at once (a controller that was in fact full), ten times in a row, until its budget was
    /// spent — while three other adapters had room. After a failure through one adapter, the next attempt goes
    /// through another one that can reach it; with equal failures everywhere, the best signal wins again.
    @Test func aFailedConnectTriesAnotherAdapterNext() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()], settings: FleetFixture.settings(policy: FleetFixture.slowRetries(floor: .milliseconds(100)))))
        driver.adapter(FleetFixture.hci0)
        driver.adapter(FleetFixture.hci1)
        var connect = try #require(driver.see(strap.object(adapter: FleetFixture.hci0, rssi: -40)).connects.first)
        driver.see(strap.object(adapter: FleetFixture.hci1, rssi: -85))
        #expect(connect.adapter == FleetFixture.hci0)
        driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        connect = try #require(driver.advance(by: .seconds(61)).connects.first)
        #expect(connect.adapter == FleetFixture.hci1, "after a failure through hci0, another adapter")
        driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        connect = try #require(driver.advance(by: .seconds(61)).connects.first)
        #expect(connect.adapter == FleetFixture.hci0, "as many failures on each: the strongest signal again")
        try driver.completeLink(strap, connect)
        #expect(driver.machine.devices[strap.id]?.failedConnects.isEmpty == true, "ready clears the record")
    }

    @Test func alreadyConnectedCountsAsSuccess() throws {
        var (driver, connect) = try connecting(.normal)
        let replied = driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.AlreadyConnected"))
        #expect(replied.events(.connected).count == 1)
        #expect(replied.scheduled.filter { $0.timer.purpose == .retry }.isEmpty)
        #expect(driver.phase(strap) == .connected)
    }

    @Test func concurrentConnectionLimitLowersTheCapacity() throws {
        let other = Peripheral(2)
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted(), other.wanted()]))
        driver.adapter()
        try driver.bringUp(other)
        let connect = try #require(driver.see(strap.object()).connects.first)
        let failed = driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.Failed",
                                                                                      "le-connection-concurrent-connection-limit"))
        #expect(failed.events(.capacityLowered).filter { $0.device == nil }.count == 1)
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.capacity == 1)
    }

    @Test func adapterNotPoweredBurnsNoAttempt() throws {
        var (driver, connect) = try connecting(.normal)
        driver.power(false)
        let failed = driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.NotReady", "Resource Not Ready"))
        #expect(failed.scheduled.isEmpty)
        #expect(driver.phase(strap) == .waitingForAdapter)
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0)
    }

    @Test func notReadyWhileTheAdapterLooksPoweredIsRetried() throws {
        // NotReady also comes back in the moment after Powered=true while the controller finishes coming up;
        // no second Powered=true follows, so waiting for one would strand the device.
        var (driver, connect) = try connecting(.normal)
        driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.NotReady", "Resource Not Ready"))
        #expect(driver.machine.adapters[FleetFixture.hci0]?.powered == true)
        let later = driver.advance(by: .seconds(60)) + driver.see(strap.object())
        #expect(later.connects.count == 1, "a device must not wait for an adapter that is already powered")
    }

    // MARK: Stale replies and timers

    @Test func replyWithAnotherTokenIsDropped() throws {
        var (driver, connect) = try connecting()
        var forged = connect
        forged.token &+= 1000
        #expect(driver.connectFinished(forged).isEmpty)
        #expect(driver.connectFinished(forged, error: FleetFixture.abortByLocal(connect.path)).effects.isEmpty, "only counted")
        #expect(driver.phase(strap) == .connecting)
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0)
        #expect(driver.connectFinished(connect).events(.connected).count == 1, "the current token still counts")
    }

    @Test func lateReplyOfAnEarlierAttemptIsDropped() throws {
        var (driver, first) = try connecting()
        driver.connectFinished(first, error: FleetFixture.connectTimeout(first.path))
        let second = try #require(driver.advance(by: .seconds(1)).connects.first)
        #expect(second.token != first.token)
        // The first attempt's answer arrives after all: it must not count for the second attempt.
        #expect(driver.connectFinished(first).isEmpty)
        #expect(driver.connectFinished(first, error: FleetFixture.abortByLocal(first.path)).effects.isEmpty, "only counted")
        #expect(driver.phase(strap) == .connecting)
        #expect(driver.machine.devices[strap.id]?.connectToken == second.token)
    }

    @Test func replacedRetryTimerIsStale() throws {
        var (driver, connect) = try connecting()
        let failed = driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        let retry = try #require(failed.scheduled.first?.timer)
        // The operator asks for the device now: the pending retry is cancelled and replaced by a connect.
        let outcome = driver.send { $0.operatorConnect(strap.id, now: $1).actions }
        #expect(outcome.cancelled == [retry])
        let reconnect = try #require(outcome.connects.first)
        #expect(driver.send { $0.timerFired(retry, now: $1) }.isEmpty, "a cancelled timer's fire does nothing")
        #expect(driver.phase(strap) == .connecting)
        #expect(driver.machine.devices[strap.id]?.connectToken == reconnect.token)
    }

    @Test func timerWithAnotherGenerationIsStale() throws {
        var (driver, connect) = try connecting()
        let failed = driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        let retry = try #require(failed.scheduled.first?.timer)
        let phase = driver.phase(strap)
        var older = retry
        older.generation -= 1
        var other = retry
        other.device = DeviceID("mfr-0059-ffffffffffff")
        #expect(driver.send { $0.timerFired(older, now: $1) }.isEmpty)
        #expect(driver.send { $0.timerFired(other, now: $1) }.isEmpty)
        #expect(driver.phase(strap) == phase)
        #expect(driver.send { $0.timerFired(retry, now: $1) }.connects.count == 1)
        #expect(driver.send { $0.timerFired(retry, now: $1) }.isEmpty, "a timer fires once")
    }

    @Test func setUpDeadlineAfterReadyIsStale() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let connect = try #require(driver.see(strap.object()).connects.first)
        driver.linkUp(strap.object())
        let linked = driver.connectFinished(connect)
        let deadline = try #require(linked.scheduled.first { $0.timer.purpose == .setUpDeadline }?.timer)
        let resolved = driver.resolved(strap.object())
        driver.setUpFinished(try #require(resolved.setUps.first))
        #expect(driver.send { $0.timerFired(deadline, now: $1) }.isEmpty)
        #expect(driver.phase(strap) == .ready)
    }
}
