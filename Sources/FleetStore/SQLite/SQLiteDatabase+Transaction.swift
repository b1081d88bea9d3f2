/// Transactions.
extension SQLiteDatabase {
    /// How a transaction takes its locks. Writers use `.immediate`: a deferred transaction that reads and then
    /// writes can fail with SQLITE_BUSY_SNAPSHOT without waiting when another connection committed in between.
    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it (or the commit) throws.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN \(kind.rawValue)")
        let result: T
        do {
            result = try body()
            try execute("COMMIT")
        } catch {
            rollback()
            throw error
        }
        return result
    }

    /// Rolls back the open transaction, if any. SQLite may already have rolled it back itself (after
    /// SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM), in which case there is nothing left to do.
    public func rollback() {
        guard !isAutocommit else { return }
        try? execute("ROLLBACK")
    }
}
