import FleetStore
import Foundation
import Testing

@Suite("State rows")
struct StateStoreTests {
    let fixture: StoreFixture
    init() throws { fixture = try StoreFixture() }

    @Test("upsert inserts then replaces, delete removes, rows come back by kind and key across a reopen")
    func upsertDeleteLoad() throws {
        let store = try StateStore(path: fixture.path)
        try store.upsert(kind: .wantedDevice, key: "b", payload: Array("{\"v\":1}".utf8))
        try store.upsert(kind: .wantedDevice, key: "a", payload: [])
        try store.upsert(kind: .backoff, key: "a", payload: [3])
        try store.upsert(kind: .wantedDevice, key: "b", payload: Array("{\"v\":2}".utf8))
        #expect(try store.rows(kind: .wantedDevice).map(\.key) == ["a", "b"])
        #expect(try store.row(kind: .wantedDevice, key: "b")?.payload == Array("{\"v\":2}".utf8))
        #expect(try store.row(kind: .wantedDevice, key: "a")?.payload == [])
        #expect(try store.delete(kind: .backoff, key: "a"))
        #expect(try store.delete(kind: .backoff, key: "a") == false)
        #expect(try store.row(kind: .backoff, key: "a") == nil)
        let before = try store.allRows()
        store.close()
        #expect(throws: SQLiteError.self) { try store.allRows() }

        let reopened = try StateStore(path: fixture.path)
        let after = try reopened.allRows()
        #expect(after == before)
        #expect(after.map { "\($0.kind)/\($0.key)" } == ["wanted-device/a", "wanted-device/b"])
        #expect(after.allSatisfy { $0.updatedWallNanoseconds > 0 })
    }

    @Test("a batch upsert is one transaction: all rows or none")
    func batchIsAtomic() throws {
        let store = try StateStore(path: fixture.path)
        let rows = (0..<1000).map { StateRow(kind: .identity, key: "id-\($0)", payload: Array("\($0)".utf8)) }
        try store.upsert(rows)
        #expect(try store.rows(kind: .identity).count == 1000)
        #expect(try store.stats().writes == 1)
        #expect(try store.deleteAll(kind: .identity) == 1000)
        #expect(try store.allRows().isEmpty)
    }

    @Test("one row's update writes a few WAL pages, not the whole state")
    func incrementalWrite() throws {
        let store = try StateStore(path: fixture.path)
        try store.upsert((0..<10_000).map { StateRow(kind: .wantedDevice, key: String(format: "dev-%05d", $0), payload: Array(repeating: 7, count: 200)) })
        let before = try store.stats()
        try store.upsert(kind: .wantedDevice, key: "dev-05000", payload: Array(repeating: 8, count: 200))
        let after = try store.stats()
        #expect(after.pagesWritten - before.pagesWritten <= 3)
        #expect(after.bytesWritten - before.bytesWritten <= 3 * (4096 + 24))
    }
}
