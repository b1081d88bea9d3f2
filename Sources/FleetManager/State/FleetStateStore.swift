import FleetPlatform
import FleetStore
import FoundationEssentials
import Identity
import Supervision

/// The fleet's state (wanted devices, the identity registry, backoff progress, evictions) in the SQLite store,
/// a row per device, identity and eviction. A save writes only the rows that differ from what the store holds,
/// found by comparing with the values it last read or wrote, and looks only where the machine's
/// `UnsavedChanges` say something may have changed (`save(_:of:)`); after a restore, an import or a reload it
/// compares everything. A field added to `FleetSnapshot.Device` is saved as soon as its column exists.
///
/// A value type: the driver owns one and saves from its actor.
public struct FleetStateStore: Sendable {
    public let store: StateStore
    public var path: String { store.path }
    /// What the store held when it was opened (after the JSON import, if one ran): what `restore` gives back.
    public private(set) var saved: FleetSnapshot
    /// Rows that could not be turned back into state (skipped, to be reported).
    public private(set) var unreadable: [StoredRowError]

    /// The values the store holds, as last read or written.
    var written: Written

    struct Written: Sendable {
        var devices: [DeviceID: FleetSnapshot.Device] = [:]
        var identities: [String: IdentityRegistry.Entry] = [:]
        var evictions: [FleetStateMachine.EvictionRecord] = []
    }

    /// Reads every fleet row of `store`.
    public init(store: StateStore) throws(SQLiteError) {
        self.store = store
        var written = Written()
        var unreadable: [StoredRowError] = []
        var devices: [FleetSnapshot.Device] = []
        // Keyed once, by the id each entry spells: the registry takes the dictionary as it is and `written` shares
        // its storage (a restore of 10 000 identities merged them one by one, computing each id twice).
        var identities: [String: IdentityRegistry.Entry] = [:]
        var spelledTwice: [IdentityRegistry.Entry] = []
        var evictions: [FleetStateMachine.EvictionRecord] = []
        // Each row becomes fleetd's value as it is read: no array of rows in between.
        try store.readFleetState(counts: { deviceCount, identityCount in
            devices.reserveCapacity(deviceCount)
            written.devices.reserveCapacity(deviceCount)
            identities.reserveCapacity(identityCount)
        }, device: { row in
            do throws(StoredRowError) {
                let device = try FleetSnapshot.Device(row: row)
                devices.append(device)
                written.devices[device.wanted.id] = device
            } catch {
                unreadable.append(error)
            }
        }, identity: { row in
            do throws(StoredRowError) {
                let entry = try IdentityRegistry.Entry(row: row)
                let id = entry.stableID
                // Two rows of one identity (an id written in another spelling, by hand): merged, as before.
                if identities[id] == nil { identities[id] = entry } else { spelledTwice.append(entry) }
            } catch {
                unreadable.append(error)
            }
        }, eviction: { row in
            evictions.append(FleetStateMachine.EvictionRecord(row: row))
        })
        var registry = IdentityRegistry(keyedEntries: identities)
        identities = [:]
        for entry in spelledTwice { registry.merge(entry) }
        written.identities = registry.entries
        written.evictions = evictions
        self.written = written
        self.unreadable = unreadable
        saved = FleetSnapshot(devices: devices, registry: registry, evictions: evictions)
    }

    /// The rows of `snapshot` that differ from what the store holds.
    public func change(to snapshot: FleetSnapshot) -> FleetStateChange {
        var change = FleetStateChange()
        var present = Set<DeviceID>(minimumCapacity: snapshot.devices.count)
        for device in snapshot.devices {
            present.insert(device.wanted.id)
            if written.devices[device.wanted.id] != device { change.devices.append(device.row) }
        }
        if present.count != written.devices.count || !change.devices.isEmpty {
            change.removedDevices = written.devices.keys.filter { !present.contains($0) }.map(\.rawValue).sorted()
        }
        let entries = snapshot.registry.entries
        for (id, entry) in entries where written.identities[id] != entry { change.identities.append(entry.row) }
        if entries.count != written.identities.count || !change.identities.isEmpty {
            change.removedIdentities = written.identities.keys.filter { entries[$0] == nil }.sorted()
        }
        if snapshot.evictions != written.evictions { change.evictions = snapshot.evictions.map(\.row) }
        return change
    }

    /// Writes the rows of `snapshot` that changed, in one transaction; returns them. When it throws, nothing was
    /// written and the next save tries the same rows again. Compares the whole state: for the import, and as
    /// `save(_:of:)`'s fallback.
    @discardableResult
    public mutating func save(_ snapshot: FleetSnapshot) throws(SQLiteError) -> FleetStateChange {
        let change = change(to: snapshot)
        guard !change.isEmpty else { return change }
        try store.apply(change)
        if !change.devices.isEmpty {
            let changed = Set(change.devices.map(\.id))
            for device in snapshot.devices where changed.contains(device.wanted.id.rawValue) { written.devices[device.wanted.id] = device }
        }
        for id in change.removedDevices { written.devices.removeValue(forKey: DeviceID(id)) }
        for row in change.identities { written.identities[row.id] = snapshot.registry.entries[row.id] }
        for id in change.removedIdentities { written.identities.removeValue(forKey: id) }
        if change.evictions != nil { written.evictions = snapshot.evictions }
        return change
    }

    /// The supervisor's save: writes, in one transaction, the rows of `machine`'s state that differ from what the
    /// store holds, looking only at the devices and identities `changes` names (and the eviction log). A device's
    /// change costs that device's row, whatever the fleet's size. `changes.everything` compares the whole state
    /// (`save(_:)`). When it throws, nothing was written: save the same `changes` again (with any taken since).
    @discardableResult
    public mutating func save(_ changes: UnsavedChanges, of machine: FleetStateMachine) throws(SQLiteError) -> FleetStateChange {
        if changes.everything { return try save(machine.snapshot) }
        var change = FleetStateChange()
        var devices: [FleetSnapshot.Device] = []
        // In id order, as a whole save writes them.
        for id in changes.devices.sorted() {
            if let device = machine.devices[id]?.saved {
                if written.devices[id] != device {
                    change.devices.append(device.row)
                    devices.append(device)
                }
            } else if written.devices[id] != nil {
                change.removedDevices.append(id.rawValue)
            }
        }
        var identities: [(id: String, entry: IdentityRegistry.Entry)] = []
        for id in changes.identities.sorted() {
            if let entry = machine.registry[id] {
                if written.identities[id] != entry {
                    change.identities.append(entry.row)
                    identities.append((id, entry))
                }
            } else if written.identities[id] != nil {
                change.removedIdentities.append(id)
            }
        }
        // At most 100 records, and the same array (compared by identity) until the machine adds one.
        if machine.evictions != written.evictions { change.evictions = machine.evictions.map(\.row) }
        guard !change.isEmpty else { return change }
        try store.apply(change)
        for device in devices { written.devices[device.wanted.id] = device }
        for id in change.removedDevices { written.devices.removeValue(forKey: DeviceID(id)) }
        for (id, entry) in identities { written.identities[id] = entry }
        for id in change.removedIdentities { written.identities.removeValue(forKey: id) }
        if change.evictions != nil { written.evictions = machine.evictions }
        return change
    }

    public func close() { store.close() }
}
