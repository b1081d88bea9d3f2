import FleetCLI
import FleetProtocol
import FleetManager
import FleetTestKit
import Foundation
import Supervision
import Testing

/// fleetd's lifecycle events in a real journald, with their MESSAGE_IDs and FLEET_* fields.
@Suite("fleetd's journal events", .serialized)
struct SupervisorJournalTests {
    @Test("ready, connect and backoff events carry MESSAGE_ID and FLEET_DEVICE/ADAPTER/FAILURES/DELAY_MS")
    func journalFields() async throws {
        try TestJournal.start()
        let harness = try await FleetHarness(scenario: "adapters 1\n" + SupervisorScenarioTests.straps(1),
                                             configuration: SupervisorScenarioTests.wanted(1...1), logTarget: "journal")
        defer { harness.stop() }
        let id = SupervisorScenarioTests.id(1)
        try await harness.waitFor("ready", SupervisorScenarioTests.allReady([id]))
        try await harness.sim("DropLink", [.string("s1")])
        let pid = String(harness.fleetd?.pid ?? 0)
        try await waitUntil("a backoff entry in the journal") {
            ((try? await TestJournal.entries(matching: "MESSAGE_ID=\(FleetMessageID.backoffScheduled.rawValue)")) ?? [])
                .contains { $0["FLEET_DEVICE"] as? String == id && $0["_PID"] as? String == pid }
        }
        let ready = try await TestJournal.entries(matching: "MESSAGE_ID=\(FleetMessageID.ready.rawValue)").filter { $0["_PID"] as? String == pid }
        let first = try #require(ready.first)
        #expect(first["FLEET_DEVICE"] as? String == id)
        #expect(first["FLEET_ADAPTER"] as? String == "hci0")
        #expect(first["FLEET_ADDRESS"] as? String == "A0:00:00:00:00:01")
        #expect(first["SYSLOG_IDENTIFIER"] as? String == "fleetd")
        let backoff = try await TestJournal.entries(matching: "MESSAGE_ID=\(FleetMessageID.backoffScheduled.rawValue)").filter { $0["_PID"] as? String == pid }
        let entry = try #require(backoff.first)
        // The strap was ready: its drop is a session that ended, not a failure against the budget.
        #expect(entry["FLEET_FAILURES"] as? String == "0")
        #expect(entry["FLEET_ATTEMPT"] == nil, "a backoff carries failures, not the attempt")
        #expect(Int(entry["FLEET_DELAY_MS"] as? String ?? "") != nil)
        #expect(entry["FLEET_REASON"] as? String == "link-dropped")
        #expect(entry["PRIORITY"] as? String == "6")
    }
}
