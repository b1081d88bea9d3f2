import FleetCLI
import FleetProtocol
import FleetManager
import FleetPlatform
import FleetStore
import FleetTestKit
import Foundation
import Identity
import Supervision
import Testing

/// fleetd killed and restarted: links are adopted from BlueZ, the snapshot restores the desired state, and
/// a damaged snapshot is survived without losing it.
@Suite("fleetd restarts", .serialized)
struct SupervisorRestartTests {
    let scenario = "adapters 1\n" + SupervisorScenarioTests.straps(3)
    let config = SupervisorScenarioTests.wanted(1...3)
    let ids = (1...3).map(SupervisorScenarioTests.id)

    /// Found by the soak (seed 4 on a loaded machine): a reload's SIGHUP reached a restarted fleetd before its
    /// signal handler was installed (that happened only when every service had started), and SIGHUP's default
    /// action ended the daemon (status 129). A SIGHUP during start-up is kept and applied once it is up.
    @Test("a SIGHUP while fleetd is still starting is applied once it is up, not fatal")
    func sighupDuringStartUp() async throws {
        let config = SupervisorScenarioTests.wanted(1...1) + "read = 2a19\n"
        let h = try await FleetHarness(scenario: "adapters 1\n" + SupervisorScenarioTests.straps(1), configuration: config)
        defer { h.stop() }
        try await h.waitFor("ready", SupervisorScenarioTests.allReady([ids[0]]))
        try await h.killDaemon()
        // The adopted link's set-up (StartNotify, the read on connect) is answered in simulated time, and READY=1
        // waits for it. With the simulator's clock stopped, start-up lasts until the test lets it go on: a 3 s
        // reply delay in real time once raced a loaded CI machine, which reached READY=1 before the signal.
        try await h.sim("SetTimeScale", [.double(0)])
        let notify = try h.spawnDaemon()
        try await waitUntil("fleetd adopted the link", timeout: .seconds(20)) { h.log().contains("adopted the existing link") }
        #expect(!notify.received.contains { $0.contains("READY=1") }, "still starting when the signal comes")
        let fleetd = try #require(h.fleetd)
        try fleetd.kill(signal: SIGHUP)
        try await h.sim("SetTimeScale", [.double(1)])
        try await h.waitForNotification("READY=1")
        try await waitUntil("the reload ran") { h.log().contains("SIGHUP: ") }
        #expect(fleetd.isRunning, "fleetd:\n\(h.log())")
    }

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

    @Test("a restart restores what only the store knows: an operator's disconnect survives SIGKILL")
    func restartRestoresState() async throws {
        let harness = try await FleetHarness(scenario: scenario, configuration: config)
        defer { harness.stop() }
        try await harness.waitFor("all ready", SupervisorScenarioTests.allReady(ids))
        let result = try await harness.fleetctl(["disconnect", ids[2]])
        #expect(result.code == 0, "\(result)")
        let third = ids[2]
        try await harness.waitFor("strap 3 idle") { $0[third]?["state"]?.stringValue == "idle" }
        let store = try StateStore(path: harness.storePath)
        try await harness.waitFor("the decision written") { _ in
            (try? store.fleetState().devices.first { $0.id == third })?.wanted == false
        }
        store.close()
        try await harness.killDaemon(signal: SIGKILL)
        try await harness.startDaemon()
        #expect(harness.log().contains("restored 3 device(s)"), "\(harness.log())")
        let devices = try await harness.devices()
        #expect(devices[third]?["state"]?.stringValue == "idle", "still released after the restart: \(devices)")
    }

    @Test("a corrupt store is moved aside with a clear log line; fleetd rebuilds from the configuration and BlueZ")
    func corruptStore() async throws {
        let harness = try await FleetHarness(scenario: scenario, configuration: config)
        defer { harness.stop() }
        try await harness.waitFor("all ready", SupervisorScenarioTests.allReady(ids))
        try await harness.killDaemon(signal: SIGKILL)
        // Garbage in place of the database, and no WAL to read the good pages from (the WAL alone would still
        // serve every committed page: SQLite reads a page's latest copy from it, header included).
        try Data(repeating: 0xA5, count: 16384).write(to: URL(fileURLWithPath: harness.storePath))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: harness.storePath + suffix) }
        try await harness.startDaemon()
        let log = harness.log()
        #expect(log.contains("the store is corrupt") && log.contains("moved aside to \(harness.storePath).unusable-"), "\(log)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: harness.directory).filter { $0.hasPrefix("fleetd.db.unusable-") }
        #expect(aside.contains { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }, "the damaged file is kept, not wiped: \(aside)")
        // The links BlueZ still holds are adopted, the configured devices are all there, and the new store works.
        try await harness.waitFor("configured devices ready", SupervisorScenarioTests.allReady(ids))
        #expect(try await harness.call(.status)["daemon"]?.objectValue?["state"]?.stringValue == "running")
        let store = try StateStore(path: harness.storePath)
        defer { store.close() }
        try await harness.waitFor("state written to the fresh store") { _ in (try? store.fleetState().devices.count) == 3 }
    }

    @Test("a store from a newer fleetd is moved aside, not misread, and the daemon runs on")
    func newerStore() async throws {
        let harness = try await FleetHarness(scenario: scenario, configuration: config, startFleetd: false)
        defer { harness.stop() }
        do {
            let db = try StoreSchema.open(path: harness.storePath)
            try db.setUserVersion(StoreSchema.currentVersion + 1)
        }
        try await harness.startDaemon()
        #expect(harness.log().contains("schema version \(StoreSchema.currentVersion + 1) is newer than this fleetd understands"))
        #expect(harness.log().contains("moved aside to \(harness.storePath).unusable-"))
        try await harness.waitFor("configured devices ready anyway", SupervisorScenarioTests.allReady(ids))
    }

    @Test("an older fleetd's JSON snapshot is imported once at the first start, then renamed aside")
    func importsJSONSnapshot() async throws {
        let harness = try await FleetHarness(scenario: scenario, configuration: config, startFleetd: false)
        defer { harness.stop() }
        let released = FleetSnapshot.Device(wanted: WantedDevice(id: DeviceID(ids[2])), isWanted: false, configured: true,
                                            lastAddresses: [], failures: 0, gaveUp: false, lastReason: "operator")
        try SnapshotStore(path: harness.snapshotPath).write(FleetSnapshot(devices: [released], registry: IdentityRegistry(), evictions: []))
        try await harness.startDaemon()
        #expect(harness.log().contains("imported the JSON snapshot \(harness.snapshotPath)"), "\(harness.log())")
        #expect(!FileManager.default.fileExists(atPath: harness.snapshotPath))
        let third = ids[2]
        try await harness.waitFor("the imported decision applied") { $0[third]?["state"]?.stringValue == "idle" }
        // The next start reads the store; there is nothing left to import.
        #expect(try await harness.signalDaemon(SIGTERM) == 0)
        try await harness.startDaemon()
        #expect(harness.log().components(separatedBy: "imported the JSON snapshot").count == 2, "imported once")
        #expect(try await harness.devices()[third]?["state"]?.stringValue == "idle")
    }

    @Test("a JSON snapshot from a newer fleetd is refused at import, not misread, and the daemon runs on")
    func futureSnapshot() async throws {
        let harness = try await FleetHarness(scenario: scenario, configuration: config, startFleetd: false)
        defer { harness.stop() }
        try #"{"schemaVersion": 99, "devices": [], "future": true}"#.write(toFile: harness.snapshotPath, atomically: true, encoding: .utf8)
        try await harness.startDaemon()
        #expect(harness.log().contains("schema version 99 is newer"))
        try await harness.waitFor("configured devices ready anyway", SupervisorScenarioTests.allReady(ids))
    }
}
