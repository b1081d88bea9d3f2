@testable import FleetStore
import FleetTestKit
import Foundation
import Testing

/// The per-device sequence numbers are saved in `sequences` every `sequenceSaveInterval` readings, when retention
/// drops a reading after the save, and at close; in between, a device's number lives in its newest reading. These
/// tests take what a power cut would leave (the database and its WAL copied while the writer is idle after a
/// commit) and check that numbering goes on without a duplicate from such a file.
@Suite("Outbox sequence saves")
struct OutboxSequenceSaveTests {
    let fixture: StoreFixture
    init() throws { fixture = try StoreFixture() }

    func configuration(_ adjust: (inout Outbox.Configuration) -> Void = { _ in }) -> Outbox.Configuration {
        var c = Outbox.Configuration()
        c.commitDelay = .milliseconds(5)
        adjust(&c)
        return c
    }

    /// The files a crash would leave right now: the database and its WAL, copied while nothing is being written.
    func crashImage(_ name: String) throws -> String { try crashImageOf(fixture.path, name) }

    func crashImageOf(_ path: String, _ name: String) throws -> String {
        let image = fixture.directory.path + "/\(name).db"
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: image + suffix)
        }
        return image
    }

    /// The saved rows and the mark they account through, read straight from the file.
    func saved(_ path: String) throws -> (rows: [String: Int64], through: Int64) {
        let db = try SQLiteDatabase(path: path, flags: [.readOnly])
        var rows: [String: Int64] = [:]
        for (device, seq) in try db.prepare("SELECT device, last_seq FROM sequences").rows([], { ($0.text(at: 0), $0.int64(at: 1)) }) {
            rows[device] = seq
        }
        guard case .integer(let through)? = try db.scalar("SELECT value FROM outbox_marks WHERE name = 'sequences_through'") else {
            throw TestKitError("no sequences_through mark in \(path)")
        }
        return (rows, through)
    }

    func seqs(_ outbox: Outbox, _ device: String) throws -> [Int64] {
        try allStored(outbox, device: DeviceFilter(device: device)).map(\.seq)
    }

    @Test("after a crash, numbering goes on from the readings committed since the numbers were last saved")
    func crashBeforeASave() async throws {
        let outbox = try Outbox(path: fixture.path, configuration: configuration())
        for n in 0..<7 { outbox.append(sampleReading("a", n)) }
        for n in 0..<3 { outbox.append(sampleReading("b", n)) }
        try await outbox.flush()
        let image = try crashImage("crashed")
        outbox.close()
        // Nothing saved yet: the numbers are only in the readings.
        #expect(try saved(image).rows.isEmpty)
        #expect(try saved(image).through == 0)

        let reopened = try Outbox(path: image, configuration: configuration())
        defer { reopened.close() }
        reopened.append(sampleReading("a", 7))
        reopened.append(sampleReading("b", 3))
        reopened.append(sampleReading("c", 0))
        try await reopened.flush()
        #expect(try seqs(reopened, "a") == Array(1...8))
        #expect(try seqs(reopened, "b") == Array(1...4))
        #expect(try seqs(reopened, "c") == [1])
    }

    @Test("a commit whose retention drops a reading the saved numbers do not account for saves them, so a crash after it keeps the number")
    func retentionSavesFirst() async throws {
        let outbox = try Outbox(path: fixture.path, configuration: configuration { $0.retention.maxRows = 5 })
        for n in 0..<20 { outbox.append(sampleReading("a", n)) }
        try await outbox.flush()
        for n in 0..<5 { outbox.append(sampleReading("b", n)) }
        try await outbox.flush()
        let image = try crashImage("crashed")
        outbox.close()
        // Every reading of "a" is gone; only the saved row remembers its number.
        #expect(try saved(image).rows["a"] == 20)

        let reopened = try Outbox(path: image, configuration: configuration { $0.retention.maxRows = 5 })
        defer { reopened.close() }
        #expect(try seqs(reopened, "a").isEmpty)
        reopened.append(sampleReading("a", 20))
        try await reopened.flush()
        #expect(try seqs(reopened, "a") == [21])
    }

    @Test("numbers found after a crash are saved with the next save, so retention may then drop the readings that held them")
    func recoveredNumbersAreSaved() async throws {
        let first = try Outbox(path: fixture.path, configuration: configuration())
        for n in 0..<7 { first.append(sampleReading("a", n)) }
        try await first.flush()
        let crashed = try crashImage("crashed")
        first.close()

        // Reopened from the crash: "a" is numbered only by its readings. "b"'s readings push them out.
        let second = try Outbox(path: crashed, configuration: configuration { $0.sequenceSaveInterval = 5; $0.retention.maxRows = 10 })
        for n in 0..<20 { second.append(sampleReading("b", n)) }
        try await second.flush()
        #expect(try seqs(second, "a").isEmpty)
        #expect(try saved(crashed).rows["a"] == 7)
        let crashedAgain = try crashImageOf(crashed, "crashed-again")
        second.close()

        let third = try Outbox(path: crashedAgain, configuration: configuration())
        defer { third.close() }
        third.append(sampleReading("a", 7))
        try await third.flush()
        #expect(try seqs(third, "a") == [8])
    }

    @Test("the numbers are saved once the readings since the last save reach the interval, and not before")
    func savedEveryInterval() async throws {
        let outbox = try Outbox(path: fixture.path, configuration: configuration { $0.sequenceSaveInterval = 10 })
        defer { outbox.close() }
        for n in 0..<6 { outbox.append(sampleReading("a", n)) }
        try await outbox.flush()
        #expect(try saved(fixture.path).through == 0)
        for n in 0..<4 { outbox.append(sampleReading("b", n)) }
        try await outbox.flush()
        // Ten readings since the last save (none): this commit saved both devices through id 10.
        var now = try saved(fixture.path)
        #expect(now.through == 10)
        #expect(now.rows == ["a": 6, "b": 4])
        outbox.append(sampleReading("a", 6))
        try await outbox.flush()
        now = try saved(fixture.path)
        #expect(now.through == 10)
        #expect(now.rows["a"] == 6)
    }

    @Test("close saves the numbers, so the next open finds them all in the saved rows")
    func closeSaves() async throws {
        var outbox = try Outbox(path: fixture.path, configuration: configuration())
        for n in 0..<4 { outbox.append(sampleReading("a", n)) }
        outbox.append(sampleReading("b", 0))
        try await outbox.flush()
        #expect(try saved(fixture.path).rows.isEmpty)
        #expect(outbox.close().unwritten == 0)
        #expect(try saved(fixture.path).rows == ["a": 4, "b": 1])
        #expect(try saved(fixture.path).through == 5)

        outbox = try Outbox(path: fixture.path, configuration: configuration())
        outbox.append(sampleReading("b", 1))
        try await outbox.flush()
        #expect(try seqs(outbox, "b") == [1, 2])
        outbox.close()
    }

    @Test("a version 3 file, whose sequences were saved with every commit, is marked saved through its last reading and numbering goes on")
    func migratedFromVersion3() async throws {
        let v3 = Array(StoreSchema.migrations.prefix { $0.version <= 3 })
        do {
            let old = try StoreSchema.open(path: fixture.path, migrations: v3)
            #expect(try old.userVersion == 3)
            // What a version 3 writer left: readings 1…3 of "a" with their row, and "b"'s number whose readings are gone.
            for seq in 1...3 {
                try old.execute("""
                    INSERT INTO readings (device, seq, characteristic, kind, value, mono_ns, wall_ns, session)
                    VALUES ('a', \(seq), 'c', 'notification', x'00', 0, 0, 1)
                    """)
            }
            try old.execute("INSERT INTO sequences (device, last_seq) VALUES ('a', 3), ('b', 9)")
        } // the connection closes here

        let outbox = try Outbox(path: fixture.path, configuration: configuration())
        defer { outbox.close() }
        #expect(try saved(fixture.path).through == 3)
        outbox.append(sampleReading("a", 3))
        outbox.append(sampleReading("b", 9))
        try await outbox.flush()
        #expect(try seqs(outbox, "a") == [1, 2, 3, 4])
        #expect(try seqs(outbox, "b") == [10])
    }
}
