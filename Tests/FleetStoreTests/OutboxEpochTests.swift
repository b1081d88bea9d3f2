@testable import FleetStore
import FleetTestKit
import Foundation
import Testing

/// The consumer rule docs/mqtt.md gives ("Duplicates and gaps"), as a consumer following it would write it: the
/// highest `seq` per device and epoch; a `seq` at or below it is a duplicate and dropped.
private struct DocumentedConsumer {
    private var highest: [String: [Int64: Int64]] = [:]
    private(set) var processed: [String] = []
    private(set) var dropped: [String] = []

    mutating func offer(_ stored: StoredReading) {
        let label = String(decoding: stored.reading.value, as: UTF8.self)
        if let top = highest[stored.device]?[stored.epoch], stored.seq <= top {
            dropped.append(label)
            return
        }
        highest[stored.device, default: [:]][stored.epoch] = stored.seq
        processed.append(label)
    }
}

@Suite("Outbox epochs (issue 41, point 1)", .serialized)
struct OutboxEpochTests {
    private func configuration(boot: Int64, notices: NoticeLog? = nil) -> Outbox.Configuration {
        var configuration = Outbox.Configuration()
        configuration.commitDelay = .milliseconds(5)
        configuration.boot = boot
        if let notices { configuration.onNotice = { notice in notices.record(notice) } }
        return configuration
    }

    private func store(_ outbox: Outbox, _ device: String, _ range: Range<Int>) async throws {
        for n in range { outbox.append(sampleReading(device, n)) }
        try await outbox.flush()
    }

    /// Before the epoch, a fresh outbox numbered from 1 again and a consumer following the docs dropped every new
    /// reading as a duplicate of one it had seen (the 3 below: "a#10", "a#11", "a#12").
    @Test("after the outbox is moved aside, the fresh one has a new epoch and the documented consumer drops nothing")
    func movedAside() async throws {
        let fixture = try StoreFixture()
        var consumer = DocumentedConsumer()
        let first = try Outbox(path: fixture.path, configuration: configuration(boot: 1))
        try await store(first, "a", 0..<5)
        let old = try allStored(first)
        old.forEach { consumer.offer($0) }
        let oldEpoch = first.epoch.current
        first.close()
        _ = try StoreFile.moveAside(fixture.path, label: "unusable")

        let fresh = try Outbox(path: fixture.path, configuration: configuration(boot: 1))
        defer { fresh.close() }
        #expect(fresh.epoch.change == .newFile)
        try await store(fresh, "a", 10..<13)
        let new = try allStored(fresh)
        new.forEach { consumer.offer($0) }
        #expect(new.map(\.seq) == [1, 2, 3], "a fresh file numbers from 1")
        #expect(Set(new.map(\.epoch)) == [fresh.epoch.current])
        #expect(fresh.epoch.current != oldEpoch)
        #expect((1...OutboxEpoch.largest).contains(fresh.epoch.current))
        #expect(consumer.dropped.isEmpty, "dropped \(consumer.dropped)")
        #expect(consumer.processed == ["a#0", "a#1", "a#2", "a#3", "a#4", "a#10", "a#11", "a#12"])
    }

    /// A run that ended with the machine leaves `running` = 1 behind; SIGKILL does the same within one boot.
    private func leaveAsCrashed(_ path: String) throws {
        try SQLiteDatabase(path: path).execute("UPDATE outbox_marks SET value = 1 WHERE name = 'running'")
    }

    @Test("a run that did not close the outbox and a reboot since start a new epoch; a crash within one boot and a clean close do not")
    func acrossBoots() async throws {
        let fixture = try StoreFixture()
        let notices = NoticeLog()
        var outbox = try Outbox(path: fixture.path, configuration: configuration(boot: 100))
        try await store(outbox, "a", 0..<3)
        let e1 = outbox.epoch.current
        outbox.close()

        // Clean close, then a reboot: nothing was lost, the numbering continues.
        outbox = try Outbox(path: fixture.path, configuration: configuration(boot: 200))
        #expect(outbox.epoch == OutboxEpoch(current: e1, change: nil))
        try await store(outbox, "a", 3..<4)
        outbox.close()

        // fleetd killed, started again in the same boot: WAL keeps every commit, same epoch.
        try leaveAsCrashed(fixture.path)
        outbox = try Outbox(path: fixture.path, configuration: configuration(boot: 200))
        #expect(outbox.epoch == OutboxEpoch(current: e1, change: nil))
        outbox.close()

        // Killed with the machine: the next open is in another boot.
        try leaveAsCrashed(fixture.path)
        outbox = try Outbox(path: fixture.path, configuration: configuration(boot: 300, notices: notices))
        defer { outbox.close() }
        let e2 = outbox.epoch.current
        #expect(outbox.epoch.change == .uncleanShutdownAcrossBoot)
        #expect(e2 != e1)
        #expect(notices.all == [.epochChanged(from: e1, to: e2, reason: .uncleanShutdownAcrossBoot)])
        try await store(outbox, "a", 4..<6)
        let stored = try allStored(outbox)
        // Numbers continue from what survived; each reading keeps the epoch it was numbered in.
        #expect(stored.map(\.seq) == [1, 2, 3, 4, 5, 6])
        #expect(stored.map(\.epoch) == [e1, e1, e1, e1, e2, e2])
    }

    @Test("readings stored by a version 5 fleetd read back in the file's first epoch")
    func migratedRows() async throws {
        let fixture = try StoreFixture()
        let v5 = try StoreSchema.open(path: fixture.path, migrations: Array(StoreSchema.migrations.prefix(5)))
        try v5.execute("""
            INSERT INTO readings (device, seq, characteristic, kind, value, mono_ns, wall_ns, session)
            VALUES ('a', 1, '00002a19-0000-1000-8000-00805f9b34fb', 'notification', x'64', 1, 1, 1)
            """)
        try v5.execute("INSERT INTO sequences (device, last_seq) VALUES ('a', 1)")
        let outbox = try Outbox(path: fixture.path, configuration: configuration(boot: 1))
        defer { outbox.close() }
        #expect(outbox.epoch.change == nil, "a file with readings is not new")
        try await store(outbox, "a", 0..<1)
        let stored = try allStored(outbox)
        #expect(stored.map(\.seq) == [1, 2])
        #expect(stored.map(\.epoch) == [outbox.epoch.current, outbox.epoch.current])
        #expect(outbox.epoch.current >= 1)
    }

    @Test("the decision: only running + another boot draws; the draw never repeats the old epoch")
    func decide() {
        var draws: [Int64] = [7, 7, 9]
        let draw = { draws.removeFirst() }
        let marks = OutboxEpoch.Marks(epoch: 7, boot: 1, running: true)
        #expect(OutboxEpoch.decide(marks: marks, currentBoot: 2, storedBefore: true, draw: draw) == OutboxEpoch(current: 9, change: .uncleanShutdownAcrossBoot))
        #expect(OutboxEpoch.decide(marks: marks, currentBoot: 1, storedBefore: true, draw: { 3 }) == OutboxEpoch(current: 7, change: nil))
        let closed = OutboxEpoch.Marks(epoch: 7, boot: 1, running: false)
        #expect(OutboxEpoch.decide(marks: closed, currentBoot: 2, storedBefore: true, draw: { 3 }) == OutboxEpoch(current: 7, change: nil))
        let never = OutboxEpoch.Marks(epoch: 7, boot: nil, running: false)
        #expect(OutboxEpoch.decide(marks: never, currentBoot: 2, storedBefore: false, draw: { 3 }) == OutboxEpoch(current: 7, change: .newFile))
    }

    @Test("a boot id's first 64 bits, and this machine's is readable")
    func bootNumber() {
        #expect(OutboxEpoch.bootNumber("0123abcd-ef01-2345-6789-abcdef012345\n") == 0x0123_abcd_ef01_2345)
        #expect(OutboxEpoch.bootNumber("fedcba98-7654-3210-0000-000000000000") == Int64(bitPattern: 0xfedc_ba98_7654_3210))
        #expect(OutboxEpoch.bootNumber("short") == nil)
        #expect(OutboxEpoch.currentBoot() != nil)
        #expect(OutboxEpoch.currentBoot() == OutboxEpoch.currentBoot())
    }
}

@Suite("What a power loss costs per synchronous setting (issue 41, point 17)")
struct PowerLossCostTests {
    /// sqlite.org/pragma.html#pragma_synchronous: OFF "the database might become corrupted if the operating
    /// system crashes or the computer loses power"; NORMAL in WAL mode "might roll back" the last transactions
    /// but stays consistent; FULL and EXTRA keep every commit (given storage that honours fsync).
    @Test func perSetting() {
        #expect(SQLiteDatabase.Synchronous.off.powerLossCost == .committedTransactionsOrTheFile)
        #expect(SQLiteDatabase.Synchronous.normal.powerLossCost == .commitsSinceLastSync)
        #expect(SQLiteDatabase.Synchronous.full.powerLossCost == .nothingCommitted)
        #expect(SQLiteDatabase.Synchronous.extra.powerLossCost == .nothingCommitted)
    }
}

@Suite("Outbox faults retrying cannot cure (issue 41, point 5)", .serialized)
struct OutboxIncurableFaultTests {
    /// Points `readings` at a page past the end of the file, as a damaged b-tree would, through a second connection
    /// (a schema change every connection picks up at its next statement): the writer's next insert meets SQLITE_CORRUPT.
    static func breakReadingsTable(_ path: String) throws {
        let other = try SQLiteDatabase(path: path)
        guard case .integer(let version)? = try other.pragma("schema_version") else { throw SQLiteError.misuse("no schema_version", operation: "test") }
        try other.execute("PRAGMA writable_schema = ON")
        try other.execute("UPDATE sqlite_schema SET rootpage = 1000000 WHERE name = 'readings'")
        try other.execute("PRAGMA schema_version = \(version + 1)")
        try other.execute("PRAGMA writable_schema = OFF")
    }

    /// Before: the commit failed, was retried with backoff for ever, `writeFailed` each time, and nothing said it
    /// would never succeed.
    @Test("a corrupt table met at run time is reported incurable at its first failure; the outbox keeps the readings in memory")
    func corruptAtRunTime() async throws {
        let fixture = try StoreFixture()
        let notices = NoticeLog()
        var configuration = Outbox.Configuration()
        configuration.commitDelay = .milliseconds(5)
        configuration.retryInitialDelay = .milliseconds(10)
        configuration.onNotice = { notices.record($0) }
        let outbox = try Outbox(path: fixture.path, configuration: configuration)
        defer { outbox.close() }
        for n in 0..<3 { outbox.append(sampleReading("a", n)) }
        try await outbox.flush()
        try Self.breakReadingsTable(fixture.path)
        for n in 3..<6 { outbox.append(sampleReading("a", n)) }
        try await waitUntil("the fault to be judged incurable") { outbox.stats().incurable != nil }
        let stats = outbox.stats()
        #expect(stats.incurable?.kind == .corrupt, "\(String(describing: stats.incurable))")
        #expect(stats.consecutiveFailures >= 1, "\(stats)")
        #expect(stats.pending == 3 && stats.committed == 3)
        let failures = notices.all.compactMap { notice -> SQLiteError? in if case .writerFailed(let error, 3) = notice { error } else { nil } }
        #expect(failures.count == 1 && failures.first?.kind == .corrupt, "\(notices.all)")
    }

    @Test("the policy: corrupt at once; I/O-like errors after the bound; a full disk and a busy lock never")
    func policy() {
        let bound = Duration.seconds(30)
        #expect(OutboxFaultPolicy.isIncurable(.corrupt, failingFor: .zero, incurableAfter: bound))
        for kind: SQLiteError.Kind in [.io, .unavailable, .constraint, .misuse, .other] {
            #expect(!OutboxFaultPolicy.isIncurable(kind, failingFor: .seconds(29), incurableAfter: bound), "\(kind)")
            #expect(OutboxFaultPolicy.isIncurable(kind, failingFor: .seconds(30), incurableAfter: bound), "\(kind)")
        }
        for kind: SQLiteError.Kind in [.full, .busy] {
            #expect(!OutboxFaultPolicy.isIncurable(kind, failingFor: .seconds(86_400), incurableAfter: bound), "\(kind)")
        }
    }
}

@Suite("Retention by age (issue 41, point 6)", .serialized)
struct OutboxAgeRetentionTests {
    private func outbox(_ path: String, boot: Int64 = 1, maxAge: Duration = .seconds(60)) throws -> Outbox {
        var configuration = Outbox.Configuration()
        configuration.commitDelay = .milliseconds(5)
        configuration.boot = boot
        configuration.retention.maxAge = maxAge
        return try Outbox(path: path, configuration: configuration)
    }

    private static let tenDays: Int64 = 10 * 86_400 * 1_000_000_000
    private static let hour: Int64 = 3_600 * 1_000_000_000

    /// Before: the cutoff was the wall clock minus `max-age`, so readings stamped before an NTP step of ten days
    /// (a gateway without an RTC booting in the past) were all dropped, unpublished, at the next commit.
    @Test("a wall-clock step ages nothing: readings of this boot are aged by the monotonic clock")
    func wallClockStep() async throws {
        let fixture = try StoreFixture()
        let outbox = try outbox(fixture.path)
        defer { outbox.close() }
        try outbox.acknowledge(consumer: "mqtt", upTo: 0)
        let stampedBeforeTheStep = StoreClock.wallNanoseconds() - Self.tenDays
        for n in 0..<20 { outbox.append(sampleReading("a", n, wall: stampedBeforeTheStep)) }
        try await outbox.flush()
        #expect(try allStored(outbox).count == 20)
        #expect(outbox.stats().droppedByRetention == 0)
    }

    @Test("age alone never drops a reading a consumer has not acknowledged; what every consumer took goes")
    func unacknowledgedKept() async throws {
        let fixture = try StoreFixture()
        let outbox = try outbox(fixture.path)
        defer { outbox.close() }
        try outbox.acknowledge(consumer: "mqtt", upTo: 0)
        try outbox.acknowledge(consumer: "ward-feed", upTo: 0)
        let hourAgo = StoreClock.monotonicNanoseconds() - Self.hour
        for n in 0..<10 { outbox.append(sampleReading("a", n, monotonic: hourAgo)) }
        try await outbox.flush()
        #expect(try allStored(outbox).count == 10, "an hour old, but nobody has them yet")
        try outbox.acknowledge(consumer: "mqtt", upTo: 6)
        try outbox.acknowledge(consumer: "ward-feed", upTo: 4)
        outbox.append(sampleReading("a", 10))
        try await outbox.flush()
        // Through 4 every consumer has them: gone. 5…10 wait for ward-feed (and 11 is new).
        #expect(try allStored(outbox).map(\.id) == Array(5...11))
        #expect(outbox.stats().droppedByRetention == 4)
    }

    @Test("readings of an earlier boot are aged by their wall time once acknowledged")
    func earlierBoot() async throws {
        let fixture = try StoreFixture()
        var outbox = try outbox(fixture.path, boot: 1)
        let hourAgoWall = StoreClock.wallNanoseconds() - Self.hour
        for n in 0..<5 { outbox.append(sampleReading("a", n, wall: hourAgoWall)) }
        try await outbox.flush()
        try outbox.acknowledge(consumer: "mqtt", upTo: 5)
        try await outbox.flush()
        outbox.close()
        outbox = try self.outbox(fixture.path, boot: 2)
        defer { outbox.close() }
        // This boot's clock says nothing about the old readings' monotonic stamps; their wall time does.
        outbox.append(sampleReading("a", 5, wall: hourAgoWall))
        try await outbox.flush()
        #expect(try allStored(outbox).map(\.id) == [6], "the new boot's reading is aged by its monotonic stamp (now)")
    }
}
