@testable import Supervision
import Policy
import Testing

/// `unknown → discovered → connecting → connected → resolving → ready`, in each order BlueZ may report it,
/// plus adoption of a link that already exists and the ways set-up can fail.
@Suite struct StateMachineLifecycleTests {
    let strap = Peripheral(1, name: "HRM-1")

    @Test func wantedDeviceStartsUnknownAndAdapterStartsDiscovery() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        #expect(driver.phase(strap) == .unknown)
        let actions = driver.adapter()
        #expect(actions.discoveryStarts == [FleetFixture.hci0])
        #expect(actions.events(.adapterOn).count == 1)
        #expect(actions.connects.isEmpty)
    }

    /// The chaos soak reads the adapter of each connect attempt from this text on the Watch stream
    /// (`SoakWatchEvent.connectingVia`, rule 4's other faults): keep "via <adapter>" in it.
    @Test func connectAttemptNamesItsAdapter() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let seen = driver.see(strap.object())
        #expect(seen.events(.connectAttempt).map(\.message) == ["connecting \(strap.id) via hci0 (attempt 1)"])
    }

    @Test func connectReplyBeforeServicesResolved() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()

        let seen = driver.see(strap.object())
        #expect(seen.events(.discovered).map(\.device) == [strap.id])
        #expect(seen.events(.connectAttempt).first?.attempt == 1)
        let connect = try #require(seen.connects.first)
        #expect(seen.connects.count == 1)
        #expect(connect == ConnectRequest(device: strap.id, path: strap.path(), adapter: FleetFixture.hci0,
                                          timeout: .seconds(30), token: connect.token))
        #expect(driver.phase(strap) == .connecting)

        let replied = driver.connectFinished(connect)
        #expect(driver.phase(strap) == .connected)
        #expect(replied.setUps.isEmpty, "set-up waits for ServicesResolved")
        #expect(replied.events(.connected).map(\.reason) == ["connect"])
        #expect(replied.scheduled.map(\.timer.purpose) == [.setUpDeadline], "the set-up deadline counts from link-up")

        let linked = driver.linkUp(strap.object())
        #expect(linked.setUps.isEmpty)
        let resolved = driver.resolved(strap.object())
        #expect(driver.phase(strap) == .resolving)
        let setUp = try #require(resolved.setUps.first)
        #expect(setUp.subscribe == [FleetFixture.heartRate])
        #expect(setUp.read == [FleetFixture.battery])
        #expect(resolved.scheduled.isEmpty, "the deadline set at link-up still runs")

        let ready = driver.setUpFinished(setUp)
        #expect(driver.phase(strap) == .ready)
        #expect(ready.events(.ready).count == 1)
        #expect(ready.persists == 1)
        #expect(driver.timers.isEmpty, "the set-up deadline is cancelled once ready")

        // The whole sequence reports one link-up, from fleetd's own connect, and never calls it adopted.
        #expect(driver.history.events(.connected).map(\.reason) == ["connect"])
        #expect(driver.machine.devices[strap.id]?.adopted == false)
        #expect(driver.history.setUps.count == 1)
    }

    @Test func connectedAndServicesResolvedBeforeConnectReply() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let connect = try #require(driver.see(strap.object()).connects.first)

        // BlueZ signals the link and the resolved services before the method reply arrives.
        #expect(driver.linkUp(strap.object()).setUps.isEmpty)
        #expect(driver.phase(strap) == .connecting)
        #expect(driver.resolved(strap.object()).setUps.isEmpty)
        #expect(driver.phase(strap) == .connecting)

        let replied = driver.connectFinished(connect)
        #expect(replied.setUps.count == 1, "exactly one set-up once the reply confirms the link")
        #expect(driver.phase(strap) == .resolving)
        driver.setUpFinished(try #require(replied.setUps.first))
        #expect(driver.phase(strap) == .ready)
        #expect(driver.history.events(.connected).count == 1)
    }

    @Test func connectedSignalBetweenReplyAndResolve() throws {
        // The usual order seen through bluez-sim: Connected=true, reply, ServicesResolved=true.
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        try driver.bringUp(strap)
        #expect(driver.history.events(.connected).count == 1)
        #expect(driver.history.setUps.count == 1)
        #expect(driver.machine.counts.ready == 1)
    }

    @Test func adoptsALinkThatAlreadyExists() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let actions = driver.appear(strap.object(), .resolved)
        #expect(actions.connects.isEmpty, "an existing link is adopted, not reconnected")
        let setUp = try #require(actions.setUps.first)
        #expect(actions.setUps.count == 1)
        #expect(setUp.subscribe == [FleetFixture.heartRate], "re-subscribes after adoption")
        #expect(actions.events(.connected).map(\.reason) == ["adopted"])
        #expect(driver.machine.devices[strap.id]?.adopted == true)
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.links[strap.id.rawValue] != nil, "the adopted link holds a slot")
        driver.setUpFinished(setUp)
        #expect(driver.phase(strap) == .ready)
        #expect(driver.machine.devices[strap.id]?.adopted == false)
    }

    @Test func adoptedLinkWithoutResolvedServicesWaitsForThem() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let linked = driver.appear(strap.object(), .up)
        #expect(linked.connects.isEmpty)
        #expect(linked.setUps.isEmpty)
        #expect(driver.phase(strap) == .connected)
        #expect(driver.resolved(strap.object()).setUps.count == 1)
    }

    @Test func unwantedDeviceIsIgnored() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let stranger = Peripheral(99)
        let actions = driver.see(stranger.object())
        #expect(actions.isEmpty)
        #expect(driver.machine.devices[stranger.id] == nil)
    }

    @Test func setUpFailureDisconnectsThenBacksOff() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let connect = try #require(driver.see(strap.object()).connects.first)
        driver.linkUp(strap.object())
        driver.connectFinished(connect)
        let setUp = try #require(driver.resolved(strap.object()).setUps.first)

        let failed = driver.setUpFinished(setUp, error: BlueZError(operation: "StartNotify", path: strap.path().rawValue + "/service000c/char000d",
                                                                     name: "org.bluez.Error.NotPermitted", message: "Notify not permitted"))
        #expect(failed.disconnects.map(\.path) == [strap.path()])
        #expect(failed.events(.setUpFailed).first?.reason == "org.bluez.Error.NotPermitted")
        #expect(driver.phase(strap) == .disconnecting)

        let dropped = driver.linkDown(strap.object())
        #expect(dropped.events(.disconnected).count == 1)
        #expect(dropped.events(.backoffScheduled).count == 1)
        guard case .backoff = driver.phase(strap) else {
            Issue.record("expected backoff, got \(String(describing: driver.phase(strap)))")
            return
        }
    }

    @Test func setUpDeadlineDisconnectsAndIgnoresTheLateReply() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let connect = try #require(driver.see(strap.object()).connects.first)
        driver.linkUp(strap.object())
        driver.connectFinished(connect)
        let setUp = try #require(driver.resolved(strap.object()).setUps.first)

        let expired = driver.advance(by: .seconds(30))
        #expect(expired.events(.setUpFailed).first?.reason == "set-up-timeout")
        #expect(expired.disconnects.map(\.path) == [strap.path()])
        #expect(driver.phase(strap) == .disconnecting)
        #expect(driver.setUpFinished(setUp).isEmpty, "a set-up reply after its deadline is stale")
        #expect(driver.phase(strap) == .disconnecting)
    }

    @Test func setUpDeadlineAlsoCoversServicesThatNeverResolve() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let connect = try #require(driver.see(strap.object()).connects.first)
        driver.linkUp(strap.object())
        driver.connectFinished(connect)
        #expect(driver.phase(strap) == .connected)
        // Without a deadline in `connected`, a link whose services never resolve would sit there forever.
        let expired = driver.advance(by: .seconds(31))
        #expect(expired.disconnects.map(\.path) == [strap.path()], "a link stuck before ServicesResolved is dropped by the deadline")
        #expect(driver.phase(strap) == .disconnecting)
        // BlueZ never confirms the disconnect: the link is written off, its object cleared, and a retry follows.
        let writtenOff = driver.advance(by: .seconds(10))
        #expect(writtenOff.removals.map(\.path) == [strap.path()])
        #expect(writtenOff.events(.disconnected).count == 1)
        #expect(writtenOff.scheduled.contains { $0.timer.purpose == .retry }, "the written-off link is retried with backoff")
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.links.isEmpty == true, "the slot is free again")
        #expect(writtenOff.connects.count == 1, "and the retry connects again")
    }

    @Test func deviceObjectVanishingDropsTheLink() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let path = try driver.bringUp(strap)
        let gone = driver.remove(path)
        #expect(gone.events(.disconnected).count == 1)
        #expect(gone.scheduled.map(\.timer.purpose) == [.retry])
        #expect(driver.machine.devices[strap.id]?.sightings.isEmpty == true)
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.links.isEmpty == true)
        // BlueZ shows the device again: the retry connects it anew.
        driver.advance(by: .seconds(2))
        #expect(driver.phase(strap) == .unknown)
        let back = driver.see(strap.object())
        #expect(back.connects.count == 1)
    }
}
