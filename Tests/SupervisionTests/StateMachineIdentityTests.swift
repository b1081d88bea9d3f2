@testable import Supervision
import Policy
import Testing

/// Identity folding: a device that rotates its address stays one fleet device with at most one link, and a
/// second live link to the same identity (a stale twin) is disconnected.
@Suite struct StateMachineIdentityTests {
    let strap = Peripheral(7, name: "Rotator")

    @Test func rotatingAddressesFoldIntoOneDeviceWithOneConnect() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        var merged: [LifecycleEvent] = []
        for rotation in UInt8(0)..<3 {
            let actions = driver.see(strap.object(rotation))
            merged += actions.events(.identityMerged)
            driver.clock.advance(by: .seconds(20))
        }
        #expect(driver.machine.devices.count == 1)
        #expect(driver.machine.devices[strap.id]?.sightings.count == 3)
        #expect(driver.history.connects.count == 1, "one connect at most, whatever the number of addresses")
        #expect(merged.map(\.address) == [strap.address(1), strap.address(2)])
        #expect(merged.allSatisfy { $0.device == strap.id })
        #expect(driver.history.events(.discovered).count == 1)
        #expect(driver.machine.registry[strap.id.rawValue]?.lastAddresses.count == 3)
    }

    @Test func rotationWhileReadyDoesNotStartASecondLink() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        try driver.bringUp(strap, rotation: 0)
        for rotation in UInt8(1)..<4 {
            driver.clock.advance(by: .seconds(20))
            let actions = driver.see(strap.object(rotation))
            #expect(actions.connects.isEmpty)
            #expect(actions.disconnects.isEmpty, "an unconnected new address is no reason to drop the working link")
        }
        #expect(driver.phase(strap) == .ready)
        #expect(driver.machine.devices[strap.id]?.linkPath == strap.path(0))
    }

    @Test func reconnectAfterRotationUsesTheFreshestAddress() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        try driver.bringUp(strap, rotation: 0)
        driver.clock.advance(by: .seconds(20))
        driver.see(strap.object(1))
        let dropped = driver.linkDown(strap.object(0))
        let delay = try #require(dropped.scheduled.first?.after)
        // The old address has expired in BlueZ by the time the retry fires.
        driver.remove(strap.path(0))
        let retry = driver.advance(by: delay)
        #expect(retry.connects.map(\.path) == [strap.path(1)])
    }

    /// The device, linked through hci0 at its first address, rotated; hci0 powered off (BlueZ keeps its object of
    /// the old address), and hci1 then heard the new address, further away. Returns the driver and what that
    /// advert asked for.
    func rotatedAwayWhileHci0IsOff() throws -> (ManualDriver, [FleetAction]) {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter(FleetFixture.hci0)
        driver.adapter(FleetFixture.hci1)
        try driver.bringUp(strap, rotation: 0, adapter: FleetFixture.hci0)
        driver.clock.advance(by: .seconds(20))
        driver.linkDown(strap.object(0))
        driver.power(false, adapter: FleetFixture.hci0)
        driver.clock.advance(by: .milliseconds(500))
        let heard = driver.see(strap.object(1, adapter: FleetFixture.hci1, rssi: -85))
        return (driver, heard)
    }

    /// Soak seed 202: the device rotated while linked through hci0, hci1 heard its new address, then hci0 power-cycled.
    /// BlueZ keeps hci0's object of the old address (a device it connected is not temporary); it looked free and
    /// fresh (its link going down was its latest news), so fleetd connected there, waited out the kernel's 20 s
    /// LE connection timeout and counted a failure for an outage of the adapter.
    @Test func anAddressRotatedAwayIsNotConnectedAfterAPowerCycle() throws {
        var (driver, heard) = try rotatedAwayWhileHci0IsOff()
        var connects = heard.connects
        driver.clock.advance(by: .milliseconds(500))
        connects += driver.power(true, adapter: FleetFixture.hci0).connects
        if connects.isEmpty { connects = driver.advanceUntilConnect(within: .seconds(70)).map { [$0] } ?? [] }
        #expect(connects.map(\.path) == [strap.path(1, adapter: FleetFixture.hci1)])
        #expect(driver.machine.devices[strap.id]?.reconnect.failures == 0)
    }

    /// The other side of the rule: the address heard last is the candidate, whichever it is, and an address
    /// heard again is a candidate again.
    @Test func theAddressHeardLastIsTheCandidate() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter(FleetFixture.hci0)
        driver.adapter(FleetFixture.hci1)
        try driver.bringUp(strap, rotation: 0, adapter: FleetFixture.hci0)
        driver.clock.advance(by: .seconds(20))
        driver.see(strap.object(1, adapter: FleetFixture.hci1, rssi: -85))
        func current() throws -> [DevicePath] {
            let device = try #require(driver.machine.devices[strap.id])
            return Sighting.atCurrentAddresses(Array(device.sightings.values)).map(\.path).sorted()
        }
        #expect(try current() == [strap.path(1, adapter: FleetFixture.hci1)])
        driver.clock.advance(by: .seconds(1))
        // The old address is heard again (the peripheral went back to it), by the other adapter too.
        driver.see(strap.object(0))
        driver.see(strap.object(0, adapter: FleetFixture.hci1))
        #expect(try current() == [strap.path(0), strap.path(0, adapter: FleetFixture.hci1)].sorted())
        // A report that is not an advert (a reload's re-report, a property BlueZ held) hears nothing.
        driver.clock.advance(by: .seconds(1))
        driver.see(strap.object(1, adapter: FleetFixture.hci1, rssi: nil))
        #expect(try current() == [strap.path(0), strap.path(0, adapter: FleetFixture.hci1)].sorted())
    }

    /// A config reload forgets every unlinked path and the driver reports BlueZ's objects again at once, from its
    /// copy of the tree: what was heard of each path must survive that, or the rotated-away address is a
    /// candidate again.
    @Test func aReloadKeepsWhatWasHeardOfEachAddress() throws {
        var (driver, _) = try rotatedAwayWhileHci0IsOff()
        driver.clock.advance(by: .milliseconds(200))
        let rules = try FleetFixture.rules()
        driver.send { machine, now in (try? machine.reload(rules: rules, wanted: [strap.wanted()], previouslyConfigured: [strap.id], now: now))?.0 ?? [] }
        #expect(driver.machine.devices[strap.id]?.sightings.count == 0, "the reload forgot both unlinked paths")
        for path in [strap.path(0), strap.path(1, adapter: FleetFixture.hci1)] {
            let rssi: Int? = path.adapter == FleetFixture.hci1 ? -85 : -60
            var report = strap.object(path == strap.path(0) ? 0 : 1, adapter: path.adapter, rssi: rssi)
            report.heard = false
            driver.change(.deviceAppeared(report, .down))
        }
        let device = try #require(driver.machine.devices[strap.id])
        #expect(Sighting.atCurrentAddresses(Array(device.sightings.values)).map(\.path) == [strap.path(1, adapter: FleetFixture.hci1)])
    }

    @Test func connectedStaleTwinIsDisconnected() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let kept = try driver.bringUp(strap, rotation: 0)
        driver.clock.advance(by: .seconds(5))
        // Another address of the same identity shows up connected (BlueZ or another client linked it).
        let twin = driver.appear(strap.object(1), .resolved)
        #expect(twin.disconnects.map(\.path) == [strap.path(1)], "the twin goes, the working link stays")
        #expect(twin.events(.twinDropped).map(\.address) == [strap.address(1)])
        #expect(twin.connects.isEmpty)
        #expect(twin.setUps.isEmpty)
        #expect(driver.machine.devices[strap.id]?.linkPath == kept)
        #expect(driver.phase(strap) == .ready)
    }

    @Test func twinDisconnectDoesNotLookLikeALinkLoss() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        try driver.bringUp(strap, rotation: 0)
        driver.appear(strap.object(1), .up)
        let gone = driver.linkDown(strap.object(1))
        #expect(gone.events(.disconnected).isEmpty)
        #expect(gone.scheduled.isEmpty)
        #expect(driver.phase(strap) == .ready)
    }

    @Test func reconciliationWithTwoConnectedAddressesKeepsOne() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.machine.beginReconciliation()
        driver.adapter()
        driver.appear(strap.object(0), .resolved)
        driver.clock.advance(by: .seconds(1))
        driver.appear(strap.object(1), .resolved)
        let reconciled = driver.send { $0.endReconciliation(now: $1) }
        #expect(driver.history.connects.isEmpty)
        #expect(driver.history.setUps.count == 1)
        let link = driver.machine.devices[strap.id]?.linkPath
        #expect(link == strap.path(0), "the first link seen is adopted")
        #expect(Set(driver.history.disconnects.map(\.path)) == [strap.path(1)], "one link per identity; the adopted one is kept")
        #expect(reconciled.connects.isEmpty)
    }

    @Test func reconciliationHoldsConnectsUntilTheTreeIsRead() throws {
        let other = Peripheral(8)
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted(), other.wanted()]))
        driver.machine.beginReconciliation()
        driver.adapter()
        #expect(driver.see(strap.object()).connects.isEmpty)
        #expect(driver.appear(other.object(), .resolved).setUps.count == 1, "adoption does not wait")
        let reconciled = driver.send { $0.endReconciliation(now: $1) }
        #expect(reconciled.connects.map(\.device) == [strap.id])
    }

    @Test func adoptionWithTwoConnectedAddressesKeepsOne() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let first = driver.appear(strap.object(0), .resolved)
        #expect(first.setUps.count == 1)
        driver.clock.advance(by: .seconds(1))
        let second = driver.appear(strap.object(1), .resolved)
        #expect(second.setUps.isEmpty)
        #expect(second.disconnects.count == 1, "exactly one of the two links is dropped")
        #expect(second.disconnects.first?.path != driver.machine.devices[strap.id]?.linkPath)
    }
}
