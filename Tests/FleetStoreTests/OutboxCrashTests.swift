import FleetStore
import FleetTestKit
import Foundation
import Testing

@Suite("Outbox across SIGKILL")
struct OutboxCrashTests {
    @Test("a writer SIGKILLed mid-stream five times loses no committed reading and leaves no sequence gap")
    func killedWriter() async throws {
        let fixture = try StoreFixture()
        let devices = 200
        let executable = BuildProducts.path("outbox-crash-writer")
        try #require(FileManager.default.isExecutableFile(atPath: executable), "build the test products first: \(executable)")
        var reportedCommitted: [Int64] = []
        for round in 0..<5 {
            let log = fixture.directory.path + "/round-\(round).log"
            let child = try ChildProcess(executable, [fixture.path, "\(round)", "\(devices)", log],
                                         stderr: fixture.directory.path + "/round-\(round).stderr")
            // Kill it at a different point each round: after 3, 6, 9… committed batches.
            let batches = 3 * (round + 1)
            try await waitUntil("round \(round): \(batches) committed batches", timeout: .seconds(30)) {
                guard child.isRunning else { throw TestKitError("the writer exited early: \(child.wait())") }
                return committedIDs(log).count >= batches
            }
            try child.kill(signal: SIGKILL)
            #expect(child.wait() == 128 + SIGKILL)
            reportedCommitted.append(committedIDs(log).max() ?? 0)
        }

        let outbox = try Outbox(path: fixture.path)
        defer { outbox.close() }
        let stored = try allStored(outbox)
        let lastID = try #require(stored.last?.id)
        // Every reading the writers saw committed is there, and ids have no hole.
        #expect(lastID >= reportedCommitted.max()!)
        #expect(stored.map(\.id) == Array(1...lastID))
        var rounds: [String: [Int: [Int]]] = [:]
        for reading in stored {
            let parts = String(decoding: reading.reading.value, as: UTF8.self).dropFirst().split(separator: ":")
            rounds[reading.device, default: [:]][Int(parts[0])!, default: []].append(Int(parts[1])!)
        }
        #expect(rounds.count == devices)
        for (device, readings) in Dictionary(grouping: stored, by: \.device) {
            // Per device: 1, 2, 3… with no gap and no duplicate across every kill.
            #expect(readings.map(\.seq) == Array(1...Int64(readings.count)), "device \(device)")
            // Within each run, the device's values are its appends 0, 1, 2… in order: a committed batch never
            // lost a reading in its middle; only each run's uncommitted tail is missing.
            for (round, counters) in rounds[device]! {
                #expect(counters == Array(0..<counters.count), "device \(device) round \(round)")
            }
        }
        // Each kill's committed prefix is intact.
        for (round, committed) in reportedCommitted.enumerated() {
            let runReadings = stored.filter { $0.reading.session == Int64(round) }
            #expect((runReadings.last?.id ?? 0) >= committed, "round \(round) reported \(committed) committed")
        }
    }

    func committedIDs(_ log: String) -> [Int64] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { Int64($0) }
    }
}
