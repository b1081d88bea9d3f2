import FleetProtocol
import FleetStore
import FleetTestKit
import Foundation
import Testing

/// fleetd stores every notification in its outbox; SIGKILL loses at most the uncommitted batch, and the
/// per-device sequence numbers continue after a restart with no gap and no duplicate.
@Suite("fleetd's outbox", .serialized)
struct OutboxAcrossKillTests {
    let scenario = "adapters 1\n" + SupervisorScenarioTests.straps(3)
    let config = SupervisorScenarioTests.wanted(1...3)
    let ids = (1...3).map(SupervisorScenarioTests.id)

    static func notificationCounts(_ events: [[String: JSONValue]]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for event in events where event["characteristic"]?.isNull == false {
            if let device = event["device"]?.stringValue { counts[device, default: 0] += 1 }
        }
        return counts
    }

    @Test("notifications are stored; across a SIGKILL each device's seq has no gap and no duplicate")
    func seqSurvivesKill() async throws {
        let harness = try await FleetHarness(scenario: scenario, configuration: config)
        defer { harness.stop() }
        let ids = self.ids
        try await harness.waitFor("all ready", SupervisorScenarioTests.allReady(ids))
        // A few notifications per device outlast the 100 ms commit delay, so some are committed before the kill.
        _ = try await harness.watch { events in
            let counts = Self.notificationCounts(events)
            return ids.allSatisfy { (counts[$0] ?? 0) >= 4 }
        }
        try await harness.killDaemon(signal: SIGKILL)
        let killedAt = Int64(Date().timeIntervalSince1970 * 1e9)
        try await harness.startDaemon()
        _ = try await harness.watch { events in
            let counts = Self.notificationCounts(events)
            return ids.allSatisfy { (counts[$0] ?? 0) >= 4 }
        }
        // A clean stop closes the outbox, committing what is pending.
        #expect(try await harness.signalDaemon(SIGTERM) == 0)

        let outbox = try Outbox(path: harness.outboxPath)
        defer { outbox.close() }
        var stored: [StoredReading] = []
        var cursor: Int64 = 0
        while true {
            let page = try outbox.read(after: cursor, limit: 1000)
            #expect(page.lost == nil)
            stored += page.readings
            cursor = page.next
            if page.reachedEnd { break }
        }
        // A SIGKILL within one boot loses nothing committed (WAL): the numbering stays in one epoch (issue 41).
        #expect(Set(stored.map(\.epoch)) == [outbox.epoch.current], "\(Set(stored.map(\.epoch)))")
        for id in ids {
            let mine = stored.filter { $0.device == id }
            #expect(mine.map(\.seq) == (0..<mine.count).map { Int64($0) + 1 }, "\(id): \(mine.map(\.seq))")
            #expect(mine.contains { $0.reading.wallNanoseconds < killedAt }, "\(id): nothing committed before the kill")
            #expect(mine.contains { $0.reading.wallNanoseconds > killedAt }, "\(id): nothing stored after the restart")
            #expect(mine.allSatisfy { $0.reading.kind == .notification || $0.reading.kind == .read })
            #expect(mine.allSatisfy { $0.reading.session > 0 }, "every reading carries its link session")
        }
    }

    /// Issue 41, point 2: before, fleetd logged "running without an outbox" and reported READY, active without
    /// storing or publishing anything for the whole run.
    @Test("an outbox that cannot be opened holds fleetd before READY, says why in STATUS=, and fleetd continues once it opens")
    func noReadyWithoutOutbox() async throws {
        let harness = try await FleetHarness(scenario: scenario, configuration: config, startFleetd: false)
        defer { harness.stop() }
        let later = harness.directory + "/later"
        try (config + "\n[outbox]\npath = \(later)/outbox.db\n").write(toFile: harness.configPath, atomically: true, encoding: .utf8)
        let notify = try harness.spawnDaemon()
        let status = try await offPool {
            try notify.wait(until: "STATUS=no outbox…", timeout: .seconds(30)) { $0.hasPrefix("STATUS=no outbox: cannot open \(later)/outbox.db") }
        }
        #expect(status.contains("not ready"), "\(status)")
        // Its second attempt (1 s later) has failed too, and still no READY=1.
        try await offPool { try notify.wait(until: "a second attempt", timeout: .seconds(30)) { $0.hasPrefix("STATUS=no outbox") && $0.contains("attempt 2") } }
        #expect(!notify.received.contains { $0.split(separator: "\n").contains("READY=1") }, "\(notify.received)")
        try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: false)
        try await harness.waitForNotification("READY=1")
        let ids = self.ids
        try await harness.waitFor("all ready", SupervisorScenarioTests.allReady(ids))
        _ = try await harness.watch { events in Self.notificationCounts(events).count == ids.count }
        #expect(try await harness.signalDaemon(SIGTERM) == 0)
        let outbox = try Outbox(path: later + "/outbox.db")
        defer { outbox.close() }
        #expect(outbox.lastCommittedID > 0, "readings are stored in the outbox that opened late")
        #expect(harness.log().contains("outbox unavailable, start-up waits for it"))
    }

    /// Issue 41, point 5: before, the writer retried the corrupt commit for ever while the watchdog was fed; after
    /// 100 000 pending readings every new one was discarded, and fleetd looked healthy.
    @Test("a corrupt outbox met at run time stops fleetd with status 1; the restart moves it aside and stores again, in a new epoch")
    func corruptAtRunTimeRestarts() async throws {
        let harness = try await FleetHarness(scenario: scenario, configuration: config)
        defer { harness.stop() }
        let ids = self.ids
        try await harness.waitFor("all ready", SupervisorScenarioTests.allReady(ids))
        _ = try await harness.watch { events in Self.notificationCounts(events).count == ids.count }
        // Read, not opened as an Outbox: an open would record itself as the running one.
        let epochBefore = try SQLiteDatabase(path: harness.outboxPath, flags: [.readOnly]).scalar("SELECT value FROM outbox_marks WHERE name = 'epoch'")
        // The readings table's root now points past the end of the file, as a damaged b-tree would: every
        // connection meets it at its next statement on that table, fleetd's writer at its next commit.
        let other = try SQLiteDatabase(path: harness.outboxPath)
        guard case .integer(let version)? = try other.pragma("schema_version") else { throw TestKitError("no schema_version") }
        try other.execute("PRAGMA writable_schema = ON")
        try other.execute("UPDATE sqlite_schema SET rootpage = 1000000 WHERE name = 'readings'")
        try other.execute("PRAGMA schema_version = \(version + 1)")
        try other.execute("PRAGMA writable_schema = OFF")
        let fleetd = try #require(harness.fleetd)
        let code = try await offPool { fleetd.wait(timeout: .seconds(60)) }
        #expect(code == 1, "fleetd's exit status; log:\n\(harness.log())")
        #expect(harness.log().contains("outbox failed:"), "\(harness.log())")

        try await harness.startDaemon()
        try await harness.waitFor("all ready again", SupervisorScenarioTests.allReady(ids))
        _ = try await harness.watch { events in Self.notificationCounts(events).count == ids.count }
        #expect(try await harness.signalDaemon(SIGTERM) == 0)
        #expect(harness.log().contains("moved aside to"), "\(harness.log())")
        let outbox = try Outbox(path: harness.outboxPath)
        defer { outbox.close() }
        let stored = try {
            var all: [StoredReading] = []
            var cursor: Int64 = 0
            while true {
                let page = try outbox.read(after: cursor, limit: 1000)
                all += page.readings
                cursor = page.next
                if page.reachedEnd { return all }
            }
        }()
        #expect(!stored.isEmpty)
        #expect(epochBefore != nil && .integer(outbox.epoch.current) != epochBefore)
        #expect(stored.allSatisfy { $0.epoch == outbox.epoch.current })
    }
}
