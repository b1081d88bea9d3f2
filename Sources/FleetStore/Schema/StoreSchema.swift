/// The fleetd store's schema: one file holding the fleet's state rows, the outbox of readings and the
/// consumers' cursors. `PRAGMA user_version` records which migrations have run; `PRAGMA application_id` marks
/// the file as fleetd's, so another program's database is never migrated. docs/state-store.md lists the same
/// statements for operators.
public enum StoreSchema {
    /// 'fltd': the application id written into the header of every fleetd store.
    public static let applicationID: Int32 = 0x666C_7464

    /// One forward step: the statements that take the file from `version - 1` to `version`.
    public struct Migration: Sendable {
        public var version: Int32
        public var statements: [String]
        public init(version: Int32, statements: [String]) {
            self.version = version
            self.statements = statements
        }
    }

    /// Every migration, in order; migration i (1-based) brings version i - 1 to i. Never edit a shipped one:
    /// append a new migration instead.
    ///
    /// `readings` deliberately has no index but its id: rows are appended in id order, so a commit writes only
    /// the table's last pages. An index on (device, …) would take an insert into a different leaf page per device
    /// in the batch — measured 6–12× the bytes written per reading with 200 devices (docs/state-store.md), wear
    /// an SD card cannot afford. The writer alone assigns `seq`, from `sequences`, in the same transaction, so
    /// (device, seq) is unique by construction (the crash test checks it).
    public static let migrations: [Migration] = [
        Migration(version: 1, statements: [
            """
            CREATE TABLE state (
                kind TEXT NOT NULL,
                key TEXT NOT NULL,
                payload BLOB NOT NULL,
                updated_wall_ns INTEGER NOT NULL,
                PRIMARY KEY (kind, key)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE readings (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                device TEXT NOT NULL,
                seq INTEGER NOT NULL CHECK (seq >= 1),
                characteristic TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('notification', 'indication', 'read')),
                value BLOB NOT NULL,
                mono_ns INTEGER NOT NULL,
                wall_ns INTEGER NOT NULL,
                session INTEGER NOT NULL
            )
            """,
            """
            CREATE TABLE sequences (
                device TEXT PRIMARY KEY NOT NULL,
                last_seq INTEGER NOT NULL
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE consumers (
                name TEXT PRIMARY KEY NOT NULL,
                cursor INTEGER NOT NULL,
                updated_wall_ns INTEGER NOT NULL
            ) WITHOUT ROWID
            """,
        ]),
    ]

    /// The version this build writes and understands.
    public static var currentVersion: Int32 { migrations.last?.version ?? 0 }
}
