internal import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// A failed SQLite call: SQLite's primary and extended result codes, its message, the operating-system errno
/// behind an I/O failure, and the operation and SQL it happened in.
///
/// `kind` sorts the codes into the cases a caller acts on differently: a full disk (keep the data in memory
/// and retry), a corrupt file (move it aside and rebuild), contention, and everything else.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The primary result code (`SQLITE_FULL` = 13, `SQLITE_CORRUPT` = 11, …).
    public var code: Int32
    /// The extended result code (`SQLITE_IOERR_WRITE`, `SQLITE_CORRUPT_INDEX`, …); equals `code` when there is none.
    public var extendedCode: Int32
    /// `sqlite3_errmsg` at the time of the failure, or a description of the misuse the wrapper refused.
    public var message: String
    /// What was being done: `open`, `prepare`, `step`, `bind`, `exec`, `commit`, …
    public var operation: String
    /// The statement text, when there was one.
    public var sql: String?
    /// The errno of the last failed system call on the connection (`sqlite3_system_errno`), 0 if none.
    public var systemErrno: Int32

    public init(code: Int32, extendedCode: Int32? = nil, message: String, operation: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.operation = operation
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// How a caller should treat the failure.
    public enum Kind: String, Sendable, Equatable {
        /// No space left for the database, its WAL or its shared-memory index (`SQLITE_FULL`, or an I/O error
        /// whose errno is ENOSPC/EDQUOT). Retrying after space returns succeeds.
        case full
        /// The file is not a database or its pages are damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
        case corrupt
        /// Another connection holds a lock longer than the busy timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`).
        case busy
        /// The file or directory cannot be opened or written (`SQLITE_CANTOPEN`, `SQLITE_READONLY`, `SQLITE_PERM`).
        case unavailable
        /// Another I/O failure (`SQLITE_IOERR_*` with another errno).
        case io
        /// A constraint was violated (`SQLITE_CONSTRAINT_*`): a programming error in the caller or the schema.
        case constraint
        /// The wrapper was used wrongly (closed store, bad argument) or SQLite reported misuse.
        case misuse
        case other
    }

    public var kind: Kind {
        switch code {
        case SQLITE_FULL: return .full
        case SQLITE_CORRUPT, SQLITE_NOTADB: return .corrupt
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH: return .unavailable
        case SQLITE_IOERR:
            // SQLite reports ENOSPC as SQLITE_FULL from write(), but as an I/O error from ftruncate, fallocate
            // and the -shm mapping; the errno tells them apart.
            return systemErrno == ENOSPC || systemErrno == EDQUOT ? .full : .io
        case SQLITE_CONSTRAINT: return .constraint
        case SQLITE_MISUSE, SQLITE_RANGE: return .misuse
        default: return .other
        }
    }

    public var description: String {
        var text = "SQLite \(operation) failed: \(message) (code \(code)"
        if extendedCode != code { text += ", extended \(extendedCode)" }
        if systemErrno != 0 { text += ", errno \(systemErrno): \(String(cString: strerror(systemErrno)))" }
        text += ")"
        if let sql { text += " in `\(sql)`" }
        return text
    }

    /// A refusal by the wrapper itself (closed store, invalid argument), reported as SQLITE_MISUSE.
    static func misuse(_ message: String, operation: String) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: message, operation: operation)
    }
}
