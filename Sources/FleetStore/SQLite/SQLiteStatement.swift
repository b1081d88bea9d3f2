internal import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// A prepared statement: bind parameters (1-based, as in SQL), step through rows, read columns (0-based), and
/// reset to run it again. Finalised in deinit; it keeps its database open until then.
///
/// Not thread-safe: use it from the thread that owns its database.
public final class SQLiteStatement {
    let raw: OpaquePointer
    /// Keeps the connection alive for as long as a statement of it exists.
    public let database: SQLiteDatabase
    public let sql: String

    init(database: SQLiteDatabase, sql: String, persistent: Bool) throws(SQLiteError) {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sql.withCString { sqlite3_prepare_v3(database.raw, $0, -1, flags, &statement, nil) }
        guard rc == SQLITE_OK, let statement else {
            throw database.error(rc, operation: "prepare", sql: sql)
        }
        self.raw = statement
        self.database = database
        self.sql = sql
        database.liveStatements += 1
    }

    deinit {
        sqlite3_finalize(raw)
        database.liveStatements -= 1
    }

    // MARK: Binding

    /// Binds `value` to parameter `index` (1-based).
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .integer(let v): rc = sqlite3_bind_int64(raw, index, v)
        case .real(let v): rc = sqlite3_bind_double(raw, index, v)
        case .text(let v):
            rc = Self.withText(v) { fleet_sqlite3_bind_text_transient(raw, index, $0, $1) }
        case .blob(let v):
            rc = Self.withBlob(v) { fleet_sqlite3_bind_blob_transient(raw, index, $0, $1) }
        case .null: rc = sqlite3_bind_null(raw, index)
        }
        guard rc == SQLITE_OK else { throw database.error(rc, operation: "bind parameter \(index)", sql: sql) }
    }

    public func bind(_ value: Int64, at index: Int32) throws(SQLiteError) { try bind(.integer(value), at: index) }
    public func bind(_ value: Int, at index: Int32) throws(SQLiteError) { try bind(.integer(Int64(value)), at: index) }
    public func bind(_ value: Double, at index: Int32) throws(SQLiteError) { try bind(.real(value), at: index) }
    public func bind(_ value: String, at index: Int32) throws(SQLiteError) { try bind(.text(value), at: index) }
    public func bind(_ value: [UInt8], at index: Int32) throws(SQLiteError) { try bind(.blob(value), at: index) }
    public func bindNull(at index: Int32) throws(SQLiteError) { try bind(.null, at: index) }

    /// Runs `body` with `text` bound to parameter `index` in place: SQLite reads the string's own bytes instead of
    /// copying them (each copied binding was a malloc and a free per row; the outbox binds three strings and a
    /// blob per reading, issue 18). The bytes live only as long as this call, so before it returns the statement
    /// is reset (a body may leave it on a row) and the parameter bound to NULL: a step after it can never read them.
    public func borrowing<R>(_ text: String, at index: Int32, _ body: () throws(SQLiteError) -> R) throws(SQLiteError) -> R {
        try Self.withText(text) { scoped(fleet_sqlite3_bind_text_static(raw, index, $0, $1), at: index, body) }.get()
    }

    /// `borrowing(_:at:_:)` for a blob.
    public func borrowing<R>(_ bytes: [UInt8], at index: Int32, _ body: () throws(SQLiteError) -> R) throws(SQLiteError) -> R {
        try Self.withBlob(bytes) { scoped(fleet_sqlite3_bind_blob_static(raw, index, $0, $1), at: index, body) }.get()
    }

    /// Runs `body` with `text`'s UTF-8 bytes and their count, for SQLite's text binders. Never a nil pointer: ""
    /// has no buffer, and a nil pointer would bind NULL instead of an empty text.
    private static func withText<R>(_ text: String, _ body: (UnsafePointer<CChar>, Int32) -> R) -> R {
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else { return "".withCString { body($0, 0) } }
                return body(base, Int32(chars.count))
            }
        }
    }

    /// Runs `body` with `bytes`' address and count, for SQLite's blob binders. Never a nil pointer: an empty
    /// array has no buffer, and a nil pointer would bind NULL instead of an empty blob.
    private static func withBlob<R>(_ bytes: [UInt8], _ body: (UnsafeRawPointer, Int32) -> R) -> R {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return withUnsafeBytes(of: UInt8(0)) { body($0.baseAddress!, 0) } }
            return body(base, Int32(buffer.count))
        }
    }

    private func scoped<R>(_ rc: Int32, at index: Int32, _ body: () throws(SQLiteError) -> R) -> Result<R, SQLiteError> {
        guard rc == SQLITE_OK else { return .failure(database.error(rc, operation: "bind parameter \(index)", sql: sql)) }
        defer {
            // SQLite refuses to rebind a statement that was stepped and not reset (SQLITE_MISUSE, whether it stopped
            // on a row, at its end or on an error), which would leave the borrowed pointer bound; so reset it first,
            // even when the body did (cheap then). Its result repeats the last step's error, which the body has seen.
            sqlite3_reset(raw)
            let unbound = sqlite3_bind_null(raw, index)
            precondition(unbound == SQLITE_OK, "unbinding borrowed parameter \(index) of \(sql) failed: \(unbound)")
        }
        do throws(SQLiteError) {
            return .success(try body())
        } catch {
            return .failure(error)
        }
    }

    /// Binds `values` to parameters 1…n.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    // MARK: Stepping

    /// Runs one step: true when a row is ready to be read, false when the statement has finished.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(raw)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(rc, operation: "step", sql: sql)
        }
    }

    /// Makes the statement ready to run again; bindings are kept unless `clearBindings`.
    public func reset(clearBindings: Bool = false) {
        // sqlite3_reset repeats the last step's error, which `step` has already thrown.
        sqlite3_reset(raw)
        if clearBindings { sqlite3_clear_bindings(raw) }
    }

    /// Binds, runs to completion and resets: for INSERT, UPDATE, DELETE. Returns the rows changed.
    @discardableResult
    public func run(_ values: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        defer { reset() }
        try bind(values)
        while try step() {}
        return database.changes
    }

    /// Runs the statement (no parameters bound) and hands each row to `row` as it is stepped to, then resets.
    public func forEachRow(_ row: (SQLiteStatement) throws(SQLiteError) -> Void) throws(SQLiteError) {
        defer { reset() }
        while try step() { try row(self) }
    }

    /// Binds, collects every row through `row`, and resets.
    public func rows<T>(_ values: [SQLiteValue] = [], _ row: (SQLiteStatement) throws(SQLiteError) -> T) throws(SQLiteError) -> [T] {
        defer { reset() }
        try bind(values)
        var result: [T] = []
        while try step() { result.append(try row(self)) }
        return result
    }

    // MARK: Columns

    public var columnCount: Int32 { sqlite3_column_count(raw) }

    public func columnName(at index: Int32) -> String {
        sqlite3_column_name(raw, index).map { String(cString: $0) } ?? ""
    }

    public func isNull(at index: Int32) -> Bool { sqlite3_column_type(raw, index) == SQLITE_NULL }

    /// The column as an integer (SQLite's conversion rules apply: NULL is 0).
    public func int64(at index: Int32) -> Int64 { sqlite3_column_int64(raw, index) }

    public func double(at index: Int32) -> Double { sqlite3_column_double(raw, index) }

    /// The column as text (NULL is "").
    public func text(at index: Int32) -> String {
        guard let bytes = sqlite3_column_text(raw, index) else { return "" }
        let count = Int(sqlite3_column_bytes(raw, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Whether the column's text is exactly `text`'s UTF-8 bytes (NULL equals ""), without making a string.
    public func textEquals(_ text: String, at index: Int32) -> Bool {
        let bytes = sqlite3_column_text(raw, index)
        let count = Int(sqlite3_column_bytes(raw, index))
        var text = text
        return text.withUTF8 { expected in
            guard expected.count == count else { return false }
            guard count > 0, let bytes, let base = expected.baseAddress else { return true }
            return memcmp(bytes, base, count) == 0
        }
    }

    /// The column as text split at `separator` (an ASCII byte), empty parts skipped: lists stored as
    /// space-separated text, read without building the whole text first.
    public func textList(at index: Int32, separator: UInt8 = UInt8(ascii: " ")) -> [String] {
        guard let bytes = sqlite3_column_text(raw, index) else { return [] }
        let buffer = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(raw, index)))
        var parts: [String] = []
        var start = 0, i = 0
        while i <= buffer.count {
            if i == buffer.count || buffer[i] == separator {
                if i > start { parts.append(String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<i]), as: UTF8.self)) }
                start = i + 1
            }
            i += 1
        }
        return parts
    }

    /// The column as bytes (NULL and an empty blob are []).
    public func blob(at index: Int32) -> [UInt8] {
        // sqlite3_column_blob first, then sqlite3_column_bytes: the documented order that avoids a conversion.
        guard let bytes = sqlite3_column_blob(raw, index) else { return [] }
        let count = Int(sqlite3_column_bytes(raw, index))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// The column in its own storage class.
    public func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(raw, index) {
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(double(at: index))
        case SQLITE_TEXT: return .text(text(at: index))
        case SQLITE_BLOB: return .blob(blob(at: index))
        default: return .null
        }
    }
}
