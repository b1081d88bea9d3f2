@testable import Supervision
import Foundation
import Policy
import Testing

/// `snapshot` → (JSON) → `restore` gives back the desired state of the previous run: which devices, their
/// class and subscriptions, who the operator released, backoff progress, who gave up, and the evictions.
@Suite struct StateMachineSnapshotTests {
    let ready = Peripheral(1), flaky = Peripheral(2), broken = Peripheral(3), released = Peripheral(4)
    let added = Peripheral(5), evicted = Peripheral(6)

    var configured: [WantedDevice] {
        [ready.wanted(), flaky.wanted(), broken.wanted(), released.wanted(), evicted.wanted(.opportunistic)]
    }

    /// A run that leaves one device in each state worth keeping.
    func previousRun() throws -> ManualDriver {
        var driver = ManualDriver(try FleetFixture.machine(configured, settings: FleetFixture.settings(capacity: 10)))
        driver.adapter()
        try driver.bringUp(ready)
        var connect = try #require(driver.see(flaky.object()).connects.first)
        for _ in 1...3 {
            driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
            connect = try #require(driver.advance(by: .seconds(8)).connects.first)
        }
        driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        let bad = try #require(driver.see(broken.object()).connects.first)
        driver.connectFinished(bad, error: FleetFixture.connectError(bad.path, "org.bluez.Error.NotSupported"))
        try driver.bringUp(released)
        try driver.command { try $0.operatorDisconnect(released.id, now: $1) }
        driver.send { $0.operatorConnect(added.id, now: $1).actions }
        try driver.command { try $0.operatorSetPolicy(added.id, .critical, now: $1) }
        try driver.bringUp(evicted)
        try driver.command { try $0.operatorEvict(evicted.id, now: $1) }
        return driver
    }

    @Test func snapshotSurvivesJSON() throws {
        let snapshot = try previousRun().machine.snapshot
        let data = try JSONEncoder().encode(snapshot)
        #expect(try JSONDecoder().decode(FleetSnapshot.self, from: data) == snapshot)
        #expect(snapshot.schemaVersion == FleetSnapshot.currentSchemaVersion)
    }

    @Test func snapshotRecordsTheDesiredState() throws {
        let snapshot = try previousRun().machine.snapshot
        let byID = Dictionary(uniqueKeysWithValues: snapshot.devices.map { ($0.wanted.id, $0) })
        #expect(byID.count == 6)
        #expect(byID[flaky.id]?.failures == 4)
        #expect(byID[broken.id]?.gaveUp == true)
        #expect(byID[released.id]?.isWanted == false)
        #expect(byID[added.id]?.wanted.policyClass == .critical)
        #expect(byID[ready.id]?.wanted.subscribe == [FleetFixture.heartRate])
        #expect(byID[ready.id]?.lastAddresses == [ready.address()])
        #expect(snapshot.evictions.map(\.victim) == [evicted.id])
        #expect(snapshot.registry[ready.id.rawValue]?.lastAddresses.map(\.description) == [ready.address()])
    }

    @Test func restoreGivesBackTheSameDesiredState() throws {
        let before = try previousRun().machine.snapshot
        let decoded = try JSONDecoder().decode(FleetSnapshot.self, from: JSONEncoder().encode(before))
        var restarted = try FleetFixture.machine(configured, settings: FleetFixture.settings(capacity: 10), seed: 99)
        restarted.restore(decoded)
        let after = restarted.snapshot

        #expect(after.devices.map(\.wanted) == before.devices.map(\.wanted))
        #expect(after.devices.map(\.isWanted) == before.devices.map(\.isWanted))
        #expect(after.devices.map(\.lastReason) == before.devices.map(\.lastReason))
        #expect(after.evictions == before.evictions)
        #expect(after.registry == before.registry)
        #expect(restarted.devices[released.id]?.phase == .idle)
        #expect(restarted.devices[added.id]?.isWanted == true)
        // Backoff progress and "gave up" are part of the snapshot; a restart must not wipe them.
        #expect(after.devices.map(\.failures) == before.devices.map(\.failures), "failure counts survive a restart")
        #expect(after.devices.map(\.gaveUp) == before.devices.map(\.gaveUp), "a device that gave up stays given up")
    }

    @Test func restoredMachineAdoptsLinksInsteadOfReconnecting() throws {
        let before = try previousRun().machine.snapshot
        var driver = ManualDriver(try FleetFixture.machine(configured, settings: FleetFixture.settings(capacity: 10), seed: 99))
        driver.machine.restore(before)
        driver.adapter()
        // After a SIGKILL the links are still up in BlueZ.
        let readyAgain = driver.appear(ready.object(), .resolved)
        #expect(readyAgain.connects.isEmpty)
        #expect(readyAgain.setUps.map(\.subscribe) == [[FleetFixture.heartRate]], "re-subscribes after a restart")
        let releasedLink = driver.see(released.object())
        #expect(releasedLink.connects.isEmpty, "a device the operator released stays released after a restart")
        #expect(driver.see(added.object()).connects.map(\.device) == [added.id], "an operator-added device comes back")
    }
}
