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
    /// an SD card cannot afford. The writer alone assigns `seq`, from its numbers saved in `sequences` and the readings
    /// stored after them (migration 4), so (device, seq) is unique by construction (the crash tests check it).
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
        // The fleet's state in columns, one row per device, identity and eviction: a restore reads plain values
        // (no JSON to decode), a change writes only its own rows, and `sqlite3` shows each field by name. A new
        // field is a nullable column added by a later migration (`ALTER TABLE devices ADD COLUMN …`), so rows
        // written before it read as NULL. Lists are space-separated: UUIDs and addresses contain no space.
        Migration(version: 2, statements: [
            """
            CREATE TABLE devices (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT,
                class TEXT NOT NULL,
                subscribe TEXT NOT NULL,
                read_on_connect TEXT NOT NULL,
                wanted INTEGER NOT NULL CHECK (wanted IN (0, 1)),
                configured INTEGER CHECK (configured IN (0, 1)),
                last_addresses TEXT NOT NULL,
                failures INTEGER NOT NULL CHECK (failures >= 0),
                gave_up INTEGER NOT NULL CHECK (gave_up IN (0, 1)),
                last_reason TEXT,
                updated_wall_ns INTEGER NOT NULL
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE identities (
                id TEXT PRIMARY KEY NOT NULL,
                address_type TEXT CHECK (address_type IN ('public', 'random')),
                display_name TEXT,
                addresses TEXT NOT NULL,
                first_seen_ns INTEGER NOT NULL,
                last_seen_ns INTEGER NOT NULL,
                updated_wall_ns INTEGER NOT NULL
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE evictions (
                position INTEGER PRIMARY KEY,
                victim TEXT NOT NULL,
                admitted TEXT NOT NULL,
                reason TEXT NOT NULL,
                at_ns INTEGER NOT NULL
            )
            """,
        ]),
        // Pairing: the adapter holding a device's bond (its keys live on that controller only) and why a device
        // waits for `fleetctl pair`. NULL for rows written before.
        Migration(version: 3, statements: [
            "ALTER TABLE devices ADD COLUMN bond_adapter TEXT",
            "ALTER TABLE devices ADD COLUMN needs_pairing TEXT",
        ]),
        // The outbox's bookkeeping: `sequences_through` is the highest reading id that `sequences` accounts for.
        // The writer saves the per-device numbers every `sequenceSaveInterval` readings instead of with every commit
        // (a row per device in the batch dirtied most of that table's pages each commit); readings after the mark
        // carry their own numbers, which the open after a crash reads back. Before this version `sequences` was
        // written with every commit, so it accounts for every reading already stored.
        Migration(version: 4, statements: [
            """
            CREATE TABLE outbox_marks (
                name TEXT PRIMARY KEY NOT NULL,
                value INTEGER NOT NULL
            ) WITHOUT ROWID
            """,
            """
            INSERT INTO outbox_marks (name, value)
            VALUES ('sequences_through', coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'readings'), 0))
            """,
        ]),
        // `readings` again, with its `kind` check written as comparisons. SQLite (3.40, Debian 12's) evaluates an
        // `IN` over three or more constants through a temporary B-tree, built afresh for every row checked: each
        // insert opened a B-tree and its pager and inserted the three kinds into it, a third of the outbox
        // writer's mallocs (issue 18, docs/performance.md). A CHECK cannot be altered, so the table is copied:
        // every row with its id, and the AUTOINCREMENT counter as it was (DROP TABLE removes its row from
        // `sqlite_sequence`, RENAME carries the new table's), so no id is ever given out twice.
        Migration(version: 5, statements: [
            """
            CREATE TABLE readings_v5 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                device TEXT NOT NULL,
                seq INTEGER NOT NULL CHECK (seq >= 1),
                characteristic TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind = 'notification' OR kind = 'indication' OR kind = 'read'),
                value BLOB NOT NULL,
                mono_ns INTEGER NOT NULL,
                wall_ns INTEGER NOT NULL,
                session INTEGER NOT NULL
            )
            """,
            """
            INSERT INTO readings_v5 (id, device, seq, characteristic, kind, value, mono_ns, wall_ns, session)
            SELECT id, device, seq, characteristic, kind, value, mono_ns, wall_ns, session FROM readings ORDER BY id
            """,
            "DELETE FROM sqlite_sequence WHERE name = 'readings_v5'",
            "INSERT INTO sqlite_sequence (name, seq) SELECT 'readings_v5', seq FROM sqlite_sequence WHERE name = 'readings'",
            "DROP TABLE readings",
            "ALTER TABLE readings_v5 RENAME TO readings",
        ]),
        // The outbox's epoch (issue 41): a random number that names one numbering of the per-device `seq`. A fresh
        // file (the old one moved aside or deleted) starts a new epoch, and so does an open after a run that ended
        // with the machine (power loss, kernel crash), when storage may have lost commits; each reading keeps the
        // epoch it was numbered in, so a consumer compares `seq` only within one epoch (docs/mqtt.md). ADD COLUMN
        // with a constant default rewrites nothing: rows stored before read as 0, which means `first_epoch`.
        // `boot` and `running` record which boot last opened the file and whether that run closed it cleanly.
        Migration(version: 6, statements: [
            "ALTER TABLE readings ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0",
            "INSERT INTO outbox_marks (name, value) VALUES ('epoch', 1 + abs(random() % 9007199254740990))",
            "INSERT INTO outbox_marks (name, value) SELECT 'first_epoch', value FROM outbox_marks WHERE name = 'epoch'",
        ]),
        // Stored records (issue 37, docs/records.md). `device_records` holds one row per record a device's RACP (or a
        // live notification) delivered, keyed by the device's own key and the record's bytes, so a record sent again
        // is stored once and a record numbered again after a reset (other bytes) is not mistaken for one already
        // held. It is written only for readings that carry a key (a few a day per meter), never for the stream of
        // heart-rate values, and holds at most 65 536 keys per device and service. `record_marks` is what the next
        // sync starts from (the mark and its anchor) and what `fleetctl records` shows.
        Migration(version: 7, statements: [
            """
            CREATE TABLE device_records (
                device TEXT NOT NULL,
                service INTEGER NOT NULL,
                record_key INTEGER NOT NULL,
                content BLOB NOT NULL,
                first_wall_ns INTEGER NOT NULL,
                PRIMARY KEY (device, service, record_key, content)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE record_marks (
                device TEXT NOT NULL,
                service INTEGER NOT NULL,
                mark_key INTEGER,
                anchor BLOB,
                stored_on_device INTEGER,
                ge_unsupported INTEGER NOT NULL DEFAULT 0,
                last_sync_wall_ns INTEGER,
                last_outcome TEXT,
                sequence_resets INTEGER NOT NULL DEFAULT 0,
                duplicates INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (device, service)
            ) WITHOUT ROWID
            """,
        ]),
    ]

    /// The version this build writes and understands.
    public static var currentVersion: Int32 { migrations.last?.version ?? 0 }
}
