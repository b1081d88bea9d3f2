/// The outbox's figures for metrics and for an operator: what is stored, what waits in memory, how commits
/// go, what was dropped and why, and how far behind each consumer is.
public struct OutboxStats: Sendable, Equatable {
    /// Readings appended since open (including those later discarded).
    public var accepted: UInt64
    /// Readings committed since open.
    public var committed: UInt64
    /// Readings in memory waiting for a commit (including a batch being written).
    public var pending: Int
    /// Readings stored in the outbox table.
    public var depth: Int
    /// Their estimated size (see `Retention.maxBytes`).
    public var storedBytes: Int
    /// The newest committed id.
    public var lastCommittedID: Int64
    /// Every id up to this one was dropped by retention.
    public var droppedThroughID: Int64
    /// Transactions committed since open. With `synchronous = FULL` (the default) each is one fsync of the WAL;
    /// checkpoints (every ~1000 pages) add two more.
    public var commits: UInt64
    /// Commits that failed (and were retried).
    public var failedCommits: UInt64
    /// WAL pages written by the outbox connection, and the bytes of their WAL frames.
    public var pagesWritten: Int64
    public var bytesWritten: Int64
    /// From the append of a batch's oldest reading to the end of its commit: the longest a reading waited.
    public var lastCommitLatency: Duration
    public var maxCommitLatency: Duration
    public var meanCommitLatency: Duration
    /// How long the last transaction took to write and sync.
    public var lastTransactionDuration: Duration
    /// Readings dropped by retention (oldest first), and their estimated bytes.
    public var droppedByRetention: UInt64
    public var droppedByRetentionBytes: UInt64
    /// Readings discarded from memory, never numbered: beyond `memoryLimit` while commits failed or lagged, or
    /// appended after close.
    public var droppedInMemory: UInt64
    /// True while commits fail; `lastError` says why.
    public var failing: Bool
    public var consecutiveFailures: Int
    public var lastError: SQLiteError?
    public var lastErrorWallNanoseconds: Int64?
    /// The failure judged incurable (``OutboxFaultPolicy``), once one was: fleetd exits on it.
    public var incurable: SQLiteError?
    public var consumers: [ConsumerStats]
    /// Set when reading the consumers' oldest unacknowledged times failed (they are then nil).
    public var consumerReadError: SQLiteError?
    /// Readings not stored because the outbox held their record already (a re-sent stored record, docs/records.md).
    public var duplicatesSuppressed: UInt64 = 0
    /// Record mark changes not written because a reading queued before them was discarded from memory.
    public var markChangesDiscarded: UInt64 = 0

    /// One named consumer's position.
    public struct ConsumerStats: Sendable, Equatable {
        public var name: String
        /// The acknowledged cursor.
        public var cursor: Int64
        /// Committed readings after the cursor (ids are contiguous, so this is a count).
        public var unacknowledged: Int64
        /// Wall time of the oldest stored reading it has not acknowledged; nil when it is up to date.
        public var oldestUnacknowledgedWallNanoseconds: Int64?
        /// True when retention dropped readings it had not acknowledged: it lost its place.
        public var lostPlace: Bool
    }
}

extension Outbox {
    /// The current figures. The consumers' oldest unacknowledged times come from one indexed read each on the
    /// reader connection; everything else is memory.
    public func stats() -> OutboxStats {
        var stats = core.lock.withLock { () -> OutboxStats in
            let m = core.metrics
            return OutboxStats(
                accepted: core.accepted, committed: core.committed, pending: core.pending.count + core.inFlight,
                depth: core.depth, storedBytes: core.storedBytes, lastCommittedID: core.lastCommittedID,
                droppedThroughID: core.lowWater, commits: m.commits, failedCommits: m.failedCommits,
                pagesWritten: m.pagesWritten, bytesWritten: m.pagesWritten * Int64(m.pageSize + 24),
                lastCommitLatency: m.lastCommitLatency, maxCommitLatency: m.maxCommitLatency,
                meanCommitLatency: m.totalCommitLatency / max(m.latencySamples, 1), lastTransactionDuration: m.lastTransactionDuration,
                droppedByRetention: m.droppedByRetention, droppedByRetentionBytes: m.droppedByRetentionBytes,
                droppedInMemory: core.droppedInMemory, failing: m.consecutiveFailures > 0,
                consecutiveFailures: m.consecutiveFailures, lastError: m.lastError,
                lastErrorWallNanoseconds: m.lastErrorWallNanoseconds, incurable: m.incurable,
                consumers: core.consumers.sorted { $0.key < $1.key }.map { name, cursor in
                    OutboxStats.ConsumerStats(name: name, cursor: cursor, unacknowledged: max(0, core.lastCommittedID - max(cursor, core.lowWater)),
                                              oldestUnacknowledgedWallNanoseconds: nil, lostPlace: cursor < core.lowWater)
                }, consumerReadError: nil, duplicatesSuppressed: core.duplicatesSuppressed, markChangesDiscarded: core.markChangesDiscarded)
        }
        for index in stats.consumers.indices where stats.consumers[index].unacknowledged > 0 {
            do {
                stats.consumers[index].oldestUnacknowledgedWallNanoseconds = try reader.firstReading(after: stats.consumers[index].cursor)?.wallNanoseconds
            } catch {
                stats.consumerReadError = error
            }
        }
        return stats
    }
}
