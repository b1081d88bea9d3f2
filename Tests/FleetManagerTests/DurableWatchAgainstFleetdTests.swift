import FleetCLI
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// The durable Watch, Acknowledge and Readings against a real fleetd on the simulator, its outbox a real SQLite
/// file: named consumers resume where they acknowledged (across their own and fleetd's restart), a consumer that
/// stops reading catches up from the store, and one that fell beyond retention is told what it lost.
@Suite("durable watch and readings against fleetd", .serialized)
struct DurableWatchAgainstFleetdTests {
    let scenario = "adapters 1\n" + SupervisorScenarioTests.straps(3)
    let ids = (1...3).map(SupervisorScenarioTests.id)

    /// The events of `fleetctl watch --json` output, one object a line.
    static func events(_ stdout: String) throws -> [[String: JSONValue]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)).objectValue)
        }
    }

    static func cursors(_ events: [[String: JSONValue]]) -> [Int] { events.compactMap { $0["cursor"]?.intValue } }

    /// Per device, the deviceSequence numbers in order of arrival.
    static func sequences(_ events: [[String: JSONValue]]) -> [String: [Int]] {
        var out: [String: [Int]] = [:]
        for event in events {
            if let device = event["device"]?.stringValue, let seq = event["deviceSequence"]?.intValue { out[device, default: []].append(seq) }
        }
        return out
    }

    static func isConsecutive(_ values: [Int]) -> Bool { zip(values, values.dropFirst()).allSatisfy { $1 == $0 + 1 } }

    @Test("a named consumer continues where it acknowledged, across its own restart and fleetd's")
    func consumerResumes() async throws {
        let h = try await FleetHarness(scenario: scenario, configuration: SupervisorScenarioTests.wanted(1...3))
        defer { h.stop() }
        try await h.waitFor("all ready", SupervisorScenarioTests.allReady(ids))

        let first = try await h.fleetctl(["watch", "--consumer", "archiver", "--count", "12", "--json", "--timeout", "30"])
        #expect(first.code == 0, "\(first)")
        let firstEvents = try Self.events(first.stdout)
        let firstCursors = Self.cursors(firstEvents)
        #expect(firstCursors.count == 12 && firstCursors.first == 1 && Self.isConsecutive(firstCursors),
                "a new consumer starts at the oldest stored value and sees every value of every device: \(firstCursors)")
        #expect(firstEvents.allSatisfy { $0["deviceSequence"]?.intValue != nil && $0["delivery"]?.stringValue != nil })

        // The consumer's restart: it goes on after what it acknowledged (fleetctl acknowledged at exit).
        let second = try await h.fleetctl(["watch", "--consumer", "archiver", "--count", "12", "--json", "--timeout", "30"])
        #expect(second.code == 0, "\(second)")
        let secondCursors = Self.cursors(try Self.events(second.stdout))
        #expect(secondCursors.first == firstCursors.last! + 1 && Self.isConsecutive(secondCursors), "\(firstCursors) then \(secondCursors)")

        // fleetd's restart (a clean stop commits the acknowledgement with the last batch).
        #expect(try await h.signalDaemon(SIGTERM) == 0)
        try await h.startDaemon()
        let third = try await h.fleetctl(["watch", "--consumer", "archiver", "--count", "12", "--json", "--timeout", "30"])
        #expect(third.code == 0, "\(third)")
        let thirdEvents = try Self.events(third.stdout)
        let thirdCursors = Self.cursors(thirdEvents)
        #expect(thirdCursors.first == secondCursors.last! + 1 && Self.isConsecutive(thirdCursors), "\(secondCursors) then \(thirdCursors)")

        // Per device, the three runs together number its values 1, 2, 3… with no gap.
        let all = try Self.events(first.stdout) + Self.events(second.stdout) + thirdEvents
        for (device, seqs) in Self.sequences(all) {
            #expect(seqs.first == 1 && Self.isConsecutive(seqs), "\(device): \(seqs)")
        }

        // Another consumer is independent; a cursor given with --since wins over the acknowledged one.
        let other = try await h.fleetctl(["watch", "--consumer", "dashboard", "--since", "5", "--count", "3", "--json", "--timeout", "30"])
        let otherCursors = Self.cursors(try Self.events(other.stdout))
        #expect(otherCursors == [6, 7, 8], "\(other)")
        let metrics = try await h.fleetctl(["metrics"])
        #expect(metrics.stdout.contains("fleetd_outbox_consumer_unacknowledged{consumer=\"archiver\"}"))
        #expect(metrics.stdout.contains("fleetd_outbox_consumer_unacknowledged{consumer=\"dashboard\"}"))
        #expect(metrics.stdout.contains("fleetd_outbox_consumer_oldest_unacknowledged_age_seconds{consumer=\"archiver\"}"))
        #expect(metrics.stdout.contains("fleetd_outbox_consumer_lost_place{consumer=\"archiver\"} 0"))
        #expect(metrics.stdout.contains("fleetd_outbox_commit_latency_mean_seconds") && metrics.stdout.contains("fleetd_outbox_bytes_written_total"))
        // Status carries the outbox: depth, commit latency, bytes written and each consumer's lag.
        let status = try await h.call(.status)
        let outbox = try #require(status["outbox"]?.objectValue)
        #expect((outbox["depth"]?.intValue ?? 0) > 0 && (outbox["bytesWritten"]?.intValue ?? 0) > 0 && outbox["failing"]?.boolValue == false)
        let consumers = outbox["consumers"]?.arrayValue?.compactMap { $0.objectValue } ?? []
        let archiver = try #require(consumers.first { $0["name"]?.stringValue == "archiver" })
        #expect(archiver["cursor"]?.intValue == thirdCursors.last && archiver["lostPlace"]?.boolValue == false)
        #expect(archiver["unacknowledged"]?.intValue.map { $0 > 0 } == (archiver["oldestUnacknowledgedSeconds"] != nil))
        let table = try await h.fleetctl(["status"])
        #expect(table.stdout.contains("COMMIT-LATENCY") && table.stdout.contains("archiver") && table.stdout.contains("dashboard"), "\(table)")
    }

    @Test("a consumer that stops reading falls behind and catches up from the store, losing nothing")
    func slowConsumerCatchesUp() async throws {
        // Short commits so that many batches pass while the consumer does not read.
        let config = "[outbox]\ncommit-delay = 10ms\n" + SupervisorScenarioTests.wanted(1...3)
        let h = try await FleetHarness(scenario: scenario, configuration: config)
        defer { h.stop() }
        try await h.waitFor("all ready", SupervisorScenarioTests.allReady(ids))
        let socket = h.socketPath
        let events = try await offPool { () throws -> [WatchEvent] in
            let watch = try VarlinkConnection(path: socket)
            try watch.send(FleetRequest.watch(device: nil, since: 0).call())
            var events: [WatchEvent] = []
            func take() throws {
                let (reply, update) = try watch.receive(as: WatchUpdate.self, timeout: .seconds(20))
                if let error = reply.varlinkError { throw error }
                events.append(try #require(update?.event))
            }
            try take()
            // Stop reading while values keep coming: a second durable watch waits (on the daemon, with a deadline)
            // until 30 more are stored.
            let waiter = try VarlinkConnection(path: socket)
            try waiter.send(FleetRequest.watch(device: nil, since: events[0].stored!.cursor + 29).call())
            let (reply, _) = try waiter.receive(as: WatchUpdate.self, timeout: .seconds(30))
            if let error = reply.varlinkError { throw error }
            while events.count < 40 { try take() }
            return events
        }
        let cursors = events.map { Int($0.stored!.cursor) }
        #expect(cursors.first == 1 && Self.isConsecutive(cursors), "\(cursors)")
        var perDevice: [String: [Int]] = [:]
        for event in events { perDevice[event.device, default: []].append(Int(event.stored!.deviceSequence)) }
        for (device, seqs) in perDevice { #expect(seqs.first == 1 && Self.isConsecutive(seqs), "\(device): \(seqs)") }
    }

    @Test("readings DEV: the newest values, a page after a cursor, as a table and as JSON")
    func readingsOfOneDevice() async throws {
        let h = try await FleetHarness(scenario: scenario, configuration: SupervisorScenarioTests.wanted(1...3))
        defer { h.stop() }
        try await h.waitFor("all ready", SupervisorScenarioTests.allReady(ids))
        _ = try await h.fleetctl(["watch", "--since", "0", "--count", "15", "--timeout", "30"])
        let strap = SupervisorScenarioTests.id(2)

        let newest = try await h.fleetctl(["readings", strap, "--limit", "3", "--json"])
        #expect(newest.code == 0, "\(newest)")
        let page = try JSONDecoder().decode(ReadingsPage.self, from: Data(newest.stdout.utf8))
        #expect(page.device == strap && page.readings.count == 3 && page.lost == nil)
        #expect(Self.isConsecutive(page.readings.map { Int($0.deviceSequence) }), "the newest three, oldest first")

        let fromStart = try await h.fleetctl(["readings", "Strap 2", "--since", "0", "--limit", "2", "--json"])
        let firstPage = try JSONDecoder().decode(ReadingsPage.self, from: Data(fromStart.stdout.utf8))
        #expect(firstPage.readings.map(\.deviceSequence) == [1, 2], "\(fromStart)")
        let next = try await h.fleetctl(["readings", strap, "--since", String(firstPage.next), "--limit", "1", "--json"])
        #expect(try JSONDecoder().decode(ReadingsPage.self, from: Data(next.stdout.utf8)).readings.map(\.deviceSequence) == [3])

        let table = try await h.fleetctl(["readings", strap, "--limit", "2"])
        #expect(table.code == 0 && table.stdout.contains("CURSOR") && table.stdout.contains("SEQ") && table.stdout.contains("next: --since"), "\(table)")
        #expect(try await h.fleetctl(["readings", "no-such-device"]).code == 3)
        #expect(try await h.fleetctl(["readings", strap, "--limit", "0"]).code == 2)
    }

    @Test("a consumer behind retention is told which values it lost; acknowledging past them goes on")
    func lostPlace() async throws {
        let config = "[outbox]\nmax-rows = 10\ncommit-delay = 20ms\n" + SupervisorScenarioTests.wanted(1...3)
        let h = try await FleetHarness(scenario: scenario, configuration: config)
        defer { h.stop() }
        try await h.waitFor("all ready", SupervisorScenarioTests.allReady(ids))
        let first = try await h.fleetctl(["watch", "--consumer", "late", "--count", "1", "--json", "--timeout", "30"])
        let acknowledged = try #require(Self.cursors(try Self.events(first.stdout)).first)
        // Wait until retention dropped values after the acknowledged cursor (at most 10 rows are kept).
        _ = try await h.fleetctl(["watch", "--since", String(acknowledged + 25), "--count", "1", "--timeout", "30"])
        let behind = try await h.fleetctl(["watch", "--consumer", "late", "--count", "5", "--timeout", "30"])
        #expect(behind.code == 1 && behind.stderr.contains("consumer late lost its place"), "\(behind)")
        let lost = try #require(behind.stderr.split(separator: " ").first { $0.contains("…") })
        #expect(lost.hasPrefix("\(acknowledged + 1)…"), "the first lost value is the one after the acknowledged cursor: \(behind.stderr)")
        // The varlink error names the lost range as numbers.
        let socket = h.socketPath
        let error = try await offPool { () throws -> VarlinkError? in
            let watch = try VarlinkConnection(path: socket)
            try watch.send(FleetRequest.watch(device: nil, consumer: "late").call())
            return try watch.receive(timeout: .seconds(20)).varlinkError
        }
        #expect(error?.name == "io.fleetd.Fleet.LostPlace" && error?.parameters["firstCursor"]?.intValue == Int(acknowledged) + 1, "\(String(describing: error))")
        let through = try #require(error?.parameters["lastCursor"]?.intValue)
        #expect(try await h.call(.acknowledge, ["consumer": .string("late"), "cursor": .int(through)])["cursor"]?.intValue == through)
        let resumed = try await h.fleetctl(["watch", "--consumer", "late", "--count", "2", "--json", "--timeout", "30"])
        let resumedCursors = Self.cursors(try Self.events(resumed.stdout))
        #expect(resumed.code == 0 && resumedCursors.first == through + 1, "\(resumed)")
    }
}
