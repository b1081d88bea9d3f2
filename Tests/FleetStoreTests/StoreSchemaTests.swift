@testable import FleetStore
import FleetTestKit
import Foundation
import Testing

@Suite("Store schema, migrations and unusable files")
struct StoreSchemaTests {
    let fixture: StoreFixture
    init() throws { fixture = try StoreFixture() }

    func tables(_ path: String) throws -> [String] {
        let db = try SQLiteDatabase(path: path, flags: [.readOnly])
        return try db.prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .rows { $0.text(at: 0) }
    }

    @Test("an empty file (version 0) is migrated to the current version, marked fleetd's, in WAL mode")
    func migratesFromZero() throws {
        _ = FileManager.default.createFile(atPath: fixture.path, contents: Data())
        let state = try StateStore(path: fixture.path)
        state.close()
        let db = try SQLiteDatabase(path: fixture.path)
        #expect(try db.userVersion == StoreSchema.currentVersion)
        #expect(try db.applicationID == StoreSchema.applicationID)
        #expect(try db.pragma("journal_mode") == .text("wal"))
        #expect(try tables(fixture.path) == ["consumers", "device_records", "devices", "evictions", "identities", "outbox_marks", "readings", "record_marks", "sequences", "state"])
    }

    @Test("migrations run in order from the file's version, and a failing one leaves the file as it was")
    func forwardMigrations() throws {
        let v1 = StoreSchema.Migration(version: 1, statements: ["CREATE TABLE t (a INTEGER)"])
        let v2 = StoreSchema.Migration(version: 2, statements: ["ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'two'"])
        let v3 = StoreSchema.Migration(version: 3, statements: ["CREATE INDEX t_b ON t (b)"])
        let first = try StoreSchema.open(path: fixture.path, migrations: [v1])
        try first.execute("INSERT INTO t (a) VALUES (7)")
        #expect(try first.userVersion == 1)

        let broken = StoreSchema.Migration(version: 2, statements: ["ALTER TABLE t ADD COLUMN b TEXT", "CREATE TABLE t (again)"])
        let failure = #expect(throws: StoreOpenError.self) { try StoreSchema.open(path: fixture.path, migrations: [v1, broken]) }
        guard case .unavailable(_, let error)? = failure else { Issue.record("expected .unavailable, got \(String(describing: failure))"); return }
        #expect(error.operation == "migration to version 2")
        #expect(try first.userVersion == 1)
        #expect(try first.scalar("SELECT count(*) FROM pragma_table_info('t')") == .integer(1))

        let migrated = try StoreSchema.open(path: fixture.path, migrations: [v1, v2, v3])
        #expect(try migrated.userVersion == 3)
        #expect(try migrated.scalar("SELECT a || b FROM t") == .text("7two"))
    }

    @Test("a file from a newer fleetd is refused with both versions, and left untouched")
    func newerVersionRefused() throws {
        try StateStore(path: fixture.path).upsert(kind: .backoff, key: "d", payload: [1])
        try SQLiteDatabase(path: fixture.path).setUserVersion(StoreSchema.currentVersion + 5)
        let error = #expect(throws: StoreOpenError.self) { try StateStore(path: fixture.path) }
        #expect(error == .newerSchema(path: fixture.path, found: StoreSchema.currentVersion + 5, supported: StoreSchema.currentVersion))
        #expect(error?.fileIsUnusable == true)
        #expect(error?.description.contains("newer than this fleetd understands") == true)
        #expect(throws: StoreOpenError.self) { try Outbox(path: fixture.path) }
        #expect(try SQLiteDatabase(path: fixture.path).userVersion == StoreSchema.currentVersion + 5)
    }

    @Test("another application's database is refused, not migrated")
    func foreignRefused() throws {
        try SQLiteDatabase(path: fixture.path).execute("CREATE TABLE photos (id INTEGER)")
        let error = #expect(throws: StoreOpenError.self) { try StateStore(path: fixture.path) }
        #expect(error == .foreign(path: fixture.path, applicationID: 0))
        try SQLiteDatabase(path: fixture.path).execute("PRAGMA application_id = 1234")
        #expect(throws: StoreOpenError.foreign(path: fixture.path, applicationID: 1234)) { try StateStore(path: fixture.path) }
        #expect(try tables(fixture.path) == ["photos"])
    }

    @Test("a garbage file opens as a typed corruption error; moving it aside lets a fresh store start")
    func garbageMovedAside() throws {
        var garbage = [UInt8](repeating: 0, count: 8192)
        var rng = SystemRandomNumberGenerator()
        for i in garbage.indices { garbage[i] = UInt8.random(in: 0...255, using: &rng) }
        _ = FileManager.default.createFile(atPath: fixture.path, contents: Data(garbage))
        let error = #expect(throws: StoreOpenError.self) { try StateStore(path: fixture.path) }
        // A WAL left beside it moves with it.
        _ = FileManager.default.createFile(atPath: fixture.path + "-wal", contents: Data("stale".utf8))
        guard case .corrupt(let path, let cause)? = error else { Issue.record("expected .corrupt, got \(String(describing: error))"); return }
        #expect(path == fixture.path)
        #expect(cause.kind == .corrupt)
        #expect(cause.message.contains("not a database"))
        #expect(error?.fileIsUnusable == true)

        let moved = try StoreFile.moveAside(fixture.path, wallSeconds: 1_700_000_000)
        #expect(moved.path == fixture.path + ".corrupt-20231114T221320Z")
        #expect(moved.files == [moved.path, moved.path + "-wal"])
        #expect(FileManager.default.contents(atPath: moved.path) == Data(garbage))
        #expect(!FileManager.default.fileExists(atPath: fixture.path))
        #expect(!FileManager.default.fileExists(atPath: fixture.path + "-wal"))

        let fresh = try StateStore(path: fixture.path)
        #expect(try fresh.allRows().isEmpty)
        fresh.close()
        // A second move in the same second does not overwrite the first.
        let again = try StoreFile.moveAside(fixture.path, wallSeconds: 1_700_000_000)
        #expect(again.path == moved.path + "-2")
        #expect(again.files.first == again.path)
    }

    @Test("damaged pages are reported as corruption when read, and by verify on open")
    func damagedPages() throws {
        let state = try StateStore(path: fixture.path)
        try state.upsert((0..<2000).map { StateRow(kind: .identity, key: "device-\($0)", payload: Array(repeating: UInt8($0 % 200), count: 100)) })
        state.close()
        // Fold the WAL into the file, then overwrite the table's pages and leave the header (page 1) intact.
        let db = try SQLiteDatabase(path: fixture.path)
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let handle = try #require(FileHandle(forWritingAtPath: fixture.path))
        try handle.seek(toOffset: 8192)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 65536))
        try handle.close()
        let damaged = try StateStore(path: fixture.path)
        let error = #expect(throws: SQLiteError.self) { try damaged.allRows() }
        #expect(error?.kind == .corrupt)
        damaged.close()
        let verified = #expect(throws: StoreOpenError.self) { try StateStore(path: fixture.path, options: .init(verify: true)) }
        #expect(verified?.fileIsUnusable == true)
    }
}
