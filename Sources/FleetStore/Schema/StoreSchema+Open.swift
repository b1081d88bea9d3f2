/// Opening a connection to a store file: checks whose file it is and which version, switches to WAL, applies the
/// connection's settings and runs the missing migrations.
extension StoreSchema {
    /// Settings for one connection. `synchronous` is per connection, so the state and the outbox can differ.
    public struct ConnectionSettings: Sendable {
        public var synchronous: SQLiteDatabase.Synchronous
        public var busyTimeout: Duration
        /// WAL pages after which a commit on this connection checkpoints; 0 leaves checkpoints to others.
        public var autocheckpointPages: Int
        /// Runs `PRAGMA quick_check` on open (reads every page: seconds for a large file).
        public var verify: Bool
        public var readOnly: Bool

        public init(synchronous: SQLiteDatabase.Synchronous = .normal, busyTimeout: Duration = .seconds(5),
                    autocheckpointPages: Int = 1000, verify: Bool = false, readOnly: Bool = false) {
            self.synchronous = synchronous
            self.busyTimeout = busyTimeout
            self.autocheckpointPages = autocheckpointPages
            self.verify = verify
            self.readOnly = readOnly
        }
    }

    /// The WAL file is truncated back to this size after a checkpoint, so one burst does not keep it large.
    static let walSizeLimitBytes = 16 << 20

    /// Opens `path` (creating it unless `readOnly`), migrated to `migrations`' last version.
    public static func open(path: String, settings: ConnectionSettings = ConnectionSettings(),
                            migrations: [Migration] = StoreSchema.migrations) throws(StoreOpenError) -> SQLiteDatabase {
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, flags: settings.readOnly ? [.readOnly] : .default, busyTimeout: settings.busyTimeout)
        } catch {
            throw classify(error, path: path)
        }
        do {
            // The first read of the header: garbage fails here with SQLITE_NOTADB.
            let applicationID = try database.applicationID
            let version = try database.userVersion
            let supported = migrations.last?.version ?? 0
            if applicationID != 0 && applicationID != StoreSchema.applicationID {
                throw StoreOpenError.foreign(path: path, applicationID: applicationID)
            }
            if version > supported { throw StoreOpenError.newerSchema(path: path, found: version, supported: supported) }
            if !settings.readOnly {
                try database.enableWAL()
                try database.execute("PRAGMA journal_size_limit = \(walSizeLimitBytes)")
            }
            try database.setSynchronous(settings.synchronous)
            try database.setWALAutocheckpoint(pages: settings.autocheckpointPages)
            if version < supported {
                guard !settings.readOnly else {
                    throw StoreOpenError.unavailable(path: path, .misuse("schema version \(version) needs migrating, and this connection is read-only", operation: "open"))
                }
                try migrate(database, path: path, migrations: migrations)
            }
            if settings.verify, let complaint = try database.quickCheck() {
                throw StoreOpenError.corrupt(path: path, SQLiteError(code: 11, message: complaint, operation: "quick_check"))
            }
        } catch let error as StoreOpenError {
            throw error
        } catch let error as SQLiteError {
            throw classify(error, path: path)
        } catch {
            throw StoreOpenError.unavailable(path: path, .misuse("\(error)", operation: "open"))
        }
        return database
    }

    /// Runs the migrations above the file's version in one transaction. The version is read again under the
    /// write lock, since another connection to the same file may have migrated it meanwhile.
    static func migrate(_ database: SQLiteDatabase, path: String, migrations: [Migration]) throws(StoreOpenError) {
        let foreign: Bool
        do throws(SQLiteError) {
            foreign = try database.transaction(.immediate) { () throws(SQLiteError) -> Bool in
                let applicationID = try database.applicationID
                let version = try database.userVersion
                if version == 0 && applicationID == 0,
                   case .integer(let tables)? = try database.scalar("SELECT count(*) FROM sqlite_schema"), tables > 0 {
                    // A file nobody has marked: only an empty one is ours to take.
                    return true
                }
                for migration in migrations where migration.version > version {
                    for statement in migration.statements {
                        do throws(SQLiteError) { try database.execute(statement) } catch {
                            var failure = error
                            failure.operation = "migration to version \(migration.version)"
                            throw failure
                        }
                    }
                }
                try database.execute("PRAGMA application_id = \(StoreSchema.applicationID)")
                try database.setUserVersion(migrations.last?.version ?? 0)
                return false
            }
        } catch {
            throw classify(error, path: path)
        }
        if foreign { throw StoreOpenError.foreign(path: path, applicationID: 0) }
    }

    static func classify(_ error: SQLiteError, path: String) -> StoreOpenError {
        error.kind == .corrupt ? .corrupt(path: path, error) : .unavailable(path: path, error)
    }
}
