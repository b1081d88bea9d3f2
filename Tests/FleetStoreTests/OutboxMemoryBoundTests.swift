@testable import FleetStore
import FleetTestKit
import Foundation
import Testing

/// The outbox's memory bound drops the oldest readings, even when the oldest are a batch whose write is in
/// progress (it may yet fail and come back): the readings kept are always the newest.
@Suite("outbox memory bound", .serialized)
struct OutboxMemoryBoundTests {
    /// Waits (on the outbox's own condition, with a deadline) until `condition` holds under its lock.
    func waitForCore(_ outbox: Outbox, _ what: String, _ condition: (OutboxCore) -> Bool) throws {
        let deadline = StoreClock.monotonicNanoseconds() + 10_000_000_000
        let met: Bool = outbox.core.lock.withLock {
            while !condition(outbox.core) {
                let now = StoreClock.monotonicNanoseconds()
                if now >= deadline { return false }
                // Woken by the writer's broadcasts; the short bound covers a state change it does not announce.
                outbox.core.lock.wait(until: min(deadline, now + 5_000_000))
            }
            return true
        }
        guard met else { throw TestKitError("timed out waiting for \(what)") }
    }

    @Test("a batch whose write fails while the bound is exceeded is dropped first: the newest readings survive")
    func inFlightBatchStaysDroppable() async throws {
        let fixture = try StoreFixture()
        let notices = NoticeLog()
        var configuration = Outbox.Configuration()
        configuration.commitDelay = .milliseconds(1)
        configuration.memoryLimit = 50
        configuration.busyTimeout = .milliseconds(1500)
        // No automatic retry: the test's flush is the retry.
        configuration.retryInitialDelay = .seconds(600)
        configuration.retryMaxDelay = .seconds(600)
        configuration.onNotice = { notices.record($0) }
        let outbox = try Outbox(path: fixture.path, configuration: configuration)
        defer { outbox.close() }

        // Another connection holds the write lock: the writer's next transaction waits, then fails as busy.
        let blocker = try SQLiteDatabase(path: fixture.path)
        try blocker.execute("BEGIN IMMEDIATE")
        // In one call: with a 1 ms commit delay, a stall of the test between single appends let the writer take a
        // smaller first batch, and the wait for 20 in flight timed out.
        outbox.append(contentsOf: (0..<20).map { sampleReading("d", $0) })
        try waitForCore(outbox, "the writer to take the first 20 readings") { $0.inFlight == 20 }
        // While that batch is being written, 80 more arrive: 100 in memory, twice the bound.
        outbox.append(contentsOf: (20..<100).map { sampleReading("d", $0) })
        try waitForCore(outbox, "the busy write to fail") { $0.metrics.failedCommits == 1 }
        try blocker.execute("ROLLBACK")

        try await outbox.flush()
        let stored = try allStored(outbox)
        let values = stored.map { String(decoding: $0.reading.value, as: UTF8.self) }
        #expect(values == (50..<100).map { "d#\($0)" }, "the 50 oldest (the failed batch first) are the ones dropped: \(values)")
        #expect(stored.map(\.seq) == (1...50).map(Int64.init), "dropped before numbering: no sequence gap")
        #expect(outbox.stats().droppedInMemory == 50)
        #expect(notices.all.contains { if case .memoryOverflow = $0 { true } else { false } })
    }
}
