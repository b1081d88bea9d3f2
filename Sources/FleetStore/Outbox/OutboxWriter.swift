/// The outbox's writer: the only user of the write connection, on its own thread. It waits for the commit
/// delay, a full batch, a flush or a retention check, writes one transaction, and only then publishes the
/// batch to subscribers, so nobody ever sees a reading that a crash could still take back.
final class OutboxWriter: @unchecked Sendable {
    // @unchecked: created on the opening thread, then used only by the writer thread.
    private let core: OutboxCore
    private let database: SQLiteDatabase
    private let insert: SQLiteStatement
    private let saveSequence: SQLiteStatement
    private let saveSequencesThrough: SQLiteStatement
    private let saveConsumer: SQLiteStatement
    private let deleteConsumer: SQLiteStatement
    private let oldestRows: SQLiteStatement
    private let deleteThrough: SQLiteStatement
    private let keepRecord: SQLiteStatement
    private let countDuplicate: SQLiteStatement
    private let saveMark: SQLiteStatement
    /// The last committed sequence number per device.
    private var sequences: [String: Int64]
    /// Devices whose number moved since `sequences` was last saved: their rows are behind.
    private var unsavedDevices: Set<String>
    /// The highest reading id the saved `sequences` rows account for.
    private var sequencesThrough: Int64
    /// The highest reading id committed.
    private var lastID: Int64
    private var depth: Int
    private var storedBytes: Int
    private var lowWater: Int64
    private var nextAgeCheck: Int64
    private var reportedOverflow: UInt64 = 0
    /// Whether the reserve file is held (made at open, released on a full disk, made again when space returns).
    private var reserveHeld = false
    /// Set by a release, reported with the commit's outcome.
    private var reserveJustReleased = false
    /// The epoch this run numbers readings in.
    private let epoch: Int64
    /// Released on a full disk, made again when space returns.
    private let reserve: OutboxReserve
    private var nextReserveCheck: Int64 = 0
    /// The first reading id stored in this boot: from it on, `mono_ns` is comparable with this boot's clock.
    private let bootFirstID: Int64
    private var configuration: Outbox.Configuration { core.configuration }

    init(core: OutboxCore, database: SQLiteDatabase, recovered: OutboxRecovery, epoch: Int64, bootFirstID: Int64) throws(SQLiteError) {
        self.core = core
        self.epoch = epoch
        self.bootFirstID = bootFirstID
        reserve = OutboxReserve(databasePath: core.path, bytes: core.configuration.reserveBytes)
        reserveHeld = reserve.make()
        self.database = database
        insert = try database.prepare(Self.insertSQL, persistent: true)
        saveSequence = try database.prepare("""
            INSERT INTO sequences (device, last_seq) VALUES (?1, ?2)
            ON CONFLICT (device) DO UPDATE SET last_seq = excluded.last_seq
            """, persistent: true)
        saveSequencesThrough = try database.prepare("""
            INSERT INTO outbox_marks (name, value) VALUES ('sequences_through', ?1)
            ON CONFLICT (name) DO UPDATE SET value = excluded.value
            """, persistent: true)
        saveConsumer = try database.prepare("""
            INSERT INTO consumers (name, cursor, updated_wall_ns) VALUES (?1, ?2, ?3)
            ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor, updated_wall_ns = excluded.updated_wall_ns
            """, persistent: true)
        deleteConsumer = try database.prepare("DELETE FROM consumers WHERE name = ?1", persistent: true)
        oldestRows = try database.prepare("""
            SELECT id, wall_ns, \(OutboxWriter.storedBytesSQL), mono_ns FROM readings ORDER BY id
            """, persistent: true)
        deleteThrough = try database.prepare("DELETE FROM readings WHERE id <= ?1", persistent: true)
        keepRecord = try database.prepare(DeviceRecordMark.keepRecordSQL, persistent: true)
        countDuplicate = try database.prepare(DeviceRecordMark.countDuplicateSQL, persistent: true)
        saveMark = try database.prepare(DeviceRecordMark.saveSQL, persistent: true)
        sequences = recovered.sequences
        unsavedDevices = recovered.unsavedDevices
        sequencesThrough = recovered.sequencesThrough
        lastID = recovered.lastID
        depth = recovered.depth
        storedBytes = recovered.storedBytes
        lowWater = recovered.lowWater
        nextAgeCheck = StoreClock.monotonicNanoseconds()
        let pageSize = try database.pageSize
        core.lock.withLock { core.metrics.pageSize = pageSize }
    }

    /// One reading: run for every reading stored, so its program is held to no temporary B-tree (schema version 5).
    static let insertSQL = """
        INSERT INTO readings (device, seq, characteristic, kind, value, mono_ns, wall_ns, session, epoch)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
        """

    /// The SQL form of `Reading.storedBytes`.
    static let storedBytesSQL = "length(value) + length(CAST(device AS BLOB)) + length(CAST(characteristic AS BLOB)) + \(StoredReading.rowOverheadBytes)"

    /// What one wake-up of the writer does.
    private struct Work {
        var batch: [PendingReading] = []
        var consumerChanges: [String: Int64?] = [:]
        /// Record marks whose readings are all in this batch or committed before it.
        var marks: [DeviceRecordMark] = []
        var checkAge = false
        var closing = false
        /// The lowest acknowledged cursor of any consumer when the work was taken (nil: no consumer): age alone
        /// never drops a reading above it.
        var acknowledgedByAll: Int64?
        /// The last commit failed for lack of space: make room before writing (``makeRoom(for:acknowledgedByAll:)``).
        var afterFullDisk = false
    }

    /// The writer thread's body: runs until the outbox closes and everything it could write is written.
    func run() {
        var notices: [OutboxNotice] = []
        var ended: [AsyncStream<[StoredReading]>.Continuation] = []
        while true {
            report(&notices)
            finish(&ended)
            core.lock.lock()
            guard let work = nextWork() else {
                core.lock.unlock()
                break
            }
            core.lock.unlock()

            let started = StoreClock.monotonicNanoseconds()
            let outcome = Result { () throws(SQLiteError) -> Committed in try write(work) }
            let finished = StoreClock.monotonicNanoseconds()

            if case .success = outcome, !reserveHeld, configuration.reserveBytes > 0, finished >= nextReserveCheck {
                // Space came back (or retention made it): hold the reserve again, checked at most every 10 s.
                reserveHeld = reserve.make()
                nextReserveCheck = finished + 10_000_000_000
            }
            if reserveJustReleased {
                reserveJustReleased = false
                notices.append(.reserveReleased(bytes: configuration.reserveBytes))
            }
            var giveUp = false
            core.lock.lock()
            switch outcome {
            case .success(let done):
                succeeded(done, work: work, started: started, finished: finished, notices: &notices, ended: &ended)
            case .failure(let error):
                failed(error, work: work, now: finished, notices: &notices)
                // Closing: no more retries; what is left is reported by close().
                giveUp = work.closing
            }
            core.lock.unlock()
            if giveUp { break }
        }
        report(&notices)
        finish(&ended)
        let clean = core.lock.withLock { core.closing && core.unresolved == 0 }
        if clean { markClosedCleanly() }
        core.lock.withLock {
            core.writerFinished = true
            ended = Array(core.subscribers.values)
            core.subscribers.removeAll()
            core.resolveFlushWaiters(failure: .closed)
            core.lock.broadcast()
        }
        finish(&ended)
    }

    /// The last write of a clean close: the next open knows this run lost nothing (``OutboxEpoch``). A failure
    /// leaves the mark set, which only costs a new epoch if the machine also reboots before the next open.
    private func markClosedCleanly() {
        do throws(SQLiteError) {
            try database.execute("UPDATE outbox_marks SET value = 0 WHERE name = 'running'")
        } catch {
            configuration.onNotice?(.writeFailed(error, pending: 0, retryIn: .zero))
        }
    }

    /// Ends streams outside the lock: `finish` runs the stream's `onTermination` at once, and that takes the
    /// lock to unregister the subscriber.
    private func finish(_ ended: inout [AsyncStream<[StoredReading]>.Continuation]) {
        ended.forEach { $0.finish() }
        ended.removeAll()
    }

    private func report(_ notices: inout [OutboxNotice]) {
        guard !notices.isEmpty else { return }
        if let onNotice = configuration.onNotice { notices.forEach(onNotice) }
        notices.removeAll()
    }

    /// Waits (lock held) until there is something to write, and takes it; nil when the outbox has closed and
    /// nothing is left.
    private func nextWork() -> Work? {
        while true {
            let now = StoreClock.monotonicNanoseconds()
            let hasWork = !core.pending.isEmpty || !core.consumerChanges.isEmpty || !core.markChanges.isEmpty
            if core.closing && !hasWork {
                // One last transaction saves the numbers, so the next open has no readings to scan for them.
                return unsavedDevices.isEmpty ? nil : Work(closing: true)
            }
            let flushing = !core.flushWaiters.isEmpty
            var deadline: Int64?
            var due = false
            if hasWork {
                if core.closing || flushing || core.pending.count >= configuration.maxBatchSize {
                    due = true
                } else {
                    let since = [core.pending.first?.appendedAt, core.consumerChangesSince].compactMap { $0 }.min() ?? (core.markChanges.isEmpty ? now : 0)
                    deadline = since + configuration.commitDelay.nanoseconds
                    due = now >= deadline!
                }
                if let retryAt = core.metrics.retryAt, !core.closing, !flushing, now < retryAt {
                    due = false
                    deadline = retryAt
                }
            }
            var checkAge = false
            if configuration.retention.maxAge != nil {
                if now >= nextAgeCheck { checkAge = true } else { deadline = min(deadline ?? nextAgeCheck, nextAgeCheck) }
            }
            if due || checkAge {
                var work = Work(checkAge: checkAge, closing: core.closing, acknowledgedByAll: core.consumers.values.min(),
                                afterFullDisk: core.metrics.consecutiveFailures > 0 && core.metrics.lastError?.kind == .full)
                if due {
                    work.batch = core.pending.popFirst(configuration.maxBatchSize)
                    core.inFlight = work.batch.count
                    work.consumerChanges = core.consumerChanges
                    core.consumerChanges.removeAll()
                    core.consumerChangesSince = nil
                    work.marks = takeMarks(reach: core.resolved + UInt64(work.batch.count))
                }
                return work
            }
            core.lock.wait(until: deadline)
        }
    }

    /// The queued mark changes whose readings are all resolved once `reach` readings are (lock held). A change
    /// queued before a reading that memory then discarded is not written: that reading may be a record it claims.
    /// The mark in memory is then cleared, so the next sync asks for every record (the stored keys keep each once).
    private func takeMarks(reach: UInt64) -> [DeviceRecordMark] {
        let (write, discard, waiting) = OutboxCore.QueuedMark.split(core.markChanges, reach: reach, dropped: core.droppedInMemory)
        core.markChanges = waiting
        for mark in discard where core.recordMarks[mark.id]?.markKey == mark.markKey {
            core.recordMarks[mark.id]?.markKey = nil
            core.recordMarks[mark.id]?.anchor = nil
        }
        core.markChangesDiscarded += UInt64(discard.count)
        return write
    }

    /// What a committed transaction did.
    private struct Committed {
        var readings: [StoredReading]
        /// Readings not stored, per device and service: their record was held already.
        var duplicates: [DeviceRecordMark.ID: Int] = [:]
        var dropped: (rows: Int, bytes: Int, throughID: Int64)?
        var pagesWritten: Int64
    }

    /// One transaction: the batch numbered and inserted, consumer cursors, retention, and when due the devices'
    /// sequence numbers (`sequences`, with the mark in `outbox_marks`). Nothing here touches the shared state.
    private func write(_ work: Work) throws(SQLiteError) -> Committed {
        let pagesBefore = database.pagesWritten
        let madeRoom = work.afterFullDisk && !work.batch.isEmpty ? try makeRoom(for: work.batch, acknowledgedByAll: work.acknowledgedByAll) : nil
        var stored: [StoredReading] = []
        stored.reserveCapacity(work.batch.count)
        var batchSequences: [String: Int64] = [:]
        var addedBytes = 0
        let now = StoreClock.wallNanoseconds()
        var dropped: (rows: Int, bytes: Int, throughID: Int64)?
        var saved: Int64?
        var duplicates: [DeviceRecordMark.ID: Int] = [:]
        try database.transaction(.immediate) { () throws(SQLiteError) in
            duplicates = [:]
            for pending in work.batch {
                let reading = pending.reading
                if let record = reading.record, try !keep(record, of: reading, now: now) {
                    duplicates[DeviceRecordMark.ID(device: reading.device, service: record.service), default: 0] += 1
                    continue
                }
                let seq = (batchSequences[reading.device] ?? sequences[reading.device] ?? 0) + 1
                // The strings and the value are read in place (no copy per row), bound only while the row is stepped.
                try insert.borrowing(reading.device, at: 1) { () throws(SQLiteError) in
                    try insert.borrowing(reading.characteristic, at: 3) { () throws(SQLiteError) in
                        try insert.borrowing(reading.kind.rawValue, at: 4) { () throws(SQLiteError) in
                            try insert.borrowing(reading.value, at: 5) { () throws(SQLiteError) in
                                try insert.bind(seq, at: 2)
                                try insert.bind(reading.monotonicNanoseconds, at: 6)
                                try insert.bind(reading.wallNanoseconds, at: 7)
                                try insert.bind(reading.session, at: 8)
                                try insert.bind(epoch, at: 9)
                                defer { insert.reset() }
                                _ = try insert.step()
                            }
                        }
                    }
                }
                batchSequences[reading.device] = seq
                stored.append(StoredReading(id: database.lastInsertRowID, seq: seq, epoch: epoch, reading: reading))
                addedBytes += reading.storedBytes
            }
            for mark in work.marks { _ = try saveMark.run(mark.saveValues) }
            for (name, cursor) in work.consumerChanges {
                if let cursor {
                    try saveConsumer.run([.text(name), .integer(cursor), .integer(now)])
                } else {
                    try deleteConsumer.run([.text(name)])
                }
            }
            dropped = try applyRetention(depth: depth + stored.count, storedBytes: storedBytes + addedBytes, now: now,
                                         acknowledgedByAll: work.acknowledgedByAll)
            let through = stored.last?.id ?? lastID
            // Due when the readings since the last save reach the interval, at close, and whenever retention drops
            // a reading after the mark: that reading may hold the only record of its device's number.
            let due = work.closing || through - sequencesThrough >= Int64(configuration.sequenceSaveInterval)
                || (dropped.map { $0.throughID > sequencesThrough } ?? false)
            guard due, !unsavedDevices.isEmpty || !batchSequences.isEmpty else { return }
            for device in unsavedDevices where batchSequences[device] == nil {
                try saveSequence.run([.text(device), .integer(sequences[device] ?? 0)])
            }
            for (device, seq) in batchSequences { try saveSequence.run([.text(device), .integer(seq)]) }
            try saveSequencesThrough.run([.integer(through)])
            saved = through
        }
        lastID = stored.last?.id ?? lastID
        if let saved {
            unsavedDevices.removeAll(keepingCapacity: true)
            sequencesThrough = saved
        } else {
            unsavedDevices.formUnion(batchSequences.keys)
        }
        depth += stored.count - (dropped?.rows ?? 0)
        storedBytes += addedBytes - (dropped?.bytes ?? 0)
        if let dropped { lowWater = max(lowWater, dropped.throughID) }
        sequences.merge(batchSequences) { _, new in new }
        if work.checkAge {
            nextAgeCheck = StoreClock.monotonicNanoseconds() + configuration.retention.ageCheckInterval.nanoseconds
        }
        if let madeRoom {
            dropped = dropped.map { (madeRoom.rows + $0.rows, madeRoom.bytes + $0.bytes, max(madeRoom.throughID, $0.throughID)) } ?? madeRoom
        }
        return Committed(readings: stored, duplicates: duplicates, dropped: dropped, pagesWritten: database.pagesWritten - pagesBefore)
    }

    /// Keeps `record` of `reading` in `device_records`; false when it was held already (the same key and bytes),
    /// which is then counted in `record_marks.duplicates`.
    private func keep(_ record: RecordKey, of reading: Reading, now: Int64) throws(SQLiteError) -> Bool {
        let service = SQLiteValue.integer(Int64(record.service))
        let added = try keepRecord.run([.text(reading.device), service, .integer(Int64(record.key)), .blob(reading.value), .integer(now)])
        if added > 0 { return true }
        _ = try countDuplicate.run([.text(reading.device), service])
        return false
    }

    /// After a commit failed on a full disk (issue 41, point 15): retention in a transaction of its own, with the
    /// batch counted as if stored, so what the bounds would drop to take it is deleted before it is inserted, and
    /// checkpoints around it so the WAL restarts at its beginning. Sharing the insert's transaction, the deletion
    /// could never commit: the WAL had to grow by the insert first, and the disk had no room for that.
    ///
    /// When it drops a reading the saved `sequences` rows do not account for, it saves them in the same transaction
    /// (the rule of ``write(_:)``). The checkpoints' own failures are not errors: on a disk this full they may
    /// fail, and the insert that follows reports whatever still stands in its way.
    private func makeRoom(for batch: [PendingReading], acknowledgedByAll: Int64?) throws(SQLiteError) -> (rows: Int, bytes: Int, throughID: Int64)? {
        if reserveHeld {
            reserveHeld = false
            reserveJustReleased = reserve.release()
        }
        try? database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let incoming = batch.reduce(0) { $0 + $1.reading.storedBytes }
        var dropped: (rows: Int, bytes: Int, throughID: Int64)?
        var savedThrough: Int64?
        try database.transaction(.immediate) { () throws(SQLiteError) in
            dropped = try applyRetention(depth: depth + batch.count, storedBytes: storedBytes + incoming, now: StoreClock.wallNanoseconds(),
                                         acknowledgedByAll: acknowledgedByAll)
            guard let dropped, dropped.throughID > sequencesThrough, !unsavedDevices.isEmpty else { return }
            for device in unsavedDevices { try saveSequence.run([.text(device), .integer(sequences[device] ?? 0)]) }
            try saveSequencesThrough.run([.integer(lastID)])
            savedThrough = lastID
        }
        if let savedThrough {
            unsavedDevices.removeAll(keepingCapacity: true)
            sequencesThrough = savedThrough
        }
        if let dropped {
            depth -= dropped.rows
            storedBytes -= dropped.bytes
            lowWater = max(lowWater, dropped.throughID)
        }
        try? database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return dropped
    }

    /// Deletes the oldest readings until every bound holds; walks from the oldest id, so its cost is the rows
    /// it drops (plus one).
    ///
    /// Age (issue 41, point 6) is measured on the monotonic clock for readings stored in this boot (ids from
    /// `bootFirstID`), so a wall-clock step (NTP on a gateway without an RTC) ages nothing; readings of an earlier
    /// boot can only be aged by their wall time. Age alone never drops a reading a consumer has not acknowledged
    /// (above `acknowledgedByAll`): `max-age` tidies what was delivered; only `max-rows` and `max-bytes`, the bounds
    /// that keep the disk from filling, may overtake a consumer, and that is reported (`retentionDropped`).
    private func applyRetention(depth: Int, storedBytes: Int, now: Int64, acknowledgedByAll: Int64?) throws(SQLiteError) -> (rows: Int, bytes: Int, throughID: Int64)? {
        let retention = configuration.retention
        let tooMany = retention.maxRows.map { depth > $0 } ?? false
        let tooBig = retention.maxBytes.map { storedBytes > $0 } ?? false
        // The age bound is checked at every commit (a one-row peek when nothing is old) and by the idle timer.
        guard tooMany || tooBig || retention.maxAge != nil else { return nil }
        let monotonicNow = StoreClock.monotonicNanoseconds()
        let ageLimit = retention.maxAge?.nanoseconds
        func aged(id: Int64, wall: Int64, monotonic: Int64) -> Bool {
            guard let ageLimit, id <= acknowledgedByAll ?? .max else { return false }
            return id >= bootFirstID ? monotonicNow - monotonic > ageLimit : now - wall > ageLimit
        }
        var rows = 0, bytes = 0
        var through: Int64 = 0
        while try { () throws(SQLiteError) -> Bool in
            do throws(SQLiteError) { return try oldestRows.step() } catch { oldestRows.reset(); throw error }
        }() {
            let over = retention.maxRows.map { depth - rows > $0 } ?? false
            let big = retention.maxBytes.map { storedBytes - bytes > $0 } ?? false
            let old = aged(id: oldestRows.int64(at: 0), wall: oldestRows.int64(at: 1), monotonic: oldestRows.int64(at: 3))
            guard over || big || old else { break }
            rows += 1
            bytes += Int(oldestRows.int64(at: 2))
            through = oldestRows.int64(at: 0)
        }
        oldestRows.reset()
        guard rows > 0 else { return nil }
        try deleteThrough.run([.integer(through)])
        return (rows, bytes, through)
    }

    /// Publishes a committed transaction (lock held).
    private func succeeded(_ done: Committed, work: Work, started: Int64, finished: Int64, notices: inout [OutboxNotice],
                           ended: inout [AsyncStream<[StoredReading]>.Continuation]) {
        core.inFlight = 0
        core.committed += UInt64(done.readings.count)
        for (id, count) in done.duplicates {
            core.duplicatesSuppressed += UInt64(count)
            if core.recordMarks[id] == nil { core.recordMarks[id] = DeviceRecordMark(device: id.device, service: id.service) }
            core.recordMarks[id]?.duplicatesSuppressed += Int64(count)
        }
        if let last = done.readings.last { core.lastCommittedID = last.id }
        core.depth = depth
        core.storedBytes = storedBytes
        core.lowWater = lowWater
        var metrics = core.metrics
        if !work.batch.isEmpty || !work.consumerChanges.isEmpty || done.dropped != nil {
            metrics.commits += 1
        }
        metrics.pagesWritten += done.pagesWritten
        metrics.lastTransactionDuration = .nanoseconds(finished - started)
        if let oldest = work.batch.first?.appendedAt {
            let latency = Duration.nanoseconds(finished - oldest)
            metrics.lastCommitLatency = latency
            metrics.maxCommitLatency = max(metrics.maxCommitLatency, latency)
            metrics.totalCommitLatency += latency
            metrics.latencySamples += 1
        }
        noteOverflow(&notices)
        if metrics.consecutiveFailures > 0 {
            notices.append(.writeResumed(afterFailures: metrics.consecutiveFailures, pending: core.unresolved))
            metrics.consecutiveFailures = 0
            metrics.failingSince = nil
            metrics.retryAt = nil
        }
        if let dropped = done.dropped {
            metrics.droppedByRetention += UInt64(dropped.rows)
            metrics.droppedByRetentionBytes += UInt64(dropped.bytes)
            let behind = core.consumers.filter { $0.value < dropped.throughID }.map(\.key).sorted()
            notices.append(.retentionDropped(readings: dropped.rows, bytes: dropped.bytes, throughID: dropped.throughID, consumersBehind: behind))
        }
        core.metrics = metrics
        if !done.readings.isEmpty {
            for (id, subscriber) in core.subscribers {
                if case .dropped = subscriber.yield(done.readings) {
                    // Too far behind: end its stream; a follower resubscribes and catches up from the store.
                    core.subscribers[id] = nil
                    ended.append(subscriber)
                }
            }
        }
        core.resolveFlushWaiters()
        core.lock.broadcast()
    }

    /// Puts a failed transaction's work back and schedules the retry (lock held).
    private func failed(_ error: SQLiteError, work: Work, now: Int64, notices: inout [OutboxNotice]) {
        core.inFlight = 0
        core.pending.pushFront(work.batch)
        // Back in front of what was queued since, and judged again at the next take against what this failure drops.
        core.markChanges.insert(contentsOf: work.marks.map { OutboxCore.QueuedMark(mark: $0, after: 0, droppedBefore: core.droppedInMemory) }, at: 0)
        for (name, cursor) in work.consumerChanges where core.consumerChanges[name] == nil {
            core.consumerChanges[name] = cursor
        }
        if !work.consumerChanges.isEmpty { core.consumerChangesSince = core.consumerChangesSince ?? now }
        let excess = core.pending.count - configuration.memoryLimit
        if excess > 0 { core.droppedInMemory += UInt64(core.pending.dropFirst(excess)) }
        var metrics = core.metrics
        metrics.failedCommits += 1
        metrics.consecutiveFailures += 1
        if metrics.consecutiveFailures == 1 { metrics.failingSince = now }
        metrics.lastError = error
        if metrics.incurable == nil,
           OutboxFaultPolicy.isIncurable(error.kind, failingFor: .nanoseconds(now - (metrics.failingSince ?? now)),
                                         incurableAfter: configuration.incurableAfter) {
            // Said once; the writer goes on retrying, and the shell decides (fleetd exits to be restarted).
            metrics.incurable = error
            notices.append(.writerFailed(error, pending: core.unresolved))
        }
        metrics.lastErrorWallNanoseconds = StoreClock.wallNanoseconds()
        let initial = configuration.retryInitialDelay.nanoseconds
        let shift = min(metrics.consecutiveFailures - 1, 20)
        let delay = min(configuration.retryMaxDelay.nanoseconds, initial.multipliedReportingOverflow(by: 1 << shift).overflow ? .max : initial << shift)
        metrics.retryAt = now + delay
        core.metrics = metrics
        notices.append(.writeFailed(error, pending: core.unresolved, retryIn: .nanoseconds(delay)))
        noteOverflow(&notices)
        core.resolveFlushWaiters(failure: .storage(error))
    }

    private func noteOverflow(_ notices: inout [OutboxNotice]) {
        guard core.droppedInMemory > reportedOverflow else { return }
        notices.append(.memoryOverflow(dropped: Int(core.droppedInMemory - reportedOverflow), pending: core.unresolved))
        reportedOverflow = core.droppedInMemory
    }
}
