@testable import FleetStore
import FleetTestKit
import Foundation
import Testing

/// Schema version 5 copies `readings` to write its `kind` check as comparisons: SQLite ran the `IN` list through a
/// temporary B-tree built for every row inserted. These tests hold the insert's program to no such B-tree and the
/// copy to every row, id and the AUTOINCREMENT counter.
@Suite("Readings table, schema version 5")
struct ReadingsTableV5Tests {
    let fixture: StoreFixture
    init() throws { fixture = try StoreFixture() }

    func opcodes(_ database: SQLiteDatabase, _ sql: String) throws -> [String] {
        try database.prepare("EXPLAIN " + sql).rows { $0.text(at: 1) }
    }

    func insert(_ database: SQLiteDatabase, kind: String, seq: Int = 1) throws {
        try database.execute("""
            INSERT INTO readings (device, seq, characteristic, kind, value, mono_ns, wall_ns, session)
            VALUES ('a', \(seq), 'c', '\(kind)', x'0102', 7, 8, 1)
            """)
    }

    func counter(_ database: SQLiteDatabase) throws -> SQLiteValue? {
        try database.scalar("SELECT seq FROM sqlite_sequence WHERE name = 'readings'")
    }

    @Test("the writer's insert runs without a temporary B-tree")
    func insertOpensNoTemporaryTable() throws {
        let database = try StoreSchema.open(path: fixture.path)
        let program = try opcodes(database, OutboxWriter.insertSQL)
        #expect(program.contains("Insert"))
        #expect(!program.contains("OpenEphemeral"), "the insert builds a temporary B-tree per row: \(program)")
    }

    @Test("the kind check still refuses a kind that is not one of the three, and takes each of them")
    func kindCheckHolds() throws {
        let database = try StoreSchema.open(path: fixture.path)
        for kind in ["notification", "indication", "read"] { try insert(database, kind: kind) }
        let refused = #expect(throws: SQLiteError.self) { try insert(database, kind: "notify") }
        #expect(refused?.message.contains("CHECK constraint failed") == true, "\(String(describing: refused))")
        #expect(try database.scalar("SELECT count(*) FROM readings") == .integer(3))
    }

    /// The writer's insert as versions 4 and 5 knew it (version 6 added `epoch`).
    static let insertBeforeEpochSQL = """
        INSERT INTO readings (device, seq, characteristic, kind, value, mono_ns, wall_ns, session)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
        """

    @Test("a version 4 file keeps every reading with its id, and the counter past readings already dropped")
    func migratedFromVersion4() throws {
        let v4 = Array(StoreSchema.migrations.prefix { $0.version <= 4 })
        var before: [[String]] = []
        do {
            let old = try StoreSchema.open(path: fixture.path, migrations: v4)
            #expect(try old.userVersion == 4)
            #expect(try opcodes(old, Self.insertBeforeEpochSQL).contains("OpenEphemeral"), "version 4's check is the IN list")
            for (seq, kind) in ["notification", "indication", "read", "notification"].enumerated() { try insert(old, kind: kind, seq: seq + 1) }
            // Retention dropped the newest (as consumers took it): the counter stays at 4 while the largest id is 3.
            try old.execute("DELETE FROM readings WHERE id = 4")
            #expect(try counter(old) == .integer(4))
            before = try old.prepare("SELECT * FROM readings ORDER BY id").rows { row in (0..<9).map { row.text(at: Int32($0)) } }
        }

        let database = try StoreSchema.open(path: fixture.path, migrations: Array(StoreSchema.migrations.prefix(5)))
        #expect(try database.userVersion == 5)
        let after = try database.prepare("SELECT * FROM readings ORDER BY id").rows { row in (0..<9).map { row.text(at: Int32($0)) } }
        #expect(after == before)
        #expect(after.count == 3)
        #expect(try counter(database) == .integer(4))
        #expect(try database.scalar("SELECT count(*) FROM sqlite_sequence WHERE name = 'readings_v5'") == .integer(0))
        try insert(database, kind: "read", seq: 5)
        #expect(try database.scalar("SELECT max(id) FROM readings") == .integer(5), "an id is never given out twice")
        #expect(!(try opcodes(database, Self.insertBeforeEpochSQL).contains("OpenEphemeral")))
    }

    @Test("an emptied version 4 outbox keeps its counter too")
    func emptiedVersion4KeepsCounter() throws {
        let v4 = Array(StoreSchema.migrations.prefix { $0.version <= 4 })
        do {
            let old = try StoreSchema.open(path: fixture.path, migrations: v4)
            for seq in 1...2 { try insert(old, kind: "notification", seq: seq) }
            try old.execute("DELETE FROM readings")
        }
        let database = try StoreSchema.open(path: fixture.path)
        #expect(try counter(database) == .integer(2))
        try insert(database, kind: "notification", seq: 3)
        #expect(try database.scalar("SELECT id FROM readings") == .integer(3))
    }
}
