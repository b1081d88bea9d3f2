@testable import Supervision
import Policy
import Testing

/// The supervisor's wrong turns under faults that the chaos soak found (issue 14, docs/soak.md): an adapter
/// going off, a reload, a session that reached ready and ended, a bluetoothd restart, a class changed by reload,
/// notifications as activity, and what the snapshot brings back.
@Suite struct StateMachineFaultTests {
    let hci0 = FleetFixture.hci0, hci1 = FleetFixture.hci1
    let a = Peripheral(1), b = Peripheral(2), c = Peripheral(3)

    /// Every path a device holds a sighting of is owned by it: a sighting without an owner is one whose link,
    /// services and values are never heard.
    func expectOwnedSightings(_ machine: FleetStateMachine, sourceLocation: SourceLocation = #_sourceLocation) {
        for device in machine.devices.values {
            for path in device.sightings.keys {
                #expect(machine.owners[path] == device.id, "\(path) of \(device.id) has no owner", sourceLocation: sourceLocation)
            }
        }
    }

    // MARK: A. adapter off

    @Test func anAdapterGoingOffLeavesALinkOnAnotherAdapterAlone() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter(hci0)
        driver.adapter(hci1)
        try driver.bringUp(a, adapter: hci1)
        // The same peripheral is also heard by hci0, which then goes off.
        driver.see(a.object(adapter: hci0))
        let off = driver.power(false, adapter: hci0)

        #expect(driver.phase(a) == .ready, "its link is on hci1")
        #expect(driver.machine.devices[a.id]?.adapter == hci1)
        #expect(driver.machine.adapters[hci1]?.slots.links[a.id.rawValue] != nil, "hci1 still holds its slot")
        #expect(off.connects.isEmpty && off.disconnects.isEmpty, "no second link, nothing torn down: \(off)")
        #expect(driver.machine.devices[a.id]?.reconnect.isWaitingForAdapter == false)
    }

    @Test func anAdapterGoingOffPausesTheDevicesLinkedOrConnectingThere() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted()]))
        driver.adapter(hci0)
        try driver.bringUp(a)
        let connecting = try #require(driver.see(b.object()).connects.first)
        #expect(connecting.adapter == hci0)
        driver.power(false)
        #expect(driver.phase(a) == .waitingForAdapter)
        #expect(driver.phase(b) == .waitingForAdapter)
        #expect(driver.machine.devices[a.id]?.reconnect.failures == 0)
        #expect(driver.machine.devices[b.id]?.reconnect.failures == 0)
    }

    /// fleetd's view lags behind BlueZ: it tries an adapter that is already off twice, moves to another, and
    /// only then hears that the first one went off. Neither failure is the device's.
    @Test func failuresOnAnAdapterHeardOffLateAreTakenBackEvenAfterMovingOn() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()], settings: FleetFixture.settings(policy: FleetFixture.slowRetries(floor: .milliseconds(100)))))
        driver.adapter(hci0)
        driver.adapter(hci1)
        driver.see(a.object(adapter: hci0, rssi: -40))
        var connect = try #require(driver.history.connects.last)
        #expect(connect.adapter == hci0)
        let io = FleetFixture.connectError(connect.path, "org.bluez.Error.Failed", "Input/output error")
        driver.connectFinished(connect, error: io)
        connect = try #require(driver.advance(by: .milliseconds(300)).connects.first)
        #expect(connect.adapter == hci0)
        driver.connectFinished(connect, error: io)
        #expect(driver.machine.devices[a.id]?.reconnect.failures == 2)
        driver.see(a.object(adapter: hci1, rssi: -90))
        driver.power(false, adapter: hci0)
        #expect(driver.machine.devices[a.id]?.reconnect.failures == 0, "both failures were the adapter's")
        driver.advance(by: .seconds(31))
        #expect(driver.history.connects.last?.adapter == hci1, "within the recovery window it goes on through the adapter that is up")
    }

    /// Found by the soak (seed 2, invariant 6): a device seen only on an adapter that went off waits for it. The
    /// adapter's objects went with its power, and the device was then heard on adapters that were up; that did
    /// not wake it, and when its adapter came back it had no sighting there and was passed over: it waited for
    /// ever, wanted, present and unlinked.
    @Test func aWaitingDeviceHeardOnAPoweredAdapterGoesOn() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter(hci0)
        driver.adapter(hci1)
        try driver.bringUp(a, adapter: hci0)
        driver.power(false, adapter: hci0)
        #expect(driver.phase(a) == .waitingForAdapter)
        driver.remove(a.path(adapter: hci0))
        let connectsBefore = driver.history.connects.count
        driver.see(a.object(adapter: hci1))
        driver.power(true, adapter: hci0)
        driver.advance(by: .seconds(31))
        #expect(driver.history.connects.count == connectsBefore + 1, "heard on a powered adapter, it reconnects within the recovery window")
        #expect(driver.history.connects.last?.adapter == hci1)
        #expect(driver.machine.devices[a.id]?.reconnect.failures == 0)
    }

    // MARK: B. reload

    @Test func aReloadKeepsTheDevicesThatHadNoLinkReachable() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter(hci0, powered: false)
        driver.see(a.object())
        #expect(driver.phase(a) == .discovered)
        _ = try driver.machine.reload(rules: FleetFixture.rules(), wanted: [a.wanted()], previouslyConfigured: [a.id], now: driver.now)
        expectOwnedSightings(driver.machine)
        // BlueZ reports the object again (the driver re-reports its tree after a reload; an advert does too).
        driver.see(a.object())
        expectOwnedSightings(driver.machine)
        #expect(driver.machine.owners[a.path()] == a.id)

        let connect = try #require(driver.power(true).connects.first)
        driver.linkUp(a.object())
        driver.connectFinished(connect)
        let setUp = try #require(driver.resolved(a.object()).setUps.first, "its services are heard: it is set up")
        driver.setUpFinished(setUp)
        #expect(driver.phase(a) == .ready)
    }

    // MARK: found by the soak: a connect through an object BlueZ has already removed

    @Test func aConnectThroughAVanishedObjectCountsNothingAndTriesAnotherPath() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter(hci0)
        driver.adapter(hci1)
        driver.see(a.object(adapter: hci1, rssi: -80))
        // hci1 had the only sighting when the connect started; hci0 hears it meanwhile.
        let first = try #require(driver.history.connects.first)
        driver.see(a.object(adapter: hci0, rssi: -50))
        let gone = FleetFixture.connectError(first.path, "org.freedesktop.DBus.Error.UnknownObject",
                                             "Method \"Connect\" with signature \"\" on interface \"org.bluez.Device1\" doesn't exist")
        let failed = driver.connectFinished(first, error: gone)
        #expect(driver.machine.devices[a.id]?.reconnect.failures == 0, "the object was gone, the device did not fail")
        #expect(failed.events(.backoffScheduled).isEmpty)
        #expect(driver.machine.owners[first.path] == nil && driver.machine.devices[a.id]?.sightings[first.path] == nil)
        let next = try #require(failed.connects.first, "it tries the path that is left at once")
        #expect(next.adapter != first.adapter)
    }

    // MARK: D. sessions that reached ready, bluetoothd restarts

    @Test func sessionsThatReachReadyAndEndNeverSpendTheBudget() throws {
        var policy = PolicyConfiguration()
        policy.normal.retryBudget = 3
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()], settings: FleetFixture.settings(policy: policy)))
        driver.adapter()
        try driver.bringUp(a)
        // A cuff that uploads and hangs up, again and again: well past the budget of 3.
        for session in 1...8 {
            driver.advance(by: .seconds(5))
            let ended = driver.linkDown(a.object())
            #expect(driver.machine.devices[a.id]?.reconnect.failures == 0, "session \(session)")
            #expect(ended.events(.gaveUp).isEmpty, "session \(session)")
            let (_, delay) = try #require(ended.scheduled.first { $0.timer.purpose == .retry }, "session \(session): a reconnect")
            let connect = try #require(driver.advance(by: delay).connects.first, "session \(session)")
            try driver.completeLink(a, connect)
        }
        #expect(driver.machine.devices[a.id]?.reconnect.failures == 0)
    }

    @Test func failuresBeforeReadyAreCountedAndReadyClearsThem() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()], settings: FleetFixture.settings(policy: FleetFixture.slowRetries())))
        driver.adapter()
        let first = try #require(driver.see(a.object()).connects.first)
        let failed = driver.connectFinished(first, error: FleetFixture.abortByLocal(first.path))
        #expect(failed.events(.backoffScheduled).first?.failures == 1, "FLEET_FAILURES")
        #expect(failed.events(.backoffScheduled).first?.attempt == nil, "backoff says failures, not attempt")
        let second = try #require(driver.advance(by: .seconds(21)).connects.first)
        #expect(driver.history.events(.connectAttempt).last?.attempt == 2, "FLEET_ATTEMPT: the second connect of the cycle")
        try driver.completeLink(a, second)
        #expect(driver.machine.devices[a.id]?.reconnect.failures == 0)
        #expect(driver.machine.devices[a.id]?.attempt == 0)
    }

    /// bluetoothd killed: its objects go, devices before their adapter (the order InterfacesRemoved reports a
    /// graceful stop in), with a connect in flight for one of them.
    @Test func aBluetoothdRestartBurnsNoAttempt() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted()], settings: FleetFixture.settings(policy: FleetFixture.slowRetries())))
        driver.adapter()
        try driver.bringUp(a)
        // b has failed twice and its third connect is in flight.
        var connect = try #require(driver.see(b.object()).connects.first)
        for _ in 1...2 {
            driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
            connect = try #require(driver.advance(by: .seconds(41)).connects.first { $0.device == b.id })
        }
        #expect(driver.machine.devices[b.id]?.reconnect.failures == 2)

        driver.remove(a.path())
        driver.remove(b.path())
        driver.change(.adapterRemoved(hci0))
        #expect(driver.machine.devices[a.id]?.reconnect.failures == 0, "a's link ended with bluetoothd")
        #expect(driver.machine.devices[b.id]?.reconnect.failures == 2, "b's connect ended with bluetoothd")
        #expect(driver.phase(a) == .waitingForAdapter)
        #expect(driver.phase(b) == .waitingForAdapter)

        // bluetoothd is back: the adapter, then its objects. Both reconnect, nothing more counted.
        driver.adapter(hci0)
        driver.advance(by: .seconds(31))
        let back = driver.see(a.object()) + driver.see(b.object())
        #expect(!back.connects.isEmpty)
        #expect(driver.machine.devices[b.id]?.reconnect.failures == 2)
    }

    @Test func aBluetoothdRestartKeepsTheLearnedCapacity() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted(), c.wanted()], settings: FleetFixture.settings(capacity: 5)))
        driver.adapter()
        try driver.bringUp(a)
        let first = try #require(driver.see(b.object()).connects.first)
        driver.connectFinished(first, error: FleetFixture.abortByLocal(first.path))
        let second = try #require(driver.see(c.object()).connects.first)
        driver.connectFinished(second, error: FleetFixture.abortByLocal(second.path))
        #expect(driver.machine.adapters[hci0]?.slots.capacity == 1)

        driver.change(.adapterPowered(hci0, false))
        driver.change(.adapterRemoved(hci0))
        driver.adapter(hci0)
        #expect(driver.machine.adapters[hci0]?.slots.capacity == 1, "the controller did not change with bluetoothd")
    }

    // MARK: Point 6. a class changed by reload

    @Test func aDevicePromotedByReloadIsHeldAsCriticalAtOnce() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(.normal), b.wanted(.critical)], settings: FleetFixture.settings(capacity: 1)))
        driver.adapter()
        try driver.bringUp(a)
        _ = try driver.machine.reload(rules: FleetFixture.rules(), wanted: [a.wanted(.critical), b.wanted(.critical)],
                                      previouslyConfigured: [a.id, b.id], now: driver.now)
        #expect(driver.machine.adapters[hci0]?.slots.links[a.id.rawValue]?.policyClass == .critical)
        // Past every hold time: a critical device arrives and finds only a critical link.
        driver.advance(by: .seconds(600))
        let seen = driver.see(b.object())
        #expect(driver.machine.evictions.isEmpty, "a is critical now: \(seen.events(.evicted).map(\.message))")
        #expect(driver.phase(a) == .ready)
    }

    // MARK: Point 7. notifications are activity

    @Test func notificationsCountAsActivityForEviction() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted(), c.wanted(.critical)], settings: FleetFixture.settings(capacity: 2)))
        driver.adapter()
        try driver.bringUp(a)
        driver.advance(by: .seconds(1))
        try driver.bringUp(b)
        driver.advance(by: .seconds(120))
        // a's link is the older one, but it keeps delivering values; b is silent.
        #expect(driver.machine.subscribedValue(on: a.path(), characteristic: FleetFixture.heartRate, now: driver.now) == a.id)
        driver.see(c.object())
        #expect(driver.machine.evictions.map(\.victim) == [b.id], "the idle link goes, not the one delivering values")
    }

    /// What the driver calls for each notification: a subscribed characteristic on the link is the link's
    /// activity; a characteristic nobody asked for, or a path of the device that is not its link, names no
    /// device and is nobody's activity.
    @Test func aSubscribedValueOnTheLinkIsActivityAndNothingElseIs() throws {
        var driver = ManualDriver(try FleetFixture.machine([a.wanted()]))
        driver.adapter()
        try driver.bringUp(a)
        driver.see(a.object(1))
        #expect(driver.machine.owners[a.path(1)] == a.id, "a second address of a, not its link")
        func lastActivity() -> Duration? { driver.machine.adapters[FleetFixture.hci0]?.slots.links[a.id.rawValue]?.lastActivity }
        let linkedAt = try #require(lastActivity())
        driver.advance(by: .seconds(120))
        #expect(driver.machine.subscribedValue(on: a.path(), characteristic: FleetFixture.battery, now: driver.now) == nil,
                "read on connect, not subscribed")
        #expect(driver.machine.subscribedValue(on: a.path(1), characteristic: FleetFixture.heartRate, now: driver.now) == nil,
                "not a's link")
        #expect(lastActivity() == linkedAt, "a refused value is nobody's activity")
        #expect(driver.machine.subscribedValue(on: a.path(), characteristic: FleetFixture.heartRate, now: driver.now) == a.id)
        #expect(lastActivity() == driver.now)
    }

    // MARK: Point 9. configuration wins over the snapshot

    @Test func aDeviceRemovedFromTheConfigurationDoesNotComeBackFromTheSnapshot() throws {
        var before = try FleetFixture.machine([a.wanted(), b.wanted()])
        _ = before.operatorConnect(c.id, now: .seconds(1))
        let snapshot = before.snapshot
        #expect(snapshot.devices.first { $0.wanted.id == a.id }?.configured == true)
        #expect(snapshot.devices.first { $0.wanted.id == c.id }?.configured == false)

        // fleetd.conf now lists b only.
        var after = try FleetFixture.machine([b.wanted(.critical)])
        after.restore(snapshot)
        #expect(after.devices[a.id] == nil, "removed from the configuration: gone")
        #expect(after.devices[b.id]?.policyClass == .critical, "configured: the configuration's class")
        #expect(after.devices[c.id]?.isWanted == true, "added with fleetctl connect: kept until forgotten")
    }

    @Test func aSnapshotFromBeforeTheOriginWasRecordedTellsConfiguredEntriesByTheirContent() throws {
        let old = FleetSnapshot(devices: [
            FleetSnapshot.Device(wanted: a.wanted(), isWanted: true, lastAddresses: [], failures: 0, gaveUp: false, lastReason: nil),
            FleetSnapshot.Device(wanted: WantedDevice(id: c.id), isWanted: true, lastAddresses: [], failures: 0, gaveUp: false, lastReason: nil),
        ], registry: .init(), evictions: [])
        var machine = try FleetFixture.machine([b.wanted()])
        machine.restore(old)
        #expect(machine.devices[a.id] == nil)
        #expect(machine.devices[c.id] != nil)
    }
}
