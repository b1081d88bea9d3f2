import Synchronization

/// The outbox's read-only connection: replay pages, consumer lag, and the recovery scan on open. Synchronous
/// calls lock it directly; async ones (a follower's replay) run on its own thread.
final class OutboxReader: Sendable {
    private let connection: Mutex<Connection?>
    private let worker = BlockingWorker(name: "outbox-reader")
    private let core: OutboxCore

    private final class Connection {
        let database: SQLiteDatabase
        let bounds: SQLiteStatement
        let pageAll: SQLiteStatement
        let pageDevice: SQLiteStatement
        let firstAfter: SQLiteStatement
        let newestDevice: SQLiteStatement

        init(database: SQLiteDatabase) throws(SQLiteError) {
            self.database = database
            bounds = try database.prepare("""
                SELECT (SELECT min(id) FROM readings), (SELECT seq FROM sqlite_sequence WHERE name = 'readings')
                """, persistent: true)
            pageAll = try database.prepare("\(OutboxReader.columns) WHERE id > ?1 AND id <= ?2 ORDER BY id LIMIT ?3", persistent: true)
            // No per-device index (see StoreSchema.migrations): a device's replay scans the id range and skips
            // other devices' rows inside SQLite.
            pageDevice = try database.prepare("\(OutboxReader.columns) WHERE id > ?1 AND id <= ?2 AND device = ?4 ORDER BY id LIMIT ?3", persistent: true)
            firstAfter = try database.prepare("SELECT id, wall_ns FROM readings WHERE id > ?1 ORDER BY id LIMIT 1", persistent: true)
            newestDevice = try database.prepare("\(OutboxReader.columns) WHERE device = ?1 ORDER BY id DESC LIMIT ?2", persistent: true)
        }
    }

    /// A row stored before migration 6 has epoch 0: it was numbered in the file's first epoch. The subquery does
    /// not depend on the row, so SQLite evaluates it once per statement.
    static let columns = """
        SELECT id, device, seq, characteristic, kind, value, mono_ns, wall_ns, session,
        CASE epoch WHEN 0 THEN (SELECT value FROM outbox_marks WHERE name = 'first_epoch') ELSE epoch END FROM readings
        """

    init(path: String, core: OutboxCore, busyTimeout: Duration) throws(StoreOpenError) {
        self.core = core
        let database = try StoreSchema.open(path: path, settings: .init(busyTimeout: busyTimeout, readOnly: true))
        do {
            connection = Mutex(try Connection(database: database))
        } catch {
            throw StoreSchema.classify(error, path: path)
        }
    }

    func close() {
        worker.stop()
        connection.withLock { $0 = nil }
    }

    /// Reads what the writer needs to continue where the last run stopped: the last id, the per-device
    /// sequence high-water marks (the saved rows, then the readings after them), the consumers, and the size of
    /// what is stored.
    static func recover(_ database: SQLiteDatabase) throws(SQLiteError) -> OutboxRecovery {
        var recovered = OutboxRecovery()
        try database.transaction(.deferred) { () throws(SQLiteError) in
            if case .integer(let last)? = try database.scalar("SELECT seq FROM sqlite_sequence WHERE name = 'readings'") {
                recovered.lastID = last
            }
            let minimum = try database.scalar("SELECT min(id) FROM readings")
            if case .integer(let oldest)? = minimum { recovered.lowWater = oldest - 1 } else { recovered.lowWater = recovered.lastID }
            let size = try database.prepare("SELECT count(*), total(\(OutboxWriter.storedBytesSQL)) FROM readings")
            if try size.step() {
                recovered.depth = Int(size.int64(at: 0))
                recovered.storedBytes = Int(size.double(at: 1))
            }
            for (device, seq) in try database.prepare("SELECT device, last_seq FROM sequences").rows([], { s throws(SQLiteError) in (s.text(at: 0), s.int64(at: 1)) }) {
                recovered.sequences[device] = seq
            }
            // The rows account for the readings up to the mark; a reading after it may carry a higher number (the
            // writer saves the rows every `sequenceSaveInterval` readings and at close, so after a crash). Those
            // readings are never dropped unaccounted for: a commit whose retention would drop one saves the rows.
            if case .integer(let through)? = try database.scalar("SELECT value FROM outbox_marks WHERE name = 'sequences_through'") {
                recovered.sequencesThrough = through
            }
            let tail = try database.prepare("SELECT device, max(seq) FROM readings WHERE id > ?1 GROUP BY device")
            for (device, seq) in try tail.rows([.integer(recovered.sequencesThrough)], { s throws(SQLiteError) in (s.text(at: 0), s.int64(at: 1)) })
            where seq > recovered.sequences[device] ?? 0 {
                recovered.sequences[device] = seq
                recovered.unsavedDevices.insert(device)
            }
            for (name, value) in try database.prepare("SELECT name, value FROM outbox_marks WHERE name IN ('epoch', 'boot', 'running', 'boot_first_id')")
                .rows([], { s throws(SQLiteError) in (s.text(at: 0), s.int64(at: 1)) }) {
                switch name {
                case "epoch": recovered.marks.epoch = value
                case "boot": recovered.marks.boot = value
                case "boot_first_id": recovered.bootFirstID = value
                default: recovered.marks.running = value != 0
                }
            }
            for (name, cursor) in try database.prepare("SELECT name, cursor FROM consumers").rows([], { s throws(SQLiteError) in (s.text(at: 0), s.int64(at: 1)) }) {
                recovered.consumers[name] = cursor
            }
            recovered.recordMarks = try database.prepare(DeviceRecordMark.selectSQL).rows([], DeviceRecordMark.init(row:))
        }
        return recovered
    }

    /// One replay page, in one read transaction so that the gap check and the rows agree.
    func page(after cursor: Int64, limit: Int, device: DeviceFilter?, through: Int64?) throws(SQLiteError) -> ReplayPage {
        try connection.withLock { (slot: inout Connection?) throws(SQLiteError) -> ReplayPage in
            guard let c = slot else { throw SQLiteError.misuse("the outbox is closed", operation: "read") }
            return try c.database.transaction(.deferred) { () throws(SQLiteError) -> ReplayPage in
                defer { c.bounds.reset() }
                guard try c.bounds.step() else { return ReplayPage(readings: [], lost: nil, next: cursor, reachedEnd: true) }
                let last = c.bounds.isNull(at: 1) ? 0 : c.bounds.int64(at: 1)
                // Ids are assigned without holes and retention drops only from the oldest end, so every id
                // between the cursor and the oldest stored one was dropped.
                let oldest = c.bounds.isNull(at: 0) ? last + 1 : c.bounds.int64(at: 0)
                c.bounds.reset()
                let upper = min(through ?? last, last)
                var lost: OutboxGap?
                var from = cursor
                if cursor + 1 < oldest {
                    lost = OutboxGap(firstID: cursor + 1, lastID: oldest - 1)
                    from = oldest - 1
                }
                let readings = try Self.rows(c, after: from, through: upper, limit: limit, device: device)
                let reachedEnd = readings.count < limit
                let next = reachedEnd ? max(from, upper) : readings.last!.id
                return ReplayPage(readings: readings, lost: lost, next: next, reachedEnd: reachedEnd)
            }
        }
    }

    /// The newest `limit` readings of `device`, oldest first; `next` is the newest id stored when it was read.
    func newest(device: String, limit: Int) throws(SQLiteError) -> ReplayPage {
        try connection.withLock { (slot: inout Connection?) throws(SQLiteError) -> ReplayPage in
            guard let c = slot else { throw SQLiteError.misuse("the outbox is closed", operation: "read") }
            return try c.database.transaction(.deferred) { () throws(SQLiteError) -> ReplayPage in
                defer { c.bounds.reset() }
                let last = try c.bounds.step() && !c.bounds.isNull(at: 1) ? c.bounds.int64(at: 1) : 0
                c.bounds.reset()
                let readings = try c.newestDevice.rows([.text(device), .integer(Int64(limit))], Self.decode)
                return ReplayPage(readings: readings.reversed(), lost: nil, next: last, reachedEnd: true)
            }
        }
    }

    /// The newest readings of a device, read on the reader thread.
    func newestOffPool(device: String, limit: Int) async -> Result<ReplayPage, SQLiteError> {
        await worker.run { [self] in
            Result { () throws(SQLiteError) -> ReplayPage in try newest(device: device, limit: limit) }
        } ?? .failure(.misuse("the outbox is closed", operation: "read"))
    }

    static func decode(_ s: SQLiteStatement) throws(SQLiteError) -> StoredReading {
        let kind = s.text(at: 4)
        guard let readingKind = ReadingKind(rawValue: kind) else {
            throw SQLiteError(code: 11, message: "reading \(s.int64(at: 0)) has unknown kind \(kind)", operation: "read")
        }
        return StoredReading(id: s.int64(at: 0), seq: s.int64(at: 2), epoch: s.int64(at: 9), reading: Reading(
            device: s.text(at: 1), characteristic: s.text(at: 3), kind: readingKind, value: s.blob(at: 5),
            monotonicNanoseconds: s.int64(at: 6), wallNanoseconds: s.int64(at: 7), session: s.int64(at: 8)))
    }

    private static func rows(_ c: Connection, after: Int64, through: Int64, limit: Int, device: DeviceFilter?) throws(SQLiteError) -> [StoredReading] {
        let read = decode
        let bounds: [SQLiteValue] = [.integer(after), .integer(through), .integer(Int64(limit))]
        guard let devices = device?.devices else { return try c.pageAll.rows(bounds, read) }
        if devices.count == 1 { return try c.pageDevice.rows(bounds + [.text(devices.first!)], read) }
        guard !devices.isEmpty else { return [] }
        let placeholders = (0..<devices.count).map { "?\($0 + 4)" }.joined(separator: ", ")
        let statement = try c.database.prepare("\(columns) WHERE id > ?1 AND id <= ?2 AND device IN (\(placeholders)) ORDER BY id LIMIT ?3")
        return try statement.rows(bounds + devices.sorted().map { .text($0) }, read)
    }

    /// The page, read on the reader thread.
    func pageOffPool(after cursor: Int64, limit: Int, device: DeviceFilter?, through: Int64?) async -> Result<ReplayPage, SQLiteError> {
        await worker.run { [self] in
            Result { () throws(SQLiteError) -> ReplayPage in try page(after: cursor, limit: limit, device: device, through: through) }
        } ?? .failure(.misuse("the outbox is closed", operation: "read"))
    }

    /// The id and wall time of the first reading after `cursor`, if any.
    func firstReading(after cursor: Int64) throws(SQLiteError) -> (id: Int64, wallNanoseconds: Int64)? {
        try connection.withLock { (slot: inout Connection?) throws(SQLiteError) -> (id: Int64, wallNanoseconds: Int64)? in
            guard let c = slot else { throw SQLiteError.misuse("the outbox is closed", operation: "stats") }
            return try c.firstAfter.rows([.integer(cursor)]) { s throws(SQLiteError) in (s.int64(at: 0), s.int64(at: 1)) }.first
        }
    }
}
