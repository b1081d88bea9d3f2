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
        for id in ids {
            let mine = stored.filter { $0.device == id }
            #expect(mine.map(\.seq) == (0..<mine.count).map { Int64($0) + 1 }, "\(id): \(mine.map(\.seq))")
            #expect(mine.contains { $0.reading.wallNanoseconds < killedAt }, "\(id): nothing committed before the kill")
            #expect(mine.contains { $0.reading.wallNanoseconds > killedAt }, "\(id): nothing stored after the restart")
            #expect(mine.allSatisfy { $0.reading.kind == .notification || $0.reading.kind == .read })
            #expect(mine.allSatisfy { $0.reading.session > 0 }, "every reading carries its link session")
        }
    }
}
