import FleetManager
import FleetPlatform
import FleetStore
import FleetTestKit
import Foundation
import Identity
import Policy
import Supervision
import Testing

/// The fleet's state in the SQLite store, on real files: a restart gives back what was saved, a save writes only
/// the rows that changed, an older fleetd's JSON snapshot is imported once, and an unusable file (corrupt, newer)
/// is moved aside with its log line while fleetd starts empty.
@Suite("fleet state in the SQLite store")
struct FleetStateStoreTests {
    let directory: TemporaryDirectory
    var path: String { directory.path + "/fleetd.db" }
    var jsonPath: String { directory.path + "/snapshot.json" }
    let log = RecordingLogHandler()
    var logger: Logger { Logger(label: "test", level: .debug, handler: log) }

    init() throws { directory = try TemporaryDirectory(prefix: "fleet-state") }

    static func snapshot(devices count: Int = 3) throws -> FleetSnapshot {
        var registry = IdentityRegistry()
        let random = try BluetoothAddress("C0:00:00:00:00:01", type: .random)
        registry.record(.address(random), address: random, name: "Strap", now: .nanoseconds(1_700_000_000_123_456_789))
        let serial = FleetIdentity.manufacturer(companyID: 0x0059, key: try #require(IdentityKey([1, 2, 3, 4, 5, 6])))
        registry.record(serial, address: try BluetoothAddress("D0:00:00:00:00:02", type: .random), name: nil, now: .seconds(1_700_000_001))
        registry.record(serial, address: try BluetoothAddress("00:11:22:33:44:55", type: .public), name: "Cuff", now: .seconds(1_700_000_002))
        let devices = (0..<count).map { i in
            FleetSnapshot.Device(wanted: WantedDevice(id: DeviceID(String(format: "addr-A000000000%02X", i)), name: i == 0 ? "First" : nil,
                                                      policyClass: i == 1 ? .critical : .normal,
                                                      subscribe: i == 0 ? ["00002a37-0000-1000-8000-00805f9b34fb"] : [],
                                                      readOnConnect: i == 0 ? ["00002a19-0000-1000-8000-00805f9b34fb"] : []),
                                 isWanted: i != 2, configured: i == 2 ? nil : i == 0, lastAddresses: i == 0 ? ["A0:00:00:00:00:00"] : [],
                                 failures: i, gaveUp: i == 1, lastReason: i == 1 ? "page-timeout" : nil)
        }
        let eviction = FleetStateMachine.EvictionRecord(victim: devices[0].wanted.id, admitted: "operator", reason: "operator eviction",
                                                        at: .seconds(1_700_000_003))
        return FleetSnapshot(devices: devices, registry: registry, evictions: [eviction])
    }

    func open() throws -> FleetStateStore {
        try #require(FleetStateStore.open(path: path, importing: jsonPath, logger: logger))
    }

    func files(prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(prefix) }.sorted()
    }

    @Test("a restart gives back exactly the state that was saved")
    func restartRestores() throws {
        let snapshot = try Self.snapshot()
        var state = try open()
        #expect(state.saved == FleetSnapshot(devices: [], registry: IdentityRegistry(), evictions: []))
        let change = try state.save(snapshot)
        #expect(change.devices.count == 3 && change.identities.count == 2 && change.evictions?.count == 1)
        state.close()
        let reopened = try open()
        #expect(reopened.saved == snapshot)
        #expect(reopened.unreadable.isEmpty)
        #expect(reopened.change(to: snapshot).isEmpty, "nothing to write right after a restore")
    }

    @Test("a save writes only the rows that changed: one device of 1000 is one row")
    func onlyChangedRows() throws {
        var snapshot = try Self.snapshot(devices: 1000)
        var state = try open()
        try state.save(snapshot)
        #expect(try state.save(snapshot).isEmpty, "an unchanged state writes nothing")
        let writesBefore = try state.store.stats().writes
        let marker = StoreClock.wallNanoseconds()
        snapshot.devices[500].failures += 1
        let change = try state.save(snapshot)
        #expect(change.devices.map(\.id) == [snapshot.devices[500].wanted.id.rawValue])
        #expect(change.identities.isEmpty && change.removedDevices.isEmpty && change.evictions == nil)
        #expect(try state.store.stats().writes == writesBefore + 1, "one transaction")
        let db = try SQLiteDatabase(path: path, flags: [.readOnly])
        #expect(try db.scalar("SELECT count(*) FROM devices WHERE updated_wall_ns >= ?1", [.integer(marker)]) == .integer(1))
        #expect(try db.scalar("SELECT failures FROM devices WHERE id = ?1", [.text(snapshot.devices[500].wanted.id.rawValue)]) == .integer(501))

        // A device forgotten is deleted; an identity forgotten too.
        snapshot.devices.remove(at: 10)
        var registry = snapshot.registry
        registry.remove(stableID: "addr-C00000000001")
        snapshot.registry = registry
        let removal = try state.save(snapshot)
        #expect(removal.removedDevices == ["addr-A0000000000A"] && removal.removedIdentities == ["addr-C00000000001"] && removal.devices.isEmpty)
        #expect(try db.scalar("SELECT count(*) FROM devices") == .integer(999))
    }

    @Test("the supervisor's save looks only where the machine says: a failed connect in a fleet of 1000 is that device's row")
    func savesWhatTheMachineChanged() throws {
        func address(_ i: Int) -> String { String(format: "A0:00:00:00:%02X:%02X", i / 256, i % 256) }
        let hci0 = AdapterID(name: "hci0")
        let wanted = (0..<1000).map { WantedDevice(id: DeviceID("addr-" + address($0).replacingOccurrences(of: ":", with: "")), subscribe: ["2a37"]) }
        var machine = try FleetStateMachine(settings: .init(), rules: [], wanted: wanted, seed: 7)
        var state = try open()
        let first = try state.save(machine.takeUnsavedChanges(), of: machine)
        #expect(first.devices.count == 1000, "a machine just made is saved whole")

        // As FleetSupervisor.writeSnapshot does: the machine's notes plus the devices its actions name.
        func save(_ actions: [FleetAction]) throws -> FleetStateChange {
            var unsaved = machine.takeUnsavedChanges()
            unsaved.note(actions)
            return try state.save(unsaved, of: machine)
        }
        #expect(try save(machine.apply(.adapterAppeared(hci0, powered: true), now: .seconds(1))).isEmpty, "an adapter is not saved state")
        let target = wanted[500].id
        let report = DeviceReport(path: DevicePath("/org/bluez/hci0/dev_" + address(500).replacingOccurrences(of: ":", with: "_"), adapter: hci0),
                                  address: address(500), addressType: "public", rssi: -50)
        let seen = machine.apply(.deviceAppeared(report, .down), now: .seconds(2))
        let connect = try #require(seen.compactMap { action -> (token: UInt64, path: DevicePath)? in
            guard case .connect(let device, let path, _, _, let token) = action, device == target else { return nil }
            return (token, path)
        }.first)
        let sighting = try save(seen)
        #expect(sighting.devices.map(\.id) == [target.rawValue] && sighting.devices.first?.lastAddresses == [address(500)])
        #expect(sighting.identities.map(\.id) == [target.rawValue] && sighting.removedDevices.isEmpty)

        let writesBefore = try state.store.stats().writes
        let failure = BlueZError(operation: "Connect", path: connect.path.rawValue, name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")
        let failed = try save(machine.connectFinished(device: target, token: connect.token, error: failure, now: .seconds(3)))
        #expect(failed.devices.map(\.id) == [target.rawValue] && failed.identities.isEmpty && failed.evictions == nil)
        #expect(failed.devices.first?.failures == 1)
        #expect(try state.store.stats().writes == writesBefore + 1, "one transaction")

        // What the store holds is what a whole save would have written.
        state.close()
        #expect(try open().saved == machine.snapshot)
    }

    @Test("an older fleetd's JSON snapshot is imported once, renamed aside, and never imported again")
    func importOnce() throws {
        let snapshot = try Self.snapshot()
        let json = SnapshotStore(path: jsonPath)
        try json.write(snapshot)
        try json.write(snapshot)  // leaves the previous good copy too, as an older fleetd did
        var state = try open()
        #expect(state.saved == snapshot)
        #expect(!FileManager.default.fileExists(atPath: jsonPath) && !FileManager.default.fileExists(atPath: jsonPath + ".prev"))
        let kept = try files(prefix: "snapshot.json.imported-")
        #expect(kept.count == 1, "\(kept)")
        #expect(try files(prefix: "snapshot.json.prev.imported-").count == 1)
        let imported = try #require(log.records(id: FleetMessageID.snapshotImported.rawValue).first)
        #expect(imported.level == .notice && imported.message.contains("3 device(s), 2 identities, 1 eviction(s)"), "\(imported.message)")
        #expect(imported.metadata["moved-to"] == directory.path + "/" + kept[0])

        // The state moves on; then the old JSON comes back (restored from a backup): it is not imported over it.
        var changed = snapshot
        changed.devices[0].failures = 9
        try state.save(changed)
        state.close()
        try FileManager.default.copyItem(atPath: directory.path + "/" + kept[0], toPath: jsonPath)
        let again = try open()
        #expect(again.saved == changed, "the store's state wins")
        #expect(!FileManager.default.fileExists(atPath: jsonPath), "renamed aside again")
        let refused = log.records(id: FleetMessageID.snapshotImported.rawValue).last
        #expect(refused?.level == .warning && refused?.metadata["reason"] == "already-imported")
    }

    @Test("a JSON snapshot is not imported into a store that already holds state")
    func noImportOverState() throws {
        var state = try open()
        let snapshot = try Self.snapshot()
        try state.save(snapshot)
        state.close()
        try SnapshotStore(path: jsonPath).write(try Self.snapshot(devices: 7))
        let reopened = try open()
        #expect(reopened.saved == snapshot)
        #expect(log.records(id: FleetMessageID.snapshotImported.rawValue).last?.metadata["reason"] == "store-not-empty")
        #expect(try files(prefix: "snapshot.json.imported-").count == 1)
    }

    @Test("a corrupt store is moved aside with its log line, and fleetd starts from an empty, working store")
    func corruptMovedAside() throws {
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: URL(fileURLWithPath: path))
        var state = try open()
        #expect(state.saved.devices.isEmpty)
        let moved = try files(prefix: "fleetd.db.unusable-")
        #expect(moved.count == 1)
        #expect(FileManager.default.contents(atPath: directory.path + "/" + moved[0]) == garbage, "kept as it was, for a bug report")
        let line = try #require(log.records(id: FleetMessageID.storeMovedAside.rawValue).first)
        #expect(line.level == .error && line.metadata["reason"] == "corrupt" && line.metadata["moved-to"] == directory.path + "/" + moved[0])
        #expect(line.message.contains("rebuilding from the configuration and BlueZ"), "\(line.message)")
        try state.save(try Self.snapshot())
        #expect(try open().saved == (try Self.snapshot()))
    }

    @Test("a store from a newer fleetd is moved aside untouched, not misread")
    func newerMovedAside() throws {
        do {
            let db = try StoreSchema.open(path: path)
            try db.execute("INSERT INTO devices (id, class, subscribe, read_on_connect, wanted, last_addresses, failures, gave_up, updated_wall_ns) VALUES ('addr-A00000000001', 'normal', '', '', 1, '', 0, 0, 0)")
            try db.setUserVersion(StoreSchema.currentVersion + 1)
        }
        let state = try open()
        #expect(state.saved.devices.isEmpty)
        let moved = try files(prefix: "fleetd.db.unusable-").filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        #expect(moved.count == 1)
        #expect(try SQLiteDatabase(path: directory.path + "/" + moved[0], flags: [.readOnly]).userVersion == StoreSchema.currentVersion + 1)
        let line = try #require(log.records(id: FleetMessageID.storeMovedAside.rawValue).first)
        #expect(line.metadata["reason"] == "newer-schema")
        #expect(line.message.contains("schema version \(StoreSchema.currentVersion + 1) is newer than this fleetd understands"), "\(line.message)")
    }
}
