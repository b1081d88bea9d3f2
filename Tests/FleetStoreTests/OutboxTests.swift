import FleetStore
import FleetTestKit
import Foundation
import Testing

@Suite("Outbox")
struct OutboxTests {
    let fixture: StoreFixture
    init() throws { fixture = try StoreFixture() }

    func configuration(delay: Duration = .milliseconds(5), _ adjust: (inout Outbox.Configuration) -> Void = { _ in }) -> Outbox.Configuration {
        var c = Outbox.Configuration()
        c.commitDelay = delay
        adjust(&c)
        return c
    }

    /// Per device, the sequence numbers in id order.
    func sequences(_ readings: [StoredReading]) -> [String: [Int64]] {
        Dictionary(grouping: readings, by: \.device).mapValues { $0.map(\.seq) }
    }

    @Test("sequence numbers are per device, gap-free from 1, and continue across a reopen")
    func gapFreeAcrossReopen() async throws {
        let devices = ["a", "b", "c"]
        var outbox = try Outbox(path: fixture.path, configuration: configuration())
        for n in 0..<10 { for d in devices { outbox.append(sampleReading(d, n)) } }
        try await outbox.flush()
        #expect(outbox.close() == Outbox.CloseReport(unwritten: 0, lastError: nil))

        outbox = try Outbox(path: fixture.path, configuration: configuration())
        for n in 10..<15 { for d in ["c", "a"] { outbox.append(sampleReading(d, n)) } }
        outbox.append(sampleReading("d", 0))
        outbox.close()

        outbox = try Outbox(path: fixture.path, configuration: configuration())
        let stored = try allStored(outbox)
        #expect(stored.map(\.id) == Array(1...Int64(41)))
        let seqs = sequences(stored)
        #expect(seqs["a"] == Array(1...15))
        #expect(seqs["b"] == Array(1...10))
        #expect(seqs["c"] == Array(1...15))
        #expect(seqs["d"] == [1])
        #expect(stored.filter { $0.device == "a" }.map { String(decoding: $0.reading.value, as: UTF8.self) } == (0..<15).map { "a#\($0)" })
        #expect(try outbox.read(after: 0, device: DeviceFilter(device: "b")).readings.count == 10)
        #expect(try outbox.read(after: 0, device: DeviceFilter(["b", "d"])).readings.map(\.device) == Array(repeating: "b", count: 10) + ["d"])
        #expect(outbox.stats().depth == 41)
        outbox.close()
    }

    @Test("a device's sequence continues even after retention dropped all its readings and the outbox reopened")
    func sequenceSurvivesRetention() async throws {
        var outbox = try Outbox(path: fixture.path, configuration: configuration { $0.retention.maxRows = 5 })
        for n in 0..<20 { outbox.append(sampleReading("a", n)) }
        for n in 0..<5 { outbox.append(sampleReading("b", n)) }
        outbox.close()
        outbox = try Outbox(path: fixture.path, configuration: configuration { $0.retention.maxRows = 5 })
        outbox.append(sampleReading("a", 20))
        try await outbox.flush()
        let stored = try allStored(outbox).filter { $0.device == "a" }
        #expect(stored.map(\.seq) == [21])
        outbox.close()
    }

    @Test("appends wait for the commit delay and then commit as one batch; a full batch commits at once")
    func batching() async throws {
        let delay = Duration.milliseconds(300)
        let outbox = try Outbox(path: fixture.path, configuration: configuration(delay: delay) { $0.maxBatchSize = 50 })
        let subscription = try #require(outbox.subscribe())
        var batches = subscription.batches.makeAsyncIterator()
        let start = ContinuousClock.now
        // In one call: a stall of the test longer than the delay between single appends split the first batch.
        outbox.append(contentsOf: (0..<10).map { sampleReading("a", $0) })
        let first = try #require(try await next(&batches, "the first batch"))
        let waited = ContinuousClock.now - start
        #expect(first.map(\.seq) == Array(1...10))
        #expect(waited >= delay, "committed after \(waited), before the \(delay) commit delay")
        #expect(outbox.stats().commits == 1)
        #expect(outbox.stats().lastCommitLatency >= delay)
        outbox.close()
        #expect(try await next(&batches, "the end of the stream") == nil)

        // A full batch does not wait for the commit delay: with an hour's delay it still commits. (No wall-clock
        // bound: under load "at once" can take a second, which made a timed assertion flaky.)
        let patient = try Outbox(path: fixture.path, configuration: configuration(delay: .seconds(3600)) { $0.maxBatchSize = 50 })
        let patientSubscription = try #require(patient.subscribe())
        var patientBatches = patientSubscription.batches.makeAsyncIterator()
        for n in 10..<60 { patient.append(sampleReading("a", n)) }
        let second = try #require(try await next(&patientBatches, "the full batch"))
        #expect(second.count == 50)
        #expect(second.map(\.seq) == Array(11...60))
        patient.close()
    }

    @Test("replay then follow has no gap and no duplicate while appends continue, and a follower that falls behind catches up")
    func replayThenFollow() async throws {
        let outbox = try Outbox(path: fixture.path, configuration: configuration { $0.subscriberBufferLimit = 2; $0.maxBatchSize = 7 })
        for n in 0..<300 { outbox.append(sampleReading("d\(n % 4)", n)) }
        try await outbox.flush()
        let producer = Task {
            for n in 300..<900 {
                outbox.append(sampleReading("d\(n % 4)", n))
                if n % 50 == 0 { try await outbox.flush() }
            }
            try await outbox.flush()
        }
        var ids: [Int64] = []
        var slowedDown = false
        let follower = outbox.follow(after: 0, pageSize: 25)
        for try await event in follower {
            guard case .readings(let readings) = event else { Issue.record("unexpected \(event)"); break }
            ids += readings.map(\.id)
            if !slowedDown && ids.count > 400 {
                // Fall behind by more than the two batches a subscriber may buffer.
                slowedDown = true
                try await producer.value
            }
            if ids.count >= 900 { break }
        }
        try await producer.value
        #expect(ids == Array(1...900))

        // A device-filtered follower starting mid-way sees only that device, in order.
        var d2: [StoredReading] = []
        for try await event in outbox.follow(after: 450, device: DeviceFilter(device: "d2")) {
            if case .readings(let readings) = event { d2 += readings }
            if d2.last?.id == 899 { break }
        }
        #expect(d2.allSatisfy { $0.device == "d2" && $0.id > 450 })
        #expect(d2.map(\.seq) == Array(d2.first!.seq...d2.last!.seq))
        outbox.close()
    }

    @Test("a named consumer's acknowledged cursor survives a reopen, and a follower resumes after it")
    func consumerResume() async throws {
        var outbox = try Outbox(path: fixture.path, configuration: configuration())
        for n in 0..<20 { outbox.append(sampleReading("a", n)) }
        try await outbox.flush()
        #expect(outbox.cursor(of: "grafana") == nil)
        #expect(try outbox.acknowledge(consumer: "grafana", upTo: 12) == 12)
        #expect(try outbox.acknowledge(consumer: "grafana", upTo: 5) == 12)
        #expect(throws: OutboxError.acknowledgementBeyondCommitted(consumer: "grafana", cursor: 21, lastCommitted: 20)) {
            try outbox.acknowledge(consumer: "grafana", upTo: 21)
        }
        #expect(throws: OutboxError.invalidConsumerName("")) { try outbox.acknowledge(consumer: "", upTo: 1) }
        #expect(throws: OutboxError.invalidConsumerName("a\nb")) { try outbox.acknowledge(consumer: "a\nb", upTo: 1) }
        try outbox.acknowledge(consumer: "archive", upTo: 20)
        let stats = outbox.stats()
        #expect(stats.consumers.map(\.name) == ["archive", "grafana"])
        #expect(stats.consumers[1].unacknowledged == 8)
        #expect(stats.consumers[1].oldestUnacknowledgedWallNanoseconds != nil)
        #expect(stats.consumers[0].oldestUnacknowledgedWallNanoseconds == nil)
        outbox.close()

        outbox = try Outbox(path: fixture.path, configuration: configuration())
        #expect(outbox.consumers == ["grafana": 12, "archive": 20])
        let cursor = try #require(outbox.cursor(of: "grafana"))
        var iterator = outbox.follow(after: cursor).makeAsyncIterator()
        let event = try await iterator.next()
        #expect(event == .readings(try allStored(outbox).filter { $0.id > 12 }))
        #expect(try outbox.removeConsumer("archive"))
        outbox.close()
        outbox = try Outbox(path: fixture.path, configuration: configuration())
        #expect(outbox.consumers == ["grafana": 12])
        outbox.close()
    }

    @Test("the state store and the outbox write the same file at once")
    func sharedFile() async throws {
        let outbox = try Outbox(path: fixture.path, configuration: configuration(delay: .milliseconds(1)))
        let state = try StateStore(path: fixture.path)
        let producer = Task {
            for n in 0..<5000 {
                outbox.append(sampleReading("d\(n % 7)", n))
                if n % 500 == 0 { try await outbox.flush() }
            }
            try await outbox.flush()
        }
        for n in 0..<300 { try state.upsert(kind: .backoff, key: "d\(n % 7)", payload: [UInt8(n % 256)]) }
        try await producer.value
        #expect(try state.rows(kind: .backoff).count == 7)
        #expect(outbox.stats().committed == 5000)
        outbox.close()
        state.close()
    }

    @Test("a follower ends when the outbox closes")
    func followerEndsOnClose() async throws {
        let outbox = try Outbox(path: fixture.path, configuration: configuration())
        outbox.append(sampleReading("a", 0))
        try await outbox.flush()
        let (delivered, deliveries) = AsyncStream<Void>.makeStream()
        let follower = Task {
            var events = 0
            for try await _ in outbox.follow(after: 0) {
                events += 1
                deliveries.yield()
            }
            return events
        }
        var iterator = delivered.makeAsyncIterator()
        _ = try await next(&iterator, "the replayed reading")
        // The follower now waits on the live feed.
        outbox.close()
        #expect(try await follower.value == 1)
        #expect(outbox.subscribe() == nil)
        #expect(throws: OutboxError.closed) { try outbox.acknowledge(consumer: "x", upTo: 1) }
    }

    @Test("retention by rows drops the oldest, counts it, and tells consumers behind it that they lost their place")
    func retentionByRows() async throws {
        let notices = NoticeLog()
        let outbox = try Outbox(path: fixture.path, configuration: configuration {
            $0.retention.maxRows = 100
            $0.onNotice = notices.record
        })
        for n in 0..<50 { outbox.append(sampleReading("a", n)) }
        try await outbox.flush()
        try outbox.acknowledge(consumer: "slow", upTo: 10)
        try outbox.acknowledge(consumer: "fast", upTo: 50)
        for n in 50..<250 { outbox.append(sampleReading("a", n)) }
        try await outbox.flush()
        let stats = outbox.stats()
        #expect(stats.depth == 100)
        #expect(stats.droppedByRetention == 150)
        #expect(stats.droppedThroughID == 150)
        #expect(stats.consumers.first { $0.name == "slow" }?.lostPlace == true)
        #expect(stats.consumers.first { $0.name == "fast" }?.lostPlace == true)
        let page = try outbox.read(after: 10, limit: 10)
        #expect(page.lost == OutboxGap(firstID: 11, lastID: 150))
        #expect(page.readings.map(\.id) == Array(151...160))
        #expect(try outbox.read(after: 150, limit: 10).lost == nil)
        let dropped = notices.all.compactMap { notice -> (Int, [String])? in
            if case .retentionDropped(let rows, _, _, let behind) = notice { return (rows, behind) }
            return nil
        }
        #expect(dropped.map(\.0).reduce(0, +) == 150)
        #expect(dropped.last?.1 == ["fast", "slow"])

        // A follower from before the dropped range hears of the loss first, then gets what is left.
        var iterator = outbox.follow(after: 0).makeAsyncIterator()
        #expect(try await iterator.next() == .lost(OutboxGap(firstID: 1, lastID: 150)))
        guard case .readings(let rest)? = try await iterator.next() else { Issue.record("expected readings"); return }
        #expect(rest.first?.id == 151)
        outbox.close()
    }

    @Test("retention by bytes and by age drops the oldest readings")
    func retentionByBytesAndAge() async throws {
        let bytes = try Outbox(path: fixture.path, configuration: configuration { $0.retention.maxBytes = 10_000 })
        for n in 0..<200 { bytes.append(sampleReading("a", n)) }
        try await bytes.flush()
        let stats = bytes.stats()
        #expect(stats.storedBytes <= 10_000)
        #expect(stats.storedBytes > 10_000 - 200)
        #expect(UInt64(stats.depth) + stats.droppedByRetention == 200)
        #expect(try allStored(bytes).first?.id == Int64(stats.droppedByRetention) + 1)
        bytes.close()

        let agePath = fixture.directory.path + "/age.db"
        let hourAgo = StoreClock.wallNanoseconds() - 3_600_000_000_000
        let hourAgoMonotonic = StoreClock.monotonicNanoseconds() - 3_600_000_000_000
        let age = try Outbox(path: agePath, configuration: configuration { $0.retention.maxAge = .seconds(60) })
        for n in 0..<30 { age.append(sampleReading("a", n, wall: hourAgo, monotonic: hourAgoMonotonic)) }
        for n in 30..<40 { age.append(sampleReading("a", n)) }
        try await age.flush()
        let left = try allStored(age)
        #expect(left.map(\.seq) == Array(31...40))
        #expect(age.stats().droppedByRetention == 30)
        age.close()
    }
}
