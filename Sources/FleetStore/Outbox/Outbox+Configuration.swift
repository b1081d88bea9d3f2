/// How an outbox batches, syncs, retains and recovers.
extension Outbox {
    public struct Configuration: Sendable {
        /// The longest a reading waits for its commit when the batch does not fill first.
        public var commitDelay: Duration = .milliseconds(100)
        /// A batch this large commits at once.
        public var maxBatchSize: Int = 4096
        /// The outbox connection's `PRAGMA synchronous`. `.full`: a committed batch survives a power loss (one
        /// WAL fsync per commit). `.normal`: it survives a crash of fleetd, and a power loss can roll back the
        /// batches since the last checkpoint. docs/state-store.md has the whole table.
        public var synchronous: SQLiteDatabase.Synchronous = .full
        public var retention = Retention()
        /// Readings between two saves of the per-device sequence numbers (`sequences`). In between, a device's
        /// number lives in its newest stored reading: a commit writes only its readings' rows, not a row per device
        /// in the batch as well, and the open after a crash finds the numbers of at most this many readings (plus
        /// one batch) by scanning them. Numbers are also saved in any commit whose retention drops a reading they
        /// do not account for, and at close. docs/state-store.md has the rule.
        public var sequenceSaveInterval: Int = 10_000
        /// Readings kept in memory while the disk refuses writes (or while it cannot keep up); beyond it the
        /// oldest pending readings are discarded, before they are numbered, and counted in `droppedInMemory`.
        /// A batch whose write is in progress is not counted (it is dropped first if that write fails), so memory
        /// holds at most `memoryLimit + maxBatchSize` readings.
        public var memoryLimit: Int = 100_000
        /// The first retry after a failed commit; it doubles up to `retryMaxDelay`.
        public var retryInitialDelay: Duration = .milliseconds(100)
        public var retryMaxDelay: Duration = .seconds(5)
        /// Space kept on the store's file system for retention to make room on a full disk (``OutboxReserve``,
        /// `<path>-reserve`); 0 keeps none.
        public var reserveBytes: Int = 1 << 20
        /// How long commits may fail with an I/O-like error (``OutboxFaultPolicy``) before the outbox reports the
        /// fault as incurable (`OutboxNotice.writerFailed`); a corrupt page is reported at its first failure.
        public var incurableAfter: Duration = .seconds(30)
        /// Committed batches a live subscriber may have unread before its stream ends (a `follow` then
        /// catches up from the store instead).
        public var subscriberBufferLimit: Int = 256
        public var busyTimeout: Duration = .seconds(5)
        /// Runs `PRAGMA quick_check` on open.
        public var verifyOnOpen = false
        /// This boot's identity (``OutboxEpoch/currentBoot()``): with the `running` mark it tells a run that ended
        /// with the machine from a crash of fleetd alone. Tests pass their own.
        public var boot: Int64? = OutboxEpoch.currentBoot()
        /// Called on the outbox's writer thread, outside its lock: keep it short (log, count).
        public var onNotice: (@Sendable (OutboxNotice) -> Void)?

        public init() {}
    }

    /// What the outbox keeps. Each bound drops the oldest readings (lowest ids) until it holds; nil is unbounded.
    public struct Retention: Sendable, Equatable {
        /// Readings older than this are dropped once every consumer has acknowledged them, checked at each commit
        /// and every `ageCheckInterval` when idle. Age is measured on the monotonic clock for readings of this
        /// boot (a wall-clock step ages nothing), by wall time for readings of an earlier boot.
        public var maxAge: Duration?
        public var maxRows: Int?
        /// Bound on the readings' estimated stored size: value + device + characteristic + 40 bytes per row
        /// (the file is larger by its indexes and free pages).
        public var maxBytes: Int?
        public var ageCheckInterval: Duration = .seconds(60)

        public init(maxAge: Duration? = nil, maxRows: Int? = nil, maxBytes: Int? = nil) {
            self.maxAge = maxAge
            self.maxRows = maxRows
            self.maxBytes = maxBytes
        }

        var isBounded: Bool { maxAge != nil || maxRows != nil || maxBytes != nil }
    }
}

/// Something an operator should hear about, reported through `Configuration.onNotice`.
public enum OutboxNotice: Sendable, Equatable {
    /// A commit failed; its readings are back in memory and the commit is retried after `retryIn`.
    case writeFailed(SQLiteError, pending: Int, retryIn: Duration)
    /// Commits succeed again after `afterFailures` failed attempts.
    case writeResumed(afterFailures: Int, pending: Int)
    /// Retention dropped the oldest readings, ids up to `throughID`. `consumersBehind` had not acknowledged
    /// them: they lost their place.
    case retentionDropped(readings: Int, bytes: Int, throughID: Int64, consumersBehind: [String])
    /// Pending readings beyond `memoryLimit` were discarded (`dropped` since the last notice).
    case memoryOverflow(dropped: Int, pending: Int)
    /// The disk was full: the outbox gave its reserve back (``OutboxReserve``) so that retention can make room.
    case reserveReleased(bytes: Int)
    /// A commit failed in a way retrying cannot cure (``OutboxFaultPolicy``): said once. The outbox keeps
    /// retrying; `pending` readings are held in memory meanwhile.
    case writerFailed(SQLiteError, pending: Int)
    /// The open started a new epoch (reported on the opening thread): consumers start a new `seq` count.
    case epochChanged(from: Int64, to: Int64, reason: OutboxEpoch.Change)
}
