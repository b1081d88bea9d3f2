import FleetPlatform
import FleetTestKit
import Foundation
import Testing

/// fleetd syncing a simulated glucose meter's stored records through its RACP (issue 37, docs/records.md): every
/// record reaches the outbox exactly once, in the device's order, across a link dropped mid-transfer, a re-sync
/// and new records taken while away.
@Suite("record sync against fleetd", .serialized)
struct RecordSyncFleetdTests {
    static let meter = "addr-C8B21E000031"
    static let configuration = "[device \"\(meter)\"]\nname = Meter\n"

    static func scenario(records: Int, extra: String = "", faults: String = "") -> String {
        """
        adapters 1
        device m1 address=C8:B2:1E:00:00:31 name="Meter" profile=glucose-meter records=\(records) record-pace=0.005 interval=0.2 \(extra)
        \(faults)
        """
    }

    /// The meter's 2A18 values in the outbox, in cursor order, as hex.
    static func storedRecords(_ h: FleetHarness, _ device: String = meter) async throws -> [String] {
        let out = try await h.fleetctl(["--json", "readings", device, "--limit", "10000"]).stdout
        let page = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        let readings = page?["readings"] as? [[String: Any]] ?? []
        return readings.filter { ($0["characteristic"] as? String)?.hasPrefix("00002a18") == true }.compactMap { $0["value"] as? String }
    }

    /// What the meter holds, in sequence order (the simulator's `StoredRecords`), as hex.
    static func held(_ h: FleetHarness, _ label: String = "m1") async throws -> [String] {
        let reply = try await h.sim("StoredRecords", [.string(label)])
        guard case .array(_, let records)? = reply.first else { throw TestKitError("StoredRecords answered \(reply)") }
        return records.compactMap { record in
            guard case .bytes(let bytes) = record else { return nil }
            return bytes.map { String(format: "%02x", $0) }.joined()
        }
    }

    @Test("200 stored records, the link dropped after the third: every record once, in order, and the mark survives")
    func dropMidTransferThenResync() async throws {
        let h = try await FleetHarness(scenario: Self.scenario(records: 200, faults: "at 0 racp-drop-after m1 3"), configuration: Self.configuration)
        defer { h.stop() }
        let held = try await Self.held(h)
        #expect(held.count == 200)
        try await waitUntil("all 200 records in the outbox", timeout: .seconds(60)) { try await Self.storedRecords(h).count >= 200 }
        try await waitUntil("a sync ended complete", timeout: .seconds(30)) { h.log().contains("glucose record sync complete") }
        let stored = try await Self.storedRecords(h)
        #expect(stored == held, "exactly the meter's records, once each, in its order (\(stored.count) stored)")
        let log = h.log()
        #expect(log.contains("glucose record sync link-lost"), "the first transfer was cut: \(log.suffix(2000))")
        let metrics = try await h.fleetctl(["metrics"]).stdout
        // The second link asked for all records again (the first sync set no mark: with none, nothing is marked
        // before the end), so the first three came twice: suppressed, not stored.
        #expect(metrics.contains("fleetd_record_duplicates_suppressed_total 3"), "\(metrics.split(separator: "\n").filter { $0.contains("record") })")

        // A record taken while linked is notified live and stored (outside a transfer it moves no mark); the next link
        // asks for ≥ the mark, 200, and gets 200 (the anchor) and 201 again: both suppressed.
        _ = try await h.sim("TakeRecord", [.string("m1")])
        try await waitUntil("the new record stored", timeout: .seconds(30)) { try await Self.storedRecords(h).count == 201 }
        _ = try await h.sim("DropLink", [.string("m1")])
        try await waitUntil("a second complete sync", timeout: .seconds(60)) {
            h.log().components(separatedBy: "glucose record sync complete").count >= 3
        }
        #expect(try await Self.storedRecords(h) == Self.held(h), "still every record once")
        #expect(h.log().contains("asking for records from 200 on"), "the sync started from the mark: \(h.log().suffix(1500))")
        #expect(try await h.fleetctl(["metrics"]).stdout.contains("fleetd_record_duplicates_suppressed_total 5"))
        #expect(!h.log().contains("malformed_answers"), "BlueZ's echo of each written request is no answer")

        // What an operator sees: the mark, the records on the meter, the last outcome, the duplicates.
        let json = try await h.fleetctl(["--json", "records", Self.meter]).stdout
        let reply = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let glucose = (reply?["services"] as? [[String: Any]])?.first
        #expect(glucose?["service"] as? String == "glucose" && glucose?["mark"] as? Int == 201 && glucose?["storedOnDevice"] as? Int == 201,
                "\(json)")
        #expect(glucose?["lastOutcome"] as? String == "complete" && glucose?["duplicatesSuppressed"] as? Int == 5, "\(json)")
        let table = try await h.fleetctl(["records", Self.meter]).stdout
        #expect(table.contains("SERVICE") && table.contains("glucose") && table.contains("201") && table.contains("complete"), "\(table)")
    }

    @Test("a meter that ignores ≥ and sends its whole history, and one without ≥: nothing stored twice")
    func wholeHistoryAndNoGreaterOrEqual() async throws {
        for quirk in ["whole-history", "no-greater-or-equal"] {
            let h = try await FleetHarness(scenario: Self.scenario(records: 20, extra: "racp=\(quirk)"), configuration: Self.configuration)
            defer { h.stop() }
            try await waitUntil("\(quirk): a sync complete", timeout: .seconds(60)) { h.log().contains("glucose record sync complete") }
            _ = try await h.sim("TakeRecord", [.string("m1")])
            _ = try await h.sim("DropLink", [.string("m1")])
            try await waitUntil("\(quirk): a second sync complete", timeout: .seconds(60)) {
                h.log().components(separatedBy: "glucose record sync complete").count >= 3
            }
            let stored = try await Self.storedRecords(h), held = try await Self.held(h)
            #expect(held.count == 21)
            #expect(stored == held, "\(quirk): \(stored.count) stored for \(held.count) held")
        }
    }

    @Test("a sequence reset (battery out): the new record 1 is stored beside the old one, the reset logged and counted")
    func sequenceReset() async throws {
        let h = try await FleetHarness(scenario: Self.scenario(records: 5), configuration: Self.configuration)
        defer { h.stop() }
        try await waitUntil("5 records", timeout: .seconds(60)) { try await Self.storedRecords(h).count == 5 }
        try await waitUntil("a sync complete", timeout: .seconds(30)) { h.log().contains("glucose record sync complete") }
        let before = try await Self.held(h)
        // Memory cleared, numbering from 1, the clock reset; the link drops (the battery is out). Two new records.
        _ = try await h.sim("ResetSequence", [.string("m1")])
        _ = try await h.sim("TakeRecord", [.string("m1")])
        _ = try await h.sim("TakeRecord", [.string("m1")])
        try await waitUntil("the two new records stored", timeout: .seconds(60)) { try await Self.storedRecords(h).count == 7 }
        let after = try await Self.held(h)
        #expect(after.count == 2)
        #expect(try await Self.storedRecords(h) == before + after, "old records kept, the new ones added once")
        try await waitUntil("the reset logged", timeout: .seconds(30)) { h.log().contains("numbered its records from scratch") }
        #expect(try await h.fleetctl(["metrics"]).stdout.contains("fleetd_record_sequence_resets_total 1"))
    }
}

/// `[outbox] racp-delete = yes` (docs/records.md): after a complete sync the meter's records up to the mark are
/// deleted, once they are committed; without it nothing is (the other tests: the meter keeps all it held).
@Suite("racp-delete against fleetd", .serialized)
struct RecordDeleteFleetdTests {
    @Test("the records are committed, then deleted on the meter; the next sync is no sequence reset")
    func deletedAfterCommit() async throws {
        let h = try await FleetHarness(scenario: RecordSyncFleetdTests.scenario(records: 12),
                                       configuration: RecordSyncFleetdTests.configuration + "[outbox]\nracp-delete = yes\n")
        defer { h.stop() }
        // fleetd may have synced and deleted before this test first asks the meter (a loaded machine starts the test
        // late): the records are told by their sequence numbers (GSS Glucose Measurement octets 1–2, uint16 LE).
        try await waitUntil("the meter's memory emptied", timeout: .seconds(60)) { try await RecordSyncFleetdTests.held(h).isEmpty }
        let stored = try await RecordSyncFleetdTests.storedRecords(h)
        let numbers = stored.compactMap { hex -> Int? in
            guard hex.count >= 6, let low = Int(hex.dropFirst(2).prefix(2), radix: 16), let high = Int(hex.dropFirst(4).prefix(2), radix: 16) else { return nil }
            return low | high << 8
        }
        #expect(numbers == Array(1...12), "every deleted record is in the outbox, once: \(stored)")
        // A new record, then a new link: the count (1) is below the last sync's (12), but fleetd deleted those itself.
        _ = try await h.sim("TakeRecord", [.string("m1")])
        try await waitUntil("the new record stored", timeout: .seconds(30)) { try await RecordSyncFleetdTests.storedRecords(h).count == 13 }
        _ = try await h.sim("DropLink", [.string("m1")])
        try await waitUntil("a second complete sync", timeout: .seconds(60)) {
            h.log().components(separatedBy: "glucose record sync complete").count >= 3
        }
        #expect(!h.log().contains("reason=sequence-reset"), "a delete is no reset: \(h.log().suffix(1500))")
        #expect(try await RecordSyncFleetdTests.storedRecords(h).count == 13)
    }
}
