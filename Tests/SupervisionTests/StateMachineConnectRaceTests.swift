@testable import Supervision
import Policy
import Testing

/// Signals that race a Connect in flight. Whatever the order, the adapter's one connect slot must be freed,
/// or every other device on that adapter waits forever.
@Suite struct StateMachineConnectRaceTests {
    let strap = Peripheral(1), other = Peripheral(2)

    func connecting() throws -> (ManualDriver, ConnectRequest) {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted(), other.wanted()]))
        driver.adapter()
        let connect = try #require(driver.see(strap.object()).connects.first)
        return (driver, connect)
    }

    /// Whether `other`, advertising now, gets a connect (the adapter is not blocked); its connect is
    /// answered at once so the adapter is free again afterwards.
    func adapterIsFree(_ driver: inout ManualDriver) -> Bool {
        driver.see(other.object())
        guard let request = driver.history.connects.first(where: { $0.device == other.id }) else { return false }
        // The other device is brought all the way to ready, so it holds no timer that could busy the adapter later.
        if driver.phase(other) == .connecting { _ = try? driver.completeLink(other, request) }
        return true
    }

    @Test func linkUpAndDownBeforeTheConnectReply() throws {
        var (driver, connect) = try connecting()
        driver.linkUp(strap.object())
        // The link drops before Connect returns; BlueZ then fails the call.
        driver.linkDown(strap.object())
        driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.Failed", "le-connection-abort-by-remote"))
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.connectInFlight == nil, "the in-flight marker is cleared")
        let free = adapterIsFree(&driver)
        #expect(free, "another device can connect through the adapter")
        driver.advance(by: .seconds(60))
        #expect(driver.history.connects.filter { $0.device == strap.id }.count >= 2, "the strap itself is retried")
    }

    @Test func deviceObjectRemovedWhileConnecting() throws {
        var (driver, connect) = try connecting()
        // BlueZ expires the temporary device object; its pending Connect then fails.
        driver.remove(connect.path)
        let failed = driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.freedesktop.DBus.Error.UnknownObject",
                                                                                      "Method \"Connect\" with signature \"\" on interface \"org.bluez.Device1\" doesn't exist"))
        #expect(failed.connects.allSatisfy { $0.device != strap.id }, "no connect to a path that is gone")
        #expect(driver.phase(strap) != .connecting, "the attempt is over")
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0, "the path failed, not the device")
        #expect(driver.machine.devices[strap.id]?.connectToken == nil)
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.connectInFlight == nil)
        let free = adapterIsFree(&driver)
        #expect(free, "another device can connect through the adapter")
        // BlueZ sees the strap again: it is connected again (after its backoff).
        driver.advance(by: .seconds(60))
        driver.see(strap.object())
        #expect(driver.history.connects.filter { $0.device == strap.id }.count == 2)
    }

    /// Found by the soak (seed 1, `scripts/soak --short`): an adapter had just come back; the simulator expired
    /// a stale device object on it, the device advertised and the object came back at the same path. fleetd,
    /// behind the bus, sent its Connect to that path and only then took the removal: it counted a failure, freed
    /// the adapter's connect slot and started the next device's Connect beside the first (invariant 1: two
    /// Connect calls pending on one adapter). The removal frees nothing and counts nothing; BlueZ's answer
    /// settles the attempt.
    @Test func removalHeardUnderAPendingConnectWaitsForBlueZsAnswer() throws {
        var (driver, connect) = try connecting()
        driver.see(other.object())
        #expect(!driver.history.connects.contains { $0.device == other.id }, "one connect in flight per adapter")
        let removed = driver.remove(connect.path)
        #expect(removed.connects.isEmpty, "no second Connect beside the pending one")
        #expect(removed.events(.backoffScheduled).isEmpty)
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0)
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.connectInFlight?.device == strap.id.rawValue)
        // The object is back at the same path, and BlueZ connects it.
        driver.see(strap.object())
        let answered = driver.connectFinished(connect)
        #expect(driver.phase(strap) == .connected)
        #expect(answered.connects.map(\.device) == [other.id], "the adapter is free once BlueZ has answered")
    }

    /// Found by the soak (seed 112, invariant 1): fleetd, 1.8 s behind the bus after a restart, sent a Connect
    /// through hci3 that BlueZ took after the adapter was already back on; then it heard the old power-off, took
    /// the connect for gone, heard the adapter come back and sent a second Connect through it while the first
    /// was still pending. The adapter starts nothing new until BlueZ answers the first.
    @Test func adapterOffHeardUnderAPendingConnectWaitsForBlueZsAnswer() throws {
        var (driver, connect) = try connecting()
        driver.see(other.object())
        driver.power(false)
        #expect(driver.phase(strap) == .waitingForAdapter, "the device moves on")
        driver.power(true)
        let meanwhile = driver.advance(by: .seconds(61))
        #expect(meanwhile.connects.filter { $0.adapter == FleetFixture.hci0 }.isEmpty, "no second Connect beside the pending one: \(meanwhile.connects)")
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0)
        let answered = driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.Failed", "Input/output error"))
        #expect(answered.connects.count == 1, "the adapter is free once BlueZ has answered: \(answered.connects)")
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0, "the answer of a Connect the adapter's going off ended counts nothing")
    }

    @Test func operatorEvictWhileConnecting() throws {
        var (driver, connect) = try connecting()
        _ = try driver.command { try $0.operatorEvict(strap.id, now: $1) }.actions
        // The cancelled Connect's answer comes back with the old token and is (rightly) ignored …
        driver.connectFinished(connect, error: FleetFixture.connectError(connect.path, "org.bluez.Error.Failed", "le-connection-abort-by-local"))
        // … but the adapter must not keep waiting for it.
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.connectInFlight == nil)
        let free = adapterIsFree(&driver)
        #expect(free, "another device can connect through the adapter")
        driver.advance(by: .seconds(60))
        #expect(driver.history.connects.filter { $0.device == strap.id }.count == 2, "the evicted device returns after its hold-off")
    }

    @Test func operatorDisconnectWhileConnectingFreesTheAdapter() throws {
        var (driver, connect) = try connecting()
        let outcome = try driver.command { try $0.operatorDisconnect(strap.id, now: $1) }.actions
        #expect(outcome.disconnects.map(\.path) == [connect.path], "Disconnect cancels BlueZ's pending connect")
        #expect(driver.connectFinished(connect).isEmpty, "the late reply is stale")
        let free = adapterIsFree(&driver)
        #expect(free, "another device can connect through the adapter")
    }
}
