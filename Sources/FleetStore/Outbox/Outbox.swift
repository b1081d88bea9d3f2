import FleetSystem

/// The durable outbox of readings: every notification, indication and read value, numbered per device with no
/// gap, committed in batches, replayable by cursor and followed live.
///
/// Concurrency: `append` only takes a lock and queues the reading; it never waits for the disk. A dedicated
/// writer thread owns the write connection: it commits a batch at most `commitDelay` after its oldest reading
/// was appended (or at once when `maxBatchSize` readings wait), then publishes the batch to live subscribers.
/// A reading becomes visible only after its batch committed, so a crash can take back only readings nobody has
/// seen, and their sequence numbers are reused without anyone noticing. Replay reads go through a second,
/// read-only connection (WAL lets it read while the writer writes).
///
/// When a commit fails (a full disk), the batch goes back to memory, bounded by `memoryLimit`, the failure is
/// reported through `stats()` and `onNotice`, and the commit is retried with backoff until space returns.
public final class Outbox: Sendable {
    let core: OutboxCore
    let reader: OutboxReader
    private let writerThread: JoinableThread
    /// The epoch this run numbers readings in (``OutboxEpoch``); published with every reading.
    public let epoch: OutboxEpoch

    /// Opens (creating and migrating) the store file at `path` and starts the writer thread.
    public init(path: String, configuration: Configuration = Configuration()) throws(StoreOpenError) {
        let database = try StoreSchema.open(path: path, settings: .init(
            synchronous: configuration.synchronous, busyTimeout: configuration.busyTimeout,
            autocheckpointPages: 1000, verify: configuration.verifyOnOpen))
        let recovered: OutboxRecovery
        let writer: OutboxWriter
        do {
            recovered = try OutboxReader.recover(database)
            epoch = OutboxEpoch.decide(marks: recovered.marks, currentBoot: configuration.boot ?? recovered.marks.boot ?? 0,
                                       storedBefore: recovered.lastID > 0, draw: OutboxEpoch.random)
            let boot = configuration.boot ?? recovered.marks.boot ?? 0
            // A new boot's readings begin after the last id stored; within one boot the mark stays.
            let bootFirstID = boot == recovered.marks.boot ? recovered.bootFirstID ?? 1 : recovered.lastID + 1
            try Self.mark(database, epoch: epoch.current, boot: boot, bootFirstID: bootFirstID)
            core = OutboxCore(path: path, configuration: configuration, recovered: recovered)
            writer = try OutboxWriter(core: core, database: database, recovered: recovered, epoch: epoch.current, bootFirstID: bootFirstID)
        } catch {
            throw StoreSchema.classify(error, path: path)
        }
        if let change = epoch.change, change != .newFile {
            configuration.onNotice?(.epochChanged(from: recovered.marks.epoch, to: epoch.current, reason: change))
        }
        reader = try OutboxReader(path: path, core: core, busyTimeout: configuration.busyTimeout)
        writerThread = JoinableThread(name: "outbox-writer") { writer.run() }
    }

    deinit { close() }

    /// Records this run in the file before any reading is numbered: its epoch, its boot (and the first reading id
    /// stored in it, from which retention ages by the monotonic clock), and that it is running
    /// (a clean close sets `running` back to 0; see ``OutboxWriter/markClosedCleanly()``).
    private static func mark(_ database: SQLiteDatabase, epoch: Int64, boot: Int64, bootFirstID: Int64) throws(SQLiteError) {
        let save = try database.prepare("""
            INSERT INTO outbox_marks (name, value) VALUES (?1, ?2)
            ON CONFLICT (name) DO UPDATE SET value = excluded.value
            """)
        try database.transaction(.immediate) { () throws(SQLiteError) in
            try save.run([.text("epoch"), .integer(epoch)])
            try save.run([.text("boot"), .integer(boot)])
            try save.run([.text("running"), .integer(1)])
            try save.run([.text("boot_first_id"), .integer(bootFirstID)])
        }
    }

    /// Queues a reading for the next batch. Never blocks on I/O. After `close`, the reading is discarded and
    /// counted in `droppedInMemory`.
    public func append(_ reading: Reading) {
        let now = StoreClock.monotonicNanoseconds()
        core.lock.lock()
        defer { core.lock.unlock() }
        accept(reading, now: now)
    }

    /// Queues several readings, in order, under one lock.
    public func append(contentsOf readings: [Reading]) {
        let now = StoreClock.monotonicNanoseconds()
        core.lock.lock()
        defer { core.lock.unlock() }
        for reading in readings { accept(reading, now: now) }
    }

    /// Lock held.
    private func accept(_ reading: Reading, now: Int64) {
        core.accepted += 1
        guard !core.closing else {
            core.droppedInMemory += 1
            return
        }
        let wasEmpty = core.pending.isEmpty
        core.pending.append(PendingReading(reading: reading, appendedAt: now))
        // The bound counts only what waits: a batch being written holds the oldest readings, and dropping newer
        // ones in their place would keep the wrong end. If that write fails, its batch comes back to the front and
        // `failed` drops it first; if it succeeds, nothing needed dropping. So memory holds at most
        // `memoryLimit` plus one batch in flight (`maxBatchSize`).
        let excess = core.pending.count - core.configuration.memoryLimit
        if excess > 0 { core.droppedInMemory += UInt64(core.pending.dropFirst(excess)) }
        // The writer sleeps until the oldest reading's deadline; it needs waking only to learn of a first
        // reading or of a full batch.
        if wasEmpty || core.pending.count == core.configuration.maxBatchSize { core.lock.broadcast() }
    }

    /// Commits everything appended (and acknowledged) before this call now, without waiting for the commit
    /// delay or a retry. Returns when it is committed; throws the storage error if that commit fails.
    public func flush() async throws(OutboxError) {
        let result: Result<Void, OutboxError> = await withCheckedContinuation { continuation in
            core.lock.withLock {
                if core.writerFinished {
                    continuation.resume(returning: core.unresolved == 0 ? .success(()) : .failure(.closed))
                    return
                }
                if core.unresolved == 0 && core.consumerChanges.isEmpty && core.markChanges.isEmpty {
                    continuation.resume(returning: .success(()))
                    return
                }
                core.flushWaiters.append((core.accepted, continuation))
                core.lock.broadcast()
            }
        }
        try result.get()
    }

    /// What `close` could not write.
    public struct CloseReport: Sendable, Equatable {
        /// Readings accepted but never committed (the disk refused the final commit), now lost.
        public var unwritten: Int
        public var lastError: SQLiteError?
        public init(unwritten: Int, lastError: SQLiteError?) {
            self.unwritten = unwritten
            self.lastError = lastError
        }
    }

    /// Commits what is pending, stops the writer thread, ends every live stream and closes the connections.
    /// Blocks for the final commit. Later calls return the same report.
    @discardableResult
    public func close() -> CloseReport {
        core.lock.withLock {
            core.closing = true
            core.lock.broadcast()
        }
        writerThread.join()
        reader.close()
        return core.lock.withLock {
            CloseReport(unwritten: core.unresolved, lastError: core.unresolved > 0 ? core.metrics.lastError : nil)
        }
    }

    /// Readings appended and not yet committed: a producer that can wait may hold back while it is high.
    public var pendingCount: Int { core.lock.withLock { core.pending.count + core.inFlight } }

    /// The id of the newest committed reading (0 when none ever was).
    public var lastCommittedID: Int64 { core.lock.withLock { core.lastCommittedID } }

    /// Every id up to this one was dropped by retention (0 when none was): a replay after it loses nothing.
    public var droppedThroughID: Int64 { core.lock.withLock { core.lowWater } }
}
