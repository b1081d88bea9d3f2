internal import CSQLite

/// One connection to an SQLite database file, closed in deinit.
///
/// Not thread-safe: it is opened with SQLITE_OPEN_NOMUTEX, so its owner (a store that serialises access, or
/// the one thread that owns it) must never use it from two threads at once.
public final class SQLiteDatabase {
    let raw: OpaquePointer
    public let path: String
    /// Statements not yet finalised; tests use it to show that none leak.
    public internal(set) var liveStatements = 0

    /// How to open the file.
    public struct OpenFlags: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let readOnly = OpenFlags(rawValue: SQLITE_OPEN_READONLY)
        public static let readWrite = OpenFlags(rawValue: SQLITE_OPEN_READWRITE)
        public static let create = OpenFlags(rawValue: SQLITE_OPEN_CREATE)
        /// Refuses a path whose last component is a symbolic link.
        public static let noFollow = OpenFlags(rawValue: SQLITE_OPEN_NOFOLLOW)
        public static let `default`: OpenFlags = [.readWrite, .create]
    }

    /// Opens (and with `.create`, creates) the database at `path`. Extended result codes are on, and the busy
    /// handler waits up to `busyTimeout` for another connection's lock.
    public init(path: String, flags: OpenFlags = .default, busyTimeout: Duration = .seconds(5)) throws(SQLiteError) {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags.rawValue | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            let errno = db.map { sqlite3_system_errno($0) } ?? 0
            // Even a failed open allocates a handle that must be closed.
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc & 0xff, extendedCode: rc, message: message, operation: "open \(path)", systemErrno: errno)
        }
        self.raw = db
        self.path = path
        let milliseconds = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(db, Int32(clamping: milliseconds))
    }

    deinit {
        // close_v2 defers the close if a statement is still alive; statements hold a reference to this
        // object, so none can be by now.
        sqlite3_close_v2(raw)
    }

    /// The error for result code `rc`, with the connection's message and errno.
    func error(_ rc: Int32, operation: String, sql: String? = nil) -> SQLiteError {
        let message = sqlite3_errmsg(raw).map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
        return SQLiteError(code: rc & 0xff, extendedCode: rc, message: message, operation: operation, sql: sql,
                           systemErrno: sqlite3_system_errno(raw))
    }

    /// Compiles one SQL statement. `persistent` hints that it will be reused many times.
    public func prepare(_ sql: String, persistent: Bool = false) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(database: self, sql: sql, persistent: persistent)
    }

    /// Runs one or more `;`-separated statements that return no rows needed by the caller (DDL, PRAGMA settings).
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(raw, sql, nil, nil, &message)
        guard rc == SQLITE_OK else {
            var failure = error(rc, operation: "exec", sql: sql)
            if let message { failure.message = String(cString: message) }
            sqlite3_free(message)
            throw failure
        }
    }

    /// The first column of the first row of `sql`, or nil when it returns no row.
    public func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteValue? {
        let statement = try prepare(sql)
        try statement.bind(values)
        return try statement.step() ? statement.value(at: 0) : nil
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes64(raw)) }

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(raw) }

    /// False while a transaction is open.
    public var isAutocommit: Bool { sqlite3_get_autocommit(raw) != 0 }

    /// Pages this connection has written (to the WAL in WAL mode) since it was opened (SQLITE_DBSTATUS_CACHE_WRITE).
    public var pagesWritten: Int64 {
        var current: Int32 = 0, highwater: Int32 = 0
        sqlite3_db_status(raw, SQLITE_DBSTATUS_CACHE_WRITE, &current, &highwater, 0)
        return Int64(current)
    }

    /// The SQLite library version, e.g. "3.40.1".
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}
