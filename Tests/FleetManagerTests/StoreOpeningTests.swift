import FleetManager
import FleetPlatform
import FleetStore
import FleetTestKit
import Foundation
import Supervision
import Synchronization
import Testing

/// fleetd's start-up open of its two stores (issue 41, points 2 and 4), on real files.
@Suite("opening the state and the outbox", .serialized)
struct StoreOpeningTests {
    let directory: TemporaryDirectory
    var path: String { directory.path + "/fleetd.db" }
    let log = RecordingLogHandler()
    var logger: Logger { Logger(label: "test", level: .debug, handler: log) }

    init() throws { directory = try TemporaryDirectory(prefix: "store-opening") }

    /// A shared file whose state tables are sound and one of whose readings pages is garbage: the state opens, the
    /// outbox's recovery scan meets SQLITE_CORRUPT.
    private func makeFileTheOutboxRefuses() async throws {
        let state = try StateStore(path: path)
        try state.setMetadata("written-by", "the first run")
        let outbox = try Outbox(path: path)
        for n in 0..<2000 {
            outbox.append(Reading(device: "a", characteristic: "00002a37-0000-1000-8000-00805f9b34fb", kind: .notification,
                                  value: Array(repeating: UInt8(n & 0xff), count: 100), monotonicNanoseconds: 1, wallNanoseconds: 1, session: 1))
        }
        try await outbox.flush()
        outbox.close()
        state.close()
        // The last connection's close checkpointed the WAL into the file: its last page is a readings leaf.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size - 4096)
        handle.write(Data(repeating: 0xa5, count: 4096))
        try handle.close()
    }

    @Test("an outbox that finds the shared file unusable moves it only after the state's connection closed; the state then writes into the fresh file")
    func sharedFileMovedAsideWithEveryConnectionClosed() async throws {
        try await makeFileTheOutboxRefuses()
        let opened = await StoreOpening.open(statePath: path, snapshotPath: nil, outboxPath: path, outbox: Outbox.Configuration(), logger: logger, onIncurable: { _ in })
        let state = try #require(opened.state)
        try state.store.setMetadata("written-by", "the second run")
        opened.readings.close(logger: logger)
        state.close()

        let moved = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("fleetd.db.unusable-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        #expect(moved.count == 1, "\(moved)")
        // The second run's write is in the file at the path, not in the moved one (under WAL it went into the moved
        // file's -wal while the state's connection stayed open across the move).
        #expect(try StateStore(path: path).metadata("written-by") == "the second run")
        let old = try SQLiteDatabase(path: directory.path + "/" + moved[0], flags: [.readOnly])
        #expect(try old.scalar("SELECT count(*) FROM state WHERE key = 'written-by' AND payload LIKE '%second%'") != .integer(1))
        #expect(log.records.map(\.message).contains { $0.contains("moved aside") }, "\(log.records.map(\.message))")
    }

    @Test("an outbox that cannot be opened is retried, each attempt logged and reported, until it opens")
    func unavailableOutboxIsRetried() async throws {
        let missing = directory.path + "/not-yet"
        let statuses = Mutex<[String]>([])
        let waited = AsyncStream<Void>.makeStream()
        let opening = Task { [logger, path] in
            await StoreOpening.open(statePath: path, snapshotPath: nil, outboxPath: missing + "/outbox.db", outbox: Outbox.Configuration(),
                                    logger: logger, retry: .init(initial: .milliseconds(20), maximum: .milliseconds(100)), onIncurable: { _ in }) { status in
                statuses.withLock { $0.append(status) }
                waited.continuation.yield()
            }
        }
        var iterator = waited.stream.makeAsyncIterator()
        for _ in 0..<3 { _ = await iterator.next() }
        try FileManager.default.createDirectory(atPath: missing, withIntermediateDirectories: false)
        let opened = await opening.value
        defer { opened.readings.close(logger: logger) }
        #expect(opened.outboxAttempts >= 3)
        let first = try #require(statuses.withLock { $0.first })
        #expect(first.hasPrefix("no outbox: cannot open \(missing)/outbox.db"), "\(first)")
        #expect(first.contains("attempt 1") && first.contains("not ready"), "\(first)")
        #expect(log.records.map(\.message).filter { $0.contains("outbox unavailable, start-up waits for it") }.count == opened.outboxAttempts)
        opened.readings.record(device: DeviceID("a"), characteristic: "2a19", kind: .notification, value: [50])
        try await opened.readings.outbox.flush()
        #expect(opened.readings.outbox.lastCommittedID == 1)
    }

    @Test("the retry delays double from the first up to the cap")
    func retryDelays() {
        let retry = StoreOpening.Retry(initial: .seconds(1), maximum: .seconds(30))
        #expect((1...7).map { retry.delay(after: $0) } == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30)])
        #expect(retry.delay(after: 1000) == .seconds(30))
    }
}
