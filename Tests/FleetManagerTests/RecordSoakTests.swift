import FleetPlatform
import FleetTestKit
import Foundation
import Policy
import Testing

/// The meter soak (issue 37): three simulated glucose meters holding stored records, and faults drawn from a seed —
/// transfers cut after K records, links dropped, fleetd SIGKILLed while the meters take new records, batteries
/// changed (the numbering and the clock start again). At the end every record each meter ever held is in fleetd's
/// outbox exactly once, in the meter's order. `make test` runs seed 1; `FLEET_RECORD_SOAK_SEED` and
/// `FLEET_RECORD_SOAK_ROUNDS` choose others (`scripts/record-soak SEEDS…` runs several and prints the figures).
@Suite("meter soak: stored records under cut transfers, drops, fleetd kills and battery changes", .serialized)
struct RecordSoakTests {
    struct Meter {
        let label: String
        let id: String
        let address: String
        let records: Int
    }

    static let meters = [Meter(label: "m1", id: "addr-C8B21E000101", address: "C8:B2:1E:00:01:01", records: 60),
                         Meter(label: "m2", id: "addr-C8B21E000102", address: "C8:B2:1E:00:01:02", records: 25),
                         Meter(label: "m3", id: "addr-C8B21E000103", address: "C8:B2:1E:00:01:03", records: 8)]

    static var scenario: String {
        "adapters 1\ncapacity 5\n" + meters.map {
            "device \($0.label) address=\($0.address) name=\"Meter \($0.label)\" profile=glucose-meter records=\($0.records) record-pace=0.005 interval=0.2"
        }.joined(separator: "\n")
    }

    static var configuration: String {
        "[adapters]\ncapacity = 5\n" + meters.map { "[device \"\($0.id)\"]\nname = Meter \($0.label)\n" }.joined(separator: "\n")
    }

    /// How many syncs of `meter` fleetd has logged as complete (across its restarts: the log is appended to).
    static func completeSyncs(_ h: FleetHarness, _ meter: Meter) -> Int {
        h.log().components(separatedBy: "\(meter.id): glucose record sync complete").count - 1
    }

    /// A complete sync of `meter` since the `after`-th, and every record it holds committed to the outbox.
    static func synced(_ h: FleetHarness, _ meter: Meter, after: Int) async throws -> Bool {
        guard completeSyncs(h, meter) > after else { return false }
        let stored = Set(try await RecordSyncFleetdTests.storedRecords(h, meter.id))
        return try await RecordSyncFleetdTests.held(h, meter.label).allSatisfy(stored.contains)
    }

    @Test("every record each meter ever held is in the outbox once, in the meter's order")
    func soak() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = UInt64(environment["FLEET_RECORD_SOAK_SEED"] ?? "") ?? 1
        let rounds = Int(environment["FLEET_RECORD_SOAK_ROUNDS"] ?? "") ?? 10
        var random = SplitMix64(seed: seed)
        let h = try await FleetHarness(scenario: Self.scenario, configuration: Self.configuration)
        defer { h.stop() }
        for meter in Self.meters {
            try await waitUntil("\(meter.label) synced once", timeout: .seconds(60)) { try await Self.synced(h, meter, after: 0) }
        }
        // What each meter held before its battery changes: its memory no longer has them, the outbox must.
        var earlier: [String: [String]] = [:]
        var faults: [String: Int] = [:]
        for round in 0..<rounds {
            let meter = Self.meters[Int(random.next() % UInt64(Self.meters.count))]
            let before = Self.completeSyncs(h, meter)
            let kind = ["cut-transfer", "drop-link", "kill-while-away", "battery-change"][Int(random.next() % 4)]
            faults[kind, default: 0] += 1
            switch kind {
            case "cut-transfer":
                // The next transfer ends after K records; the link is dropped so that a transfer starts.
                _ = try await h.sim("SetRACPDropAfter", [.string(meter.label), .uint32(UInt32(random.next() % 5))])
                _ = try await h.sim("DropLink", [.string(meter.label)])
            case "drop-link":
                _ = try await h.sim("DropLink", [.string(meter.label)])
            case "kill-while-away":
                // Records taken while fleetd is down reach it only through the RACP once it is back.
                try await h.killDaemon(signal: SIGKILL)
                for _ in 0..<(1 + Int(random.next() % 3)) { _ = try await h.sim("TakeRecord", [.string(meter.label)]) }
                try await h.startDaemon()
            default:
                try await h.killDaemon(signal: SIGKILL)
                earlier[meter.label, default: []] += try await RecordSyncFleetdTests.held(h, meter.label)
                _ = try await h.sim("ResetSequence", [.string(meter.label)])
                for _ in 0..<(1 + Int(random.next() % 3)) { _ = try await h.sim("TakeRecord", [.string(meter.label)]) }
                try await h.startDaemon()
            }
            do {
                // Synced means committed: a fleetd killed in the next round before its commit (the commit delay) loses
                // what it received, and a battery change then would take the meter's copy too (docs/records.md bounds).
                try await waitUntil("round \(round) (\(kind) of \(meter.label)): a complete sync after it, its records committed",
                                    timeout: .seconds(60)) { try await Self.synced(h, meter, after: before) }
            } catch {
                throw TestKitError("seed \(seed): \(error)\n--- fleetd log (tail) ---\n\(h.log().suffix(3000))")
            }
        }
        var records = 0, identical = 0
        for meter in Self.meters {
            // A record byte for byte like one held before a battery change (same number, the clock back at the same
            // default and the record taken at once, the same value) is the same record to anyone reading the bytes:
            // the outbox keeps it once, as docs/records.md says, so the expectation does too.
            var expected: [String] = []
            for record in (earlier[meter.label] ?? []) + (try await RecordSyncFleetdTests.held(h, meter.label)) {
                if expected.contains(record) { identical += 1 } else { expected.append(record) }
            }
            records += expected.count
            do {
                try await waitUntil("\(meter.label): every record in the outbox", timeout: .seconds(60)) {
                    try await RecordSyncFleetdTests.storedRecords(h, meter.id).count >= expected.count
                }
            } catch {
                let stored = try await RecordSyncFleetdTests.storedRecords(h, meter.id)
                let lines = h.log().split(separator: "\n").filter { $0.contains(meter.id) && $0.contains("record sync") }.suffix(12)
                throw TestKitError("seed \(seed): \(error): \(stored.count) stored for \(expected.count) held (\(earlier[meter.label]?.count ?? 0) before battery changes)\nmissing: \(expected.filter { !stored.contains($0) })\nextra: \(stored.filter { !expected.contains($0) })\n\(lines.joined(separator: "\n"))")
            }
            let stored = try await RecordSyncFleetdTests.storedRecords(h, meter.id)
            #expect(stored == expected, "seed \(seed), \(meter.label): \(stored.count) stored for \(expected.count) held; first difference at \(Array(zip(stored, expected)).firstIndex { $0.0 != $0.1 } ?? min(stored.count, expected.count))")
        }
        let metrics = try await h.fleetctl(["metrics"]).stdout.split(separator: "\n")
        let figures = metrics.filter { $0.hasPrefix("fleetd_record") }.joined(separator: "; ")
        print("meter soak seed \(seed): \(rounds) rounds \(faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); \(records) records, each once (\(identical) byte-identical to one before a battery change, kept once); the last fleetd run's counters: \(figures)")
    }
}
