/// Settings that go through PRAGMA statements.
extension SQLiteDatabase {
    /// `PRAGMA synchronous`: how often SQLite waits for the disk. Per connection. docs/state-store.md says what a
    /// crash and a power loss can cost at each setting in WAL mode.
    public enum Synchronous: String, Sendable, CaseIterable {
        /// Never fsyncs, not even at checkpoints: a power loss (or OS crash) can lose committed transactions and,
        /// because a checkpoint may then write database pages before the WAL frames they come from reach the disk,
        /// corrupt the file, WAL mode or not (sqlite.org/pragma.html#pragma_synchronous). A crash of the process
        /// alone loses nothing.
        case off = "OFF"
        /// WAL mode: fsyncs only at checkpoints. A commit survives a process crash; a power loss can roll back
        /// the commits since the last checkpoint (the file stays consistent).
        case normal = "NORMAL"
        /// WAL mode: fsyncs the WAL at every commit. A commit survives a power loss.
        case full = "FULL"
        /// As `full`, and also fsyncs the directory after creating the WAL.
        case extra = "EXTRA"

        /// What a power loss or kernel crash can cost at this setting in WAL mode (a crash of the process alone
        /// costs nothing committed at any setting). docs/state-store.md has the same table.
        public var powerLossCost: PowerLossCost {
            switch self {
            case .off: .committedTransactionsOrTheFile
            case .normal: .commitsSinceLastSync
            case .full, .extra: .nothingCommitted
            }
        }
    }

    /// What a power loss can take back (``Synchronous/powerLossCost``).
    public enum PowerLossCost: String, Sendable {
        /// Nothing committed, if the storage honours flushes.
        case nothingCommitted = "nothing committed (if the storage honours flushes)"
        /// The commits since the WAL was last synced roll back; the file stays consistent.
        case commitsSinceLastSync = "the commits since the last checkpoint roll back; the file stays consistent"
        /// Committed transactions, and the file can be corrupted.
        case committedTransactionsOrTheFile = "committed transactions, and the file can be corrupted"
    }

    /// The value of `PRAGMA name`, nil when it returns no row.
    public func pragma(_ name: String) throws(SQLiteError) -> SQLiteValue? {
        try scalar("PRAGMA \(name)")
    }

    /// `PRAGMA user_version`: the schema version this project stores in the file header.
    public var userVersion: Int32 {
        get throws(SQLiteError) {
            guard case .integer(let v)? = try pragma("user_version") else { return 0 }
            return Int32(truncatingIfNeeded: v)
        }
    }

    public func setUserVersion(_ version: Int32) throws(SQLiteError) {
        try execute("PRAGMA user_version = \(version)")
    }

    /// `PRAGMA application_id`: which application owns the file.
    public var applicationID: Int32 {
        get throws(SQLiteError) {
            guard case .integer(let v)? = try pragma("application_id") else { return 0 }
            return Int32(truncatingIfNeeded: v)
        }
    }

    /// Switches to write-ahead logging (persistent in the file). Throws when SQLite keeps another mode (an
    /// in-memory database, or a file system without shared memory).
    public func enableWAL() throws(SQLiteError) {
        let mode = try scalar("PRAGMA journal_mode = WAL")
        guard case .text(let name)? = mode, name.lowercased() == "wal" else {
            throw SQLiteError.misuse("journal_mode stayed \(String(describing: mode)) instead of wal", operation: "enable WAL")
        }
    }

    public func setSynchronous(_ level: Synchronous) throws(SQLiteError) {
        try execute("PRAGMA synchronous = \(level.rawValue)")
    }

    /// WAL pages after which a commit on this connection checkpoints (0 disables automatic checkpoints).
    public func setWALAutocheckpoint(pages: Int) throws(SQLiteError) {
        try execute("PRAGMA wal_autocheckpoint = \(pages)")
    }

    /// `PRAGMA quick_check`: nil when the file is sound, else SQLite's first complaint.
    public func quickCheck() throws(SQLiteError) -> String? {
        guard case .text(let verdict)? = try pragma("quick_check") else { return "quick_check returned nothing" }
        return verdict == "ok" ? nil : verdict
    }

    /// The file's page size in bytes.
    public var pageSize: Int {
        get throws(SQLiteError) {
            guard case .integer(let v)? = try pragma("page_size") else { return 4096 }
            return Int(v)
        }
    }
}
