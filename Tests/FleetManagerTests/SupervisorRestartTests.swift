import FleetCLI
import FleetProtocol
import FleetPlatform
import FleetTestKit
import Foundation
import Testing

/// fleetd killed and restarted: links are adopted from BlueZ, the snapshot restores the desired state, and
/// a damaged snapshot is survived without losing it.
@Suite("fleetd restarts", .serialized)
struct SupervisorRestartTests {
    let scenario = "adapters 1\n" + SupervisorScenarioTests.straps(3)
    let config = SupervisorScenarioTests.wanted(1...3)
    let ids = (1...3).map(SupervisorScenarioTests.id)

    @Test("after SIGKILL, a restart adopts the links without reconnecting, and READY=1 follows reconciliation")
    func adoptAfterKill() async throws {
        let harness = try await FleetHarness(scenario: scenario, configuration: config)
        defer { harness.stop() }
        try await harness.waitFor("all ready", SupervisorScenarioTests.allReady(ids))
        let before = try await harness.counters()
        try await harness.killDaemon(signal: SIGKILL)
        try await harness.startDaemon()
        // READY=1 has arrived: by then every adopted device must already be ready (re-subscribed).
        let devices = try await harness.devices()
        #expect(ids.allSatisfy { devices[$0]?["state"]?.stringValue == "ready" }, "\(devices.mapValues { $0["state"]?.stringValue ?? "?" })")
        let after = try await harness.counters()
        #expect(after["ConnectsAttempted"] == before["ConnectsAttempted"], "no reconnect storm: \(before) → \(after)")
        #expect(harness.log().contains("adopted the existing link to \(ids[0])"))
        // Subscriptions are live again: notifications flow to the new fleetd.
        let ids = self.ids
        _ = try await harness.watch { events in SupervisorScenarioTests.notifying(events).isSuperset(of: ids) }
    }

    @Test("a truncated snapshot is reported, set aside and replaced by the previous good copy")
    func truncatedSnapshot() async throws {
        let harness = try await FleetHarness(scenario: scenario, configuration: config)
        defer { harness.stop() }
        try await harness.waitFor("all ready", SupervisorScenarioTests.allReady(ids))
        // An operator decision that only the snapshot knows: strap 3 disconnected (not wanted).
        let result = try await harness.fleetctl(["disconnect", ids[2]])
        #expect(result.code == 0, "\(result)")
        let third = ids[2]
        try await harness.waitFor("strap 3 idle") { $0[third]?["state"]?.stringValue == "idle" }
        let previous = harness.snapshotPath + ".prev"
        try await harness.waitFor("snapshot and its previous copy written") { _ in FileManager.default.fileExists(atPath: previous) }
        try await harness.killDaemon(signal: SIGKILL)
        let data = try #require(FileManager.default.contents(atPath: harness.snapshotPath))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: harness.snapshotPath))
        try await harness.startDaemon()
        let log = harness.log()
        #expect(log.contains("rejected"), "the bad snapshot is reported")
        let aside = try FileManager.default.contentsOfDirectory(atPath: harness.directory).filter { $0.hasPrefix("snapshot.json.rejected-") }
        #expect(aside.count == 1, "the damaged file is kept, not wiped")
        let devices = try await harness.devices()
        #expect(devices.count == 3)
        #expect(try await harness.call(.status)["daemon"]?.objectValue?["state"]?.stringValue == "running")
    }

    @Test("a snapshot from a newer fleetd is refused, not misread, and the daemon runs on")
    func futureSnapshot() async throws {
        let harness = try await FleetHarness(scenario: scenario, configuration: config, startFleetd: false)
        defer { harness.stop() }
        try #"{"schemaVersion": 99, "devices": [], "future": true}"#.write(toFile: harness.snapshotPath, atomically: true, encoding: .utf8)
        try await harness.startDaemon()
        #expect(harness.log().contains("schema version 99 is newer"))
        try await harness.waitFor("configured devices ready anyway", SupervisorScenarioTests.allReady(ids))
    }
}
