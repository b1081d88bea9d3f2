import FleetProtocol
import FleetStore
import FleetTestKit
import Foundation
import Testing

/// fleetd's outbox under the two faults a gateway meets: a full disk, and SIGKILLs while 200 devices notify
/// and a named consumer reads. Real fleetd on the simulator, real SQLite files; every wait has a deadline.
@Suite("fleetd's outbox under faults", .serialized)
struct OutboxUnderFaultsTests {
    /// Per device, the stored readings' seq in id order.
    static func storedSequences(_ path: String) throws -> (sequences: [String: [Int64]], readings: [StoredReading]) {
        let outbox = try Outbox(path: path)
        defer { outbox.close() }
        var stored: [StoredReading] = []
        var cursor: Int64 = 0
        while true {
            let page = try outbox.read(after: cursor, limit: 2000)
            stored += page.readings
            cursor = page.next
            if page.reachedEnd { break }
        }
        var sequences: [String: [Int64]] = [:]
        for reading in stored { sequences[reading.device, default: []].append(reading.seq) }
        return (sequences, stored)
    }

    static func outboxStatus(_ h: FleetHarness) async throws -> [String: JSONValue] {
        try #require(try await h.call(.status)["outbox"]?.objectValue)
    }

    @Test("a full disk: fleetd keeps supervising, reports the failure, loses no committed reading, and recovers when space returns",
          .enabled(if: SmallFilesystem.isPermitted, "skipped: mount -t tmpfs is not permitted here (needs root or CAP_SYS_ADMIN)"))
    func fullDisk() async throws {
        let disk = try SmallFilesystem(size: "1m")
        let outboxPath = disk.path + "/readings.db"
        let ids = (1...3).map(SupervisorScenarioTests.id)
        let config = SupervisorScenarioTests.wanted(1...3) + "\n[outbox]\npath = \(outboxPath)\ncommit-delay = 50ms\n"
        let h = try await FleetHarness(scenario: "adapters 1\n" + SupervisorScenarioTests.straps(3), configuration: config)
        defer { h.stop() }
        try await h.waitFor("all ready", SupervisorScenarioTests.allReady(ids))
        try await waitUntil("readings committed", timeout: .seconds(30)) {
            ((try? await Self.outboxStatus(h))?["lastCursor"]?.intValue ?? 0) >= 12
        }

        let filler = try disk.fill()
        try await waitUntil("the outbox reports the failure", timeout: .seconds(30)) {
            (try? await Self.outboxStatus(h))?["failing"]?.boolValue == true
        }
        let failing = try await Self.outboxStatus(h)
        let committedBefore = try #require(failing["lastCursor"]?.intValue)
        #expect(failing["lastError"]?.stringValue?.isEmpty == false, "\(failing)")
        #expect(h.log().contains("outbox write failed"), "logged")
        let metrics = try await h.call(.metrics)["text"]?.stringValue ?? ""
        #expect(metrics.contains("fleetd_outbox_failing 1"), "the metric shows it")

        // Still supervising: a link taken down by the device comes back while the disk is full.
        // fleetd hears the drop behind its signal batch, so "all ready" straight after DropLink could be the view
        // from before it (session 21). A new link in the simulator means fleetd heard the drop and connected again.
        let linksBefore = try await h.counters(device: "s1")["LinksUp"] ?? 0
        try await h.sim("DropLink", [.string("s1")])
        try await waitUntil("s1 linked again", timeout: .seconds(30)) { ((try? await h.counters(device: "s1"))?["LinksUp"] ?? 0) > linksBefore }
        try await h.waitFor("s1 back to ready with the disk full", timeout: .seconds(30), SupervisorScenarioTests.allReady(ids))
        #expect(try await h.call(.status)["daemon"]?.objectValue?["state"]?.stringValue == "running")
        try await waitUntil("readings held in memory", timeout: .seconds(30)) {
            ((try? await Self.outboxStatus(h))?["pending"]?.intValue ?? 0) >= 6
        }

        // Space returns: the held readings are committed and new ones follow.
        try FileManager.default.removeItem(atPath: filler)
        try await waitUntil("writes resume", timeout: .seconds(30)) {
            guard let status = try? await Self.outboxStatus(h) else { return false }
            return status["failing"]?.boolValue == false && (status["lastCursor"]?.intValue ?? 0) > committedBefore
        }
        #expect(h.log().contains("outbox writes resumed"))
        #expect(try await h.signalDaemon(SIGTERM) == 0)

        let (sequences, readings) = try Self.storedSequences(outboxPath)
        #expect(readings.map(\.id) == (1...Int64(readings.count)).map { $0 }, "every committed id kept, none skipped")
        #expect(readings.count > committedBefore)
        for id in ids {
            let seqs = sequences[id] ?? []
            #expect(!seqs.isEmpty && seqs == (1...Int64(seqs.count)).map { $0 }, "\(id): no reading lost while the disk was full: \(seqs)")
        }
    }

    @Test("SIGKILL three times while 200 devices notify: per device 1, 2, 3… with no gap and no duplicate across every kill, and every value sent before the last committed batch")
    func repeatedKillsWithConsumer() async throws {
        let count = 200, kills = 3
        // Four adapters of 50 links (the simulator's controllers hold at most 64). Each device notifies its own
        // numbered stream (`profile=sequence`: 0, 1, 2… every 250 ms), so a value tells which notification it is.
        var scenario = "adapters 4\ncapacity 50\n"
        var config = "[adapters]\ncapacity = 50\n"
        var ids: [String] = []
        for i in 0..<count {
            let address = String(format: "C1:00:00:00:%02X:%02X", i / 256, i % 256)
            ids.append("addr-" + address.replacingOccurrences(of: ":", with: ""))
            scenario += "device n\(i) address=\(address) name=\"Node \(i)\" profile=sequence interval=5\n"
            config += "[device \"\(ids[i])\"]\nclass = critical\nsubscribe = \(Self.sequenceCharacteristic)\n"
        }
        let h = try await FleetHarness(scenario: scenario, configuration: config)
        defer { h.stop() }
        try await h.waitFor("\(count) devices ready", timeout: .seconds(240)) { devices in
            devices.values.filter { $0["state"]?.stringValue == "ready" }.count == count
        }

        // Each run: the named consumer reads while the values flow, then fleetd is killed under it and started
        // again on the same store, and the consumer resumes where it acknowledged. A run lasts until the consumer
        // has been shown 2000 values committed in it (about 2.5 s of the fleet's values), so every run carries
        // fresh traffic, not only the replay of what the consumer had not acknowledged. The last run ends cleanly.
        var killedAt: [Int64] = []
        var outputs: [String] = []
        for run in 0...kills {
            let output = h.directory + "/consumer-\(run).jsonl"
            outputs.append(output)
            let runStart = try #require(try await Self.outboxStatus(h)["lastCursor"]?.intValue)
            let consumer = try ChildProcess(BuildProducts.path("fleetctl"),
                                            ["--socket", h.socketPath, "watch", "--consumer", "archiver", "--json", "--timeout", "600"],
                                            environment: ["NO_COLOR": "1"], stdout: output, stderr: h.directory + "/consumer-\(run).err")
            let printed = ConsumerOutput(path: output)
            do {
                try await waitUntil("the consumer shown 2000 values of run \(run)", timeout: .seconds(120)) {
                    printed.lastCursor() >= runStart + 2000
                }
            } catch {
                try? consumer.kill(signal: SIGKILL)
                throw error
            }
            guard run < kills else {
                try consumer.kill(signal: SIGKILL)
                _ = try await offPool { consumer.wait(timeout: .seconds(20)) }
                break
            }
            try await h.killDaemon(signal: SIGKILL)
            killedAt.append(Int64(Date().timeIntervalSince1970 * 1e9))
            if try await offPool({ consumer.wait(timeout: .seconds(20)) }) == nil { try? consumer.kill(signal: SIGKILL) }
            try await h.startDaemon(readyTimeout: .seconds(120))
        }
        #expect(try await h.signalDaemon(SIGTERM) == 0)
        var sent: [String: Int64] = [:]
        for (i, id) in ids.enumerated() { sent[id] = try await h.counters(device: "n\(i)")["NotificationsSent"] ?? 0 }

        // The store, per device: 1, 2, 3… with no gap and no duplicate across the kills; within each run of fleetd
        // the values are consecutive notifications (nothing lost between two committed values), the first run
        // starts at the first value sent, and each later run starts after the last value of the one before. So
        // every value sent before a run's last committed value is stored; only what followed it (the batch not
        // committed yet, and what was still on its way to fleetd) is lost at a kill, and that is bounded.
        let (sequences, readings) = try Self.storedSequences(h.outboxPath)
        var storedByPlace: [String: [Int64: StoredReading]] = [:]
        var values: [String: [[Int64]]] = [:]
        for reading in readings {
            storedByPlace[reading.device, default: [:]][reading.seq] = reading
            let run = killedAt.filter { $0 < reading.reading.wallNanoseconds }.count
            var runs = values[reading.device] ?? Array(repeating: [], count: kills + 1)
            runs[run].append(reading.reading.value.reduce(Int64(0)) { $0 << 8 | Int64($1) })
            values[reading.device] = runs
        }
        var lostAtKills: [Int64] = []
        for id in ids {
            let seqs = sequences[id] ?? []
            #expect(!seqs.isEmpty && seqs == (1...Int64(seqs.count)).map { $0 }, "\(id): stored sequence has a gap or a duplicate: \(seqs.prefix(8))…")
            // The number after the last value stored so far; a run with nothing stored (all of it lost at the kill
            // that ended it) leaves it, and the next run's loss then spans both kills.
            var next: Int64 = 0
            var runsSinceStored = 0
            for (run, numbers) in (values[id] ?? []).enumerated() {
                guard let first = numbers.first, let last = numbers.last else {
                    runsSinceStored += 1
                    continue
                }
                #expect(DurableWatchAgainstFleetdTests.isConsecutive(numbers.map(Int.init)),
                        "\(id), run \(run): a value lost between two stored ones: \(numbers)\n\(Self.story(of: id, readings, h))")
                if run == 0 {
                    #expect(first == 0, "\(id): the first value stored is not the first sent: \(numbers.prefix(4))\n\(Self.story(of: id, readings, h))")
                } else {
                    #expect(first >= next, "\(id), run \(run): a value stored twice across a kill: \(next - 1) then \(first)")
                    lostAtKills.append((first - next) / Int64(runsSinceStored + 1))
                }
                next = last + 1
                runsSinceStored = 0
            }
            let tail = (sent[id] ?? 0) - next
            #expect(tail >= 0 && tail <= 40, "\(id): the simulator sent \(sent[id] ?? 0) values, the store ends at \(next - 1)")
        }
        // Lost at a kill: at most the uncommitted batch (100 ms) and what fleetd had not read yet; 40 is 10 s of values.
        #expect((lostAtKills.max() ?? 0) <= 40, "values lost at a kill, per device: worst \(lostAtKills.max() ?? 0), total \(lostAtKills.reduce(0, +))")

        // The consumer, across every kill: what it was shown is exactly what is stored under that device and
        // sequence number (a number never names two values), each run resumes no later than one past what it
        // had seen, and together the runs cover 1, 2, 3… with no gap.
        var seen: [String: Set<Int>] = [:]
        for (run, output) in outputs.enumerated() {
            let events = try DurableWatchAgainstFleetdTests.events((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
            #expect(events.count >= 2000, "run \(run): the consumer printed \(events.count) values")
            for (device, seqs) in DurableWatchAgainstFleetdTests.sequences(events) {
                #expect(DurableWatchAgainstFleetdTests.isConsecutive(seqs), "run \(run), \(device): \(seqs.prefix(8))…")
                let lastSeen = seen[device]?.max() ?? 0
                #expect((seqs.first ?? 1) <= lastSeen + 1, "run \(run), \(device): a gap across the kill: saw up to \(lastSeen), then \(seqs.prefix(4))…")
                seen[device, default: []].formUnion(seqs)
            }
            for event in events {
                guard let device = event["device"]?.stringValue, let seq = event["deviceSequence"]?.intValue else { continue }
                let stored = storedByPlace[device]?[Int64(seq)]
                #expect(stored != nil && Int64(event["cursor"]?.intValue ?? -1) == stored?.id
                            && event["value"]?.stringValue == stored.map { HexBytes.encode($0.reading.value) },
                        "run \(run): \(device) #\(seq) was shown as cursor \(event["cursor"]?.intValue ?? -1) value \(event["value"]?.stringValue ?? "?"), stored as \(stored.map { "\($0.id) \(HexBytes.encode($0.reading.value))" } ?? "nothing")")
            }
        }
        for (device, seqs) in seen {
            #expect(seqs == Set(1...(seqs.max() ?? 1)), "\(device): the consumer's runs together miss \(Set(1...(seqs.max() ?? 1)).subtracting(seqs).sorted().prefix(8))")
        }
    }

    /// What to look at when a device's values are not as they should be: its first stored readings and what
    /// fleetd logged about it.
    static func story(of id: String, _ readings: [StoredReading], _ h: FleetHarness) -> String {
        let first = readings.filter { $0.device == id }.prefix(6).map { "#\($0.seq) \(HexBytes.encode($0.reading.value)) session \($0.reading.session) at \($0.reading.wallNanoseconds)" }
        let logged = h.log().split(separator: "\n").filter { $0.contains(id) }.prefix(20)
        return "stored: \(first.joined(separator: "; "))\nfleetd said:\n" + logged.joined(separator: "\n")
    }

    /// `GattProfile.sequenceCharacteristic`: the simulator's numbered stream.
    static let sequenceCharacteristic = "f1ee7001-0000-4000-8000-00805f9b34fb"
}

/// What a `fleetctl watch --json` child has printed so far: the cursor of its last complete line, reading only
/// what was added since the last look (a wait polls it every few milliseconds).
final class ConsumerOutput: @unchecked Sendable {
    let path: String
    private var offset: UInt64 = 0
    private var partial = Data()
    private var cursor = 0

    init(path: String) { self.path = path }

    func lastCursor() -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { return cursor }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        let data = handle.readDataToEndOfFile()
        offset += UInt64(data.count)
        partial.append(data)
        guard let end = partial.lastIndex(of: UInt8(ascii: "\n")) else { return cursor }
        let lines = partial[..<end].split(separator: UInt8(ascii: "\n"))
        partial = Data(partial[(end + 1)...])
        if let line = lines.last, let event = try? JSONDecoder().decode(JSONValue.self, from: Data(line)),
           let value = event.objectValue?["cursor"]?.intValue {
            cursor = value
        }
        return cursor
    }
}
