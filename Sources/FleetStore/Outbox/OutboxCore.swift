/// The state the outbox's callers and its writer thread share, under one lock. Callers only touch memory here
/// (append, acknowledge, subscribe); the writer thread takes work out, does the disk I/O unlocked, and puts the
/// outcome back.
final class OutboxCore: @unchecked Sendable {
    // @unchecked: every `var` below is read and written only with `lock` held.
    let lock = ConditionLock()
    let configuration: Outbox.Configuration
    let path: String

    var pending = ReadingQueue()
    /// Readings the writer has taken for the transaction in progress.
    var inFlight = 0
    var accepted: UInt64 = 0
    var committed: UInt64 = 0
    var droppedInMemory: UInt64 = 0
    var closing = false
    var writerFinished = false
    /// Callers of `flush`: while there are any, pending work commits at once (ignoring the delay and a retry
    /// wait); each is resumed when every reading accepted before its call is committed or discarded.
    var flushWaiters: [(target: UInt64, continuation: CheckedContinuation<Result<Void, OutboxError>, Never>)] = []

    var lastCommittedID: Int64
    /// Every id up to this one has been dropped by retention (0 when none has).
    var lowWater: Int64
    var depth: Int
    var storedBytes: Int

    /// Acknowledged cursors (the persisted ones and those waiting for the next commit).
    var consumers: [String: Int64]
    /// Consumers to write (a cursor) or delete (nil) in the next transaction.
    var consumerChanges: [String: Int64?] = [:]
    var consumerChangesSince: Int64?

    /// Readings not stored because the outbox held their record already (``RecordKey``).
    var duplicatesSuppressed: UInt64 = 0
    /// Every device's record marks as the latest change left them (committed, or queued behind its readings).
    var recordMarks: [DeviceRecordMark.ID: DeviceRecordMark] = [:]
    /// Mark changes waiting for the readings accepted before them: each is written in the transaction that commits
    /// the last of those readings, or a later one, so a mark never claims a record a crash could take back.
    var markChanges: [QueuedMark] = []
    /// Mark changes not written because a reading queued before them was discarded from memory.
    var markChangesDiscarded: UInt64 = 0

    struct QueuedMark {
        var mark: DeviceRecordMark
        /// `accepted` when it was queued: the readings before it.
        var after: UInt64
        /// `droppedInMemory` then: a reading discarded since may be a record the mark would claim.
        var droppedBefore: UInt64

        /// Which queued changes may be written once `reach` readings are resolved (in acceptance order: memory
        /// takes readings out from the front), which are discarded because memory has dropped `dropped` readings
        /// in all and some since the change was queued, and which still wait for their readings.
        static func split(_ queued: [QueuedMark], reach: UInt64, dropped: UInt64)
            -> (write: [DeviceRecordMark], discard: [DeviceRecordMark], waiting: [QueuedMark]) {
            var write: [DeviceRecordMark] = [], discard: [DeviceRecordMark] = [], waiting: [QueuedMark] = []
            for change in queued {
                if change.after > reach {
                    waiting.append(change)
                } else if change.droppedBefore < dropped {
                    discard.append(change.mark)
                } else {
                    write.append(change.mark)
                }
            }
            return (write, discard, waiting)
        }
    }

    var subscribers: [UInt64: AsyncStream<[StoredReading]>.Continuation] = [:]
    var nextSubscriber: UInt64 = 0

    var metrics = Metrics()

    /// Counters behind `OutboxStats`.
    struct Metrics {
        var commits: UInt64 = 0
        var pagesWritten: Int64 = 0
        var pageSize = 4096
        var lastCommitLatency: Duration = .zero
        var maxCommitLatency: Duration = .zero
        var totalCommitLatency: Duration = .zero
        /// Commits that carried readings (the others only moved cursors or ran retention).
        var latencySamples = 0
        var lastTransactionDuration: Duration = .zero
        var droppedByRetention: UInt64 = 0
        var droppedByRetentionBytes: UInt64 = 0
        var failedCommits: UInt64 = 0
        var consecutiveFailures = 0
        var lastError: SQLiteError?
        var lastErrorWallNanoseconds: Int64?
        var retryAt: Int64?
        /// Monotonic time of the first failure in the current run of failures.
        var failingSince: Int64?
        /// The failure ``OutboxFaultPolicy`` judged incurable, once one was.
        var incurable: SQLiteError?
    }

    init(path: String, configuration: Outbox.Configuration, recovered: OutboxRecovery) {
        self.path = path
        self.configuration = configuration
        lastCommittedID = recovered.lastID
        lowWater = recovered.lowWater
        depth = recovered.depth
        storedBytes = recovered.storedBytes
        consumers = recovered.consumers
        for mark in recovered.recordMarks { recordMarks[mark.id] = mark }
    }

    /// Readings accepted but neither committed nor discarded (lock held).
    var unresolved: Int { Int(accepted - committed - droppedInMemory - duplicatesSuppressed) }

    /// Readings taken out of memory for good: committed, discarded, or suppressed as a record already held.
    var resolved: UInt64 { committed + droppedInMemory + duplicatesSuppressed }

    /// Resolves the flush waiters whose readings are all committed or discarded (lock held).
    func resolveFlushWaiters(failure: OutboxError? = nil) {
        let resolved = self.resolved
        flushWaiters.removeAll { waiter in
            if waiter.target <= resolved && consumerChanges.isEmpty && !markChanges.contains(where: { $0.after <= waiter.target }) {
                waiter.continuation.resume(returning: .success(()))
                return true
            }
            if let failure {
                waiter.continuation.resume(returning: .failure(failure))
                return true
            }
            return false
        }
    }
}

/// What opening the outbox found in the file.
struct OutboxRecovery {
    var lastID: Int64 = 0
    var lowWater: Int64 = 0
    var depth = 0
    var storedBytes = 0
    var sequences: [String: Int64] = [:]
    /// The highest reading id the `sequences` rows account for (`outbox_marks.sequences_through`).
    var sequencesThrough: Int64 = 0
    /// Devices whose number came from a reading after that mark: their `sequences` row is behind.
    var unsavedDevices: Set<String> = []
    var consumers: [String: Int64] = [:]
    var recordMarks: [DeviceRecordMark] = []
    /// The epoch marks (migration 6).
    var marks = OutboxEpoch.Marks(epoch: 0, boot: nil, running: false)
    /// The first reading id stored in the boot `marks.boot` (`outbox_marks.boot_first_id`).
    var bootFirstID: Int64?
}
