import Synchronization

/// The fleet's persistent state as rows keyed by (kind, key): each change writes only its own row, in its own
/// small transaction, instead of rewriting a whole snapshot.
///
/// Thread-safe; calls are synchronous and serialised on one connection. A write costs tens of microseconds at
/// the default `synchronous = NORMAL` (no fsync per commit: a power loss can roll back the last changes, a crash
/// of fleetd cannot; see docs/state-store.md). It may wait up to one outbox commit when the outbox holds the
/// file's write lock.
public final class StateStore: Sendable {
    public let path: String
    private let connection: Mutex<Connection?>

    /// The connection and the statements prepared on it.
    final class Connection {
        let database: SQLiteDatabase
        let upsert: SQLiteStatement
        let delete: SQLiteStatement
        let selectOne: SQLiteStatement
        var writes: Int64 = 0
        /// Statements of the fleet tables, prepared at first use and kept.
        var prepared: [String: SQLiteStatement] = [:]

        func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
            if let known = prepared[sql] { return known }
            let made = try database.prepare(sql, persistent: true)
            prepared[sql] = made
            return made
        }

        init(database: SQLiteDatabase, upsert: SQLiteStatement, delete: SQLiteStatement, selectOne: SQLiteStatement) {
            self.database = database
            self.upsert = upsert
            self.delete = delete
            self.selectOne = selectOne
        }
    }

    /// How the state connection is set up.
    public struct Options: Sendable {
        public var synchronous: SQLiteDatabase.Synchronous
        public var busyTimeout: Duration
        /// Above the outbox's 1000 pages, so that in a running fleetd the outbox's thread usually pays for the
        /// checkpoints, not a state write; it still bounds the WAL when the state store is used alone.
        public var autocheckpointPages: Int
        public var verify: Bool

        public init(synchronous: SQLiteDatabase.Synchronous = .normal, busyTimeout: Duration = .seconds(5),
                    autocheckpointPages: Int = 4000, verify: Bool = false) {
            self.synchronous = synchronous
            self.busyTimeout = busyTimeout
            self.autocheckpointPages = autocheckpointPages
            self.verify = verify
        }
    }

    /// Opens (creating and migrating) the store file at `path`.
    public init(path: String, options: Options = Options()) throws(StoreOpenError) {
        self.path = path
        let database = try StoreSchema.open(path: path, settings: .init(
            synchronous: options.synchronous, busyTimeout: options.busyTimeout,
            autocheckpointPages: options.autocheckpointPages, verify: options.verify))
        do {
            connection = Mutex(Connection(
                database: database,
                upsert: try database.prepare("""
                    INSERT INTO state (kind, key, payload, updated_wall_ns) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT (kind, key) DO UPDATE SET payload = excluded.payload, updated_wall_ns = excluded.updated_wall_ns
                    """, persistent: true),
                delete: try database.prepare("DELETE FROM state WHERE kind = ?1 AND key = ?2", persistent: true),
                selectOne: try database.prepare("SELECT payload, updated_wall_ns FROM state WHERE kind = ?1 AND key = ?2", persistent: true)))
        } catch {
            throw StoreSchema.classify(error, path: path)
        }
    }

    /// Runs `body` on the open connection; a closed store refuses with SQLITE_MISUSE.
    func withConnection<T: Sendable>(_ operation: String, _ body: (Connection) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try connection.withLock { (slot: inout Connection?) throws(SQLiteError) -> T in
            guard let open = slot else { throw SQLiteError.misuse("the state store at \(path) is closed", operation: operation) }
            return try body(open)
        }
    }

    /// Inserts or replaces one row: a transaction of its own, committed when this returns.
    public func upsert(kind: StateKind, key: String, payload: [UInt8]) throws(SQLiteError) {
        let now = StoreClock.wallNanoseconds()
        try withConnection("upsert") { (c: Connection) throws(SQLiteError) in
            try c.upsert.run([.text(kind.rawValue), .text(key), .blob(payload), .integer(now)])
            c.writes += 1
        }
    }

    /// Inserts or replaces many rows in one transaction: all or none (the one-time import of a JSON snapshot).
    public func upsert(_ rows: [StateRow]) throws(SQLiteError) {
        let now = StoreClock.wallNanoseconds()
        try withConnection("upsert rows") { (c: Connection) throws(SQLiteError) in
            try c.database.transaction { () throws(SQLiteError) in
                for row in rows {
                    try c.upsert.run([.text(row.kind.rawValue), .text(row.key), .blob(row.payload), .integer(now)])
                }
            }
            c.writes += 1
        }
    }

    /// Deletes one row; false when there was none.
    @discardableResult
    public func delete(kind: StateKind, key: String) throws(SQLiteError) -> Bool {
        try withConnection("delete") { (c: Connection) throws(SQLiteError) -> Bool in
            let changed = try c.delete.run([.text(kind.rawValue), .text(key)])
            c.writes += 1
            return changed > 0
        }
    }

    /// Deletes every row of `kind`; returns how many.
    @discardableResult
    public func deleteAll(kind: StateKind) throws(SQLiteError) -> Int {
        try withConnection("delete all") { (c: Connection) throws(SQLiteError) -> Int in
            let changed = try c.database.prepare("DELETE FROM state WHERE kind = ?1").run([.text(kind.rawValue)])
            c.writes += 1
            return changed
        }
    }

    /// One row, or nil.
    public func row(kind: StateKind, key: String) throws(SQLiteError) -> StateRow? {
        try withConnection("row") { (c: Connection) throws(SQLiteError) -> StateRow? in
            try c.selectOne.rows([.text(kind.rawValue), .text(key)]) { s throws(SQLiteError) in
                StateRow(kind: kind, key: key, payload: s.blob(at: 0), updatedWallNanoseconds: s.int64(at: 1))
            }.first
        }
    }

    /// Every row of `kind`, ordered by key.
    public func rows(kind: StateKind) throws(SQLiteError) -> [StateRow] {
        try withConnection("rows") { (c: Connection) throws(SQLiteError) -> [StateRow] in
            try c.database.prepare("SELECT key, payload, updated_wall_ns FROM state WHERE kind = ?1 ORDER BY key")
                .rows([.text(kind.rawValue)]) { s throws(SQLiteError) in
                    StateRow(kind: kind, key: s.text(at: 0), payload: s.blob(at: 1), updatedWallNanoseconds: s.int64(at: 2))
                }
        }
    }

    /// Every row, ordered by kind then key: what a restart restores.
    public func allRows() throws(SQLiteError) -> [StateRow] {
        try withConnection("all rows") { (c: Connection) throws(SQLiteError) -> [StateRow] in
            try c.database.prepare("SELECT kind, key, payload, updated_wall_ns FROM state ORDER BY kind, key")
                .rows { s throws(SQLiteError) in
                    StateRow(kind: StateKind(s.text(at: 0)), key: s.text(at: 1), payload: s.blob(at: 2), updatedWallNanoseconds: s.int64(at: 3))
                }
        }
    }

    /// Reads every page of the file: nil when sound, else SQLite's first complaint.
    public func quickCheck() throws(SQLiteError) -> String? {
        try withConnection("quick_check") { (c: Connection) throws(SQLiteError) -> String? in try c.database.quickCheck() }
    }

    /// What the state connection has done since it opened.
    public struct Stats: Sendable, Equatable {
        /// Write transactions committed (one per upsert or delete call).
        public var writes: Int64
        /// Pages this connection appended to the WAL.
        public var pagesWritten: Int64
        /// `pagesWritten` in bytes, each WAL frame being a page plus its 24-byte header.
        public var bytesWritten: Int64
    }

    public func stats() throws(SQLiteError) -> Stats {
        try withConnection("stats") { (c: Connection) throws(SQLiteError) -> Stats in
            let pages = c.database.pagesWritten
            return Stats(writes: c.writes, pagesWritten: pages, bytesWritten: pages * Int64(try c.database.pageSize + 24))
        }
    }

    /// Closes the connection; later calls throw SQLITE_MISUSE. Also done on deinit.
    public func close() {
        connection.withLock { slot in slot = nil }
    }
}
