import CSQLite
@testable import FleetStore
import Foundation
import Testing

@Suite("SQLite wrapper")
struct SQLiteWrapperTests {
    let fixture: StoreFixture
    init() throws { fixture = try StoreFixture() }

    @Test("every storage class binds and reads back as itself")
    func bindAndColumnTypes() throws {
        let db = try SQLiteDatabase(path: fixture.path)
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n)")
        let insert = try db.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)")
        let rows: [[SQLiteValue]] = [
            [.integer(.max), .real(-0.125), .text("µ-sensor ✓"), .blob([0, 1, 254, 255]), .null],
            [.integer(.min), .real(1e300), .text(""), .blob([]), .null],
        ]
        for row in rows { #expect(try insert.run(row) == 1) }
        let select = try db.prepare("SELECT i, r, s, b, n, typeof(b) FROM t ORDER BY rowid")
        let back = try select.rows { s in (0..<5).map { s.value(at: $0) } + [s.value(at: 5)] }
        #expect(back.map { Array($0.prefix(5)) } == rows)
        // An empty blob stays a blob, not NULL.
        #expect(back[1][5] == .text("blob"))
        #expect(try select.rows { s in s.int64(at: 0) } == [.max, .min])
        #expect(try select.rows { s in s.double(at: 1) } == [-0.125, 1e300])
        #expect(try select.rows { s in s.text(at: 2) } == ["µ-sensor ✓", ""])
        #expect(try select.rows { s in s.blob(at: 3) } == [[0, 1, 254, 255], []])
        #expect(try select.rows { s in s.isNull(at: 4) } == [true, true])
        let typed = try db.prepare("SELECT ?1, ?2, ?3, ?4")
        try typed.bind(Int64(42), at: 1)
        try typed.bind(2.5, at: 2)
        try typed.bind("x", at: 3)
        try typed.bind([9], at: 4)
        #expect(try typed.step())
        #expect((0..<4).map { typed.value(at: $0) } == [.integer(42), .real(2.5), .text("x"), .blob([9])])
    }

    @Test("borrowed text and blobs are stored as given, empty ones as empty, and are unbound once the call returns")
    func borrowedBindings() throws {
        let db = try SQLiteDatabase(path: fixture.path)
        try db.execute("CREATE TABLE t (s TEXT NOT NULL, b BLOB NOT NULL)")
        let insert = try db.prepare("INSERT INTO t VALUES (?1, ?2)")
        // A long string is on the heap, a short one inline: both are read in place.
        let cases: [(String, [UInt8])] = [("a-device-id-longer-than-fifteen-bytes µ ✓", [0, 1, 254, 255]), ("hr", [7]), ("", [])]
        for (text, bytes) in cases {
            try insert.borrowing(text, at: 1) { () throws(SQLiteError) in
                try insert.borrowing(bytes, at: 2) { () throws(SQLiteError) in
                    defer { insert.reset() }
                    _ = try insert.step()
                }
            }
        }
        let back = try db.prepare("SELECT s, b, typeof(b) FROM t ORDER BY rowid").rows { [$0.value(at: 0), $0.value(at: 1), $0.value(at: 2)] }
        #expect(back == cases.map { [.text($0.0), .blob($0.1), .text("blob")] })
        // Nothing is left bound to bytes that are gone: stepped again, the parameters are NULL.
        let again = #expect(throws: SQLiteError.self) { _ = try insert.step() }
        #expect(again?.message.contains("NOT NULL constraint failed") == true, "\(String(describing: again))")
        insert.reset()
        // A failure in the body comes out as itself, and the parameter is unbound all the same: with the blob bound
        // (copied), a step afterwards fails on the text alone.
        try insert.bind([9], at: 2)
        let thrown = #expect(throws: SQLiteError.self) {
            try insert.borrowing("x", at: 1) { () throws(SQLiteError) in
                throw SQLiteError(code: 1, message: "from the body", operation: "test")
            }
        }
        #expect(thrown?.message == "from the body")
        let unbound = #expect(throws: SQLiteError.self) { _ = try insert.step() }
        #expect(unbound?.message.contains("NOT NULL constraint failed: t.s") == true, "\(String(describing: unbound))")
        insert.reset()
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(3))
    }

    @Test("a body that leaves the statement on a row still has its borrowed text unbound when the call returns")
    func borrowedBindingAfterAnUnfinishedStep() throws {
        let db = try SQLiteDatabase(path: fixture.path)
        let select = try db.prepare("SELECT ?1")
        let first = try select.borrowing("a borrowed text longer than fifteen bytes", at: 1) { () throws(SQLiteError) -> SQLiteValue in
            #expect(try select.step())
            return select.value(at: 0) // no reset: the statement is left on its row
        }
        #expect(first == .text("a borrowed text longer than fifteen bytes"))
        // Reset and unbound: stepping again starts over, with NULL, rather than going on from the row.
        #expect(try select.step())
        #expect(select.value(at: 0) == .null)
        select.reset()

        // Run to its end and not reset: unbound all the same (the next step fails on the NULL).
        try db.execute("CREATE TABLE t (s TEXT NOT NULL)")
        let insert = try db.prepare("INSERT INTO t VALUES (?1)")
        try insert.borrowing("stepped to its end", at: 1) { () throws(SQLiteError) in
            #expect(try !insert.step())
        }
        let again = #expect(throws: SQLiteError.self) { _ = try insert.step() }
        #expect(again?.message.contains("NOT NULL constraint failed") == true, "\(String(describing: again))")
        insert.reset()
        #expect(try db.scalar("SELECT s FROM t") == .text("stepped to its end"))
    }

    @Test("an error carries its codes, SQLite's message, the operation and the SQL")
    func errorsCarryMessages() throws {
        let db = try SQLiteDatabase(path: fixture.path)
        let syntax = #expect(throws: SQLiteError.self) { try db.prepare("SELEC 1") }
        #expect(syntax?.code == SQLITE_ERROR)
        #expect(syntax?.message.contains("syntax error") == true)
        #expect(syntax?.operation == "prepare")
        #expect(syntax?.sql == "SELEC 1")
        #expect(syntax?.description.contains("SELEC 1") == true)

        try db.execute("CREATE TABLE u (k TEXT UNIQUE)")
        let insert = try db.prepare("INSERT INTO u VALUES (?1)")
        try insert.run([.text("a")])
        let duplicate = #expect(throws: SQLiteError.self) { try insert.run([.text("a")]) }
        #expect(duplicate?.kind == .constraint)
        #expect(duplicate?.extendedCode == 2067) // SQLITE_CONSTRAINT_UNIQUE
        #expect(duplicate?.message.contains("UNIQUE constraint failed: u.k") == true)
        #expect(duplicate?.operation == "step")

        let missing = #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: fixture.directory.path + "/no/such/dir/x.db") }
        #expect(missing?.kind == .unavailable)
        #expect(missing?.operation.hasPrefix("open ") == true)

        let range = #expect(throws: SQLiteError.self) { try db.prepare("SELECT ?1").bind(.integer(1), at: 2) }
        #expect(range?.kind == .misuse)
    }

    @Test("full disk and corruption are distinguishable kinds")
    func kinds() {
        #expect(SQLiteError(code: SQLITE_FULL, message: "database or disk is full", operation: "step").kind == .full)
        // ENOSPC while growing the -shm or truncating arrives as an I/O error.
        #expect(SQLiteError(code: SQLITE_IOERR, extendedCode: 4874, message: "disk I/O error", operation: "step", systemErrno: ENOSPC).kind == .full)
        #expect(SQLiteError(code: SQLITE_IOERR, message: "disk I/O error", operation: "step", systemErrno: EIO).kind == .io)
        #expect(SQLiteError(code: SQLITE_CORRUPT, message: "database disk image is malformed", operation: "step").kind == .corrupt)
        #expect(SQLiteError(code: SQLITE_NOTADB, message: "file is not a database", operation: "step").kind == .corrupt)
        #expect(SQLiteError(code: SQLITE_BUSY, message: "database is locked", operation: "step").kind == .busy)
    }

    @Test("statements are finalised when released, and the database closes after its last statement")
    func statementsFinalised() throws {
        var db: SQLiteDatabase? = try SQLiteDatabase(path: fixture.path)
        try db!.execute("CREATE TABLE t (x)")
        do {
            let a = try db!.prepare("SELECT 1")
            let b = try db!.prepare("INSERT INTO t VALUES (1)")
            #expect(db!.liveStatements == 2)
            _ = (a, b)
        }
        #expect(db!.liveStatements == 0)
        weak let weakDatabase = db
        var statement: SQLiteStatement? = try db!.prepare("SELECT x FROM t")
        db = nil
        // The statement keeps its connection open.
        #expect(weakDatabase != nil)
        #expect(try statement!.step() == false)
        statement = nil
        #expect(weakDatabase == nil)
    }

    @Test("a transaction commits on return and rolls back on a thrown error")
    func transactions() throws {
        let db = try SQLiteDatabase(path: fixture.path)
        try db.execute("CREATE TABLE t (x INTEGER UNIQUE)")
        try db.transaction { () throws(SQLiteError) in try db.execute("INSERT INTO t VALUES (1)") }
        #expect(throws: SQLiteError.self) {
            try db.transaction { () throws(SQLiteError) in
                try db.execute("INSERT INTO t VALUES (2)")
                try db.execute("INSERT INTO t VALUES (1)")
            }
        }
        #expect(db.isAutocommit)
        #expect(try db.scalar("SELECT group_concat(x) FROM t") == .text("1"))
    }

    @Test("WAL mode, synchronous and user_version pragmas apply")
    func pragmas() throws {
        let db = try SQLiteDatabase(path: fixture.path)
        try db.enableWAL()
        #expect(try db.pragma("journal_mode") == .text("wal"))
        try db.setSynchronous(.full)
        #expect(try db.pragma("synchronous") == .integer(2))
        try db.setUserVersion(7)
        #expect(try db.userVersion == 7)
        #expect(try db.quickCheck() == nil)
    }
}
