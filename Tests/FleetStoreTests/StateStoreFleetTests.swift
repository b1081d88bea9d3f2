import FleetStore
import Foundation
import Testing

/// The fleet tables (`devices`, `identities`, `evictions`) on real files: a save writes its rows in one
/// transaction, a restore reads back exactly what was written, NULL stays nil, and a file of schema version 1
/// (the outbox alone) is migrated with its readings kept.
@Suite("Fleet state tables")
struct StateStoreFleetTests {
    let fixture: StoreFixture
    init() throws { fixture = try StoreFixture() }

    static let strap = DeviceRow(id: "mfr-0059-010203040506", name: "Strap 1", policyClass: "critical",
                                 subscribe: ["00002a37-0000-1000-8000-00805f9b34fb", "00002a38-0000-1000-8000-00805f9b34fb"],
                                 readOnConnect: ["00002a19-0000-1000-8000-00805f9b34fb"], wanted: true, configured: true,
                                 lastAddresses: ["C0:00:00:00:00:01", "D0:00:00:00:00:02"], failures: 3, gaveUp: false, lastReason: "le-connection-abort")
    static let bare = DeviceRow(id: "addr-A00000000001", policyClass: "normal", wanted: false)
    static let identity = IdentityRow(id: "addr-C00000000001", addressType: "random", displayName: "Strap",
                                      addresses: ["C0:00:00:00:00:01/random", "C0:00:00:00:00:09"],
                                      firstSeenNanoseconds: 1_700_000_000_123_456_789, lastSeenNanoseconds: 1_700_000_100_000_000_000)

    @Test("rows come back as written across a reopen, NULL columns as nil, lists in order")
    func roundTrip() throws {
        let store = try StateStore(path: fixture.path)
        let evictions = [EvictionRow(victim: "addr-A00000000001", admitted: "operator", reason: "operator eviction", atNanoseconds: 42)]
        try store.apply(FleetStateChange(devices: [Self.strap, Self.bare], identities: [Self.identity], evictions: evictions))
        store.close()

        let state = try StateStore(path: fixture.path).fleetState()
        #expect(state.devices == [Self.bare, Self.strap], "ordered by id")
        #expect(state.devices.first?.configured == nil && state.devices.first?.name == nil && state.devices.first?.lastReason == nil)
        #expect(state.identities == [Self.identity])
        #expect(state.evictions == evictions)
    }

    @Test("a bond's adapter and a needs-pairing reason are kept (schema 3), and read back as nil where never set")
    func pairingColumns() throws {
        let store = try StateStore(path: fixture.path)
        var meter = DeviceRow(id: "addr-C0FFEE000001", policyClass: "critical", wanted: true, bondAdapter: "hci1",
                              needsPairing: "stale bond on hci1")
        try store.apply(FleetStateChange(devices: [meter, Self.bare], identities: [], evictions: []))
        store.close()
        let state = try StateStore(path: fixture.path).fleetState()
        #expect(state.devices.first { $0.id == meter.id } == meter)
        #expect(state.devices.first { $0.id == Self.bare.id }?.bondAdapter == nil)
        meter.needsPairing = nil
        let again = try StateStore(path: fixture.path)
        try again.apply(FleetStateChange(devices: [meter], identities: [], evictions: []))
        #expect(try again.fleetState().devices.first { $0.id == meter.id } == meter, "cleared once paired again")
    }

    @Test("a save changes only its rows: an upsert replaces one device, a removal deletes one, evictions are rewritten whole")
    func incremental() throws {
        let store = try StateStore(path: fixture.path)
        try store.apply(FleetStateChange(devices: [Self.strap, Self.bare], identities: [Self.identity],
                                         evictions: [EvictionRow(victim: "a", admitted: "b", reason: "r", atNanoseconds: 1)]))
        var changed = Self.strap
        changed.failures = 4
        changed.gaveUp = true
        try store.apply(FleetStateChange(devices: [changed], removedDevices: [Self.bare.id]))
        var state = try store.fleetState()
        #expect(state.devices == [changed])
        #expect(state.identities == [Self.identity], "untouched by a save that did not name it")
        #expect(state.evictions.count == 1, "nil evictions leave the log as it is")
        try store.apply(FleetStateChange(removedIdentities: [Self.identity.id], evictions: []))
        state = try store.fleetState()
        #expect(state.identities.isEmpty && state.evictions.isEmpty)
    }

    @Test("a save that fails half-way writes nothing")
    func allOrNothing() throws {
        let store = try StateStore(path: fixture.path)
        try store.apply(FleetStateChange(devices: [Self.bare]))
        var invalid = Self.strap
        invalid.failures = -1  // CHECK (failures >= 0)
        #expect(throws: SQLiteError.self) {
            try store.apply(FleetStateChange(devices: [Self.strap, invalid], removedDevices: [Self.bare.id]), metadata: ["k": "v"])
        }
        #expect(try store.fleetState().devices == [Self.bare])
        #expect(try store.metadata("k") == nil)
    }

    @Test("metadata is kept in the state table under kind meta")
    func metadata() throws {
        let store = try StateStore(path: fixture.path)
        #expect(try store.metadata("json-import") == nil)
        try store.apply(FleetStateChange(), metadata: ["json-import": "/var/lib/fleetd/snapshot.json"])
        #expect(try store.metadata("json-import") == "/var/lib/fleetd/snapshot.json")
        #expect(try store.rows(kind: .metadata).map(\.key) == ["json-import"])
    }

    @Test("a version 1 file (the outbox alone) is migrated to the fleet tables with its readings kept")
    func migratesVersionOne() async throws {
        let v1 = Array(StoreSchema.migrations.prefix(1))
        let db = try StoreSchema.open(path: fixture.path, migrations: v1)
        try db.execute("INSERT INTO readings (device, seq, characteristic, kind, value, mono_ns, wall_ns, session) VALUES ('d', 1, 'c', 'read', x'01', 1, 1, 1)")
        try db.execute("INSERT INTO sequences (device, last_seq) VALUES ('d', 1)")
        #expect(try db.userVersion == 1)

        let store = try StateStore(path: fixture.path)
        try store.apply(FleetStateChange(devices: [Self.bare]))
        #expect(try SQLiteDatabase(path: fixture.path).userVersion == StoreSchema.currentVersion)
        let outbox = try Outbox(path: fixture.path)
        defer { outbox.close() }
        #expect(try allStored(outbox).map(\.seq) == [1])
        #expect(try store.fleetState().devices == [Self.bare])
    }
}
