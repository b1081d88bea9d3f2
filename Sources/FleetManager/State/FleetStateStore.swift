import FleetPlatform
import FleetStore
import FoundationEssentials
import Identity
import Supervision

/// The fleet's state (wanted devices, the identity registry, backoff progress, evictions) in the SQLite store,
/// a row per device, identity and eviction. A save writes only the rows that differ from what the store holds,
/// found by comparing with the values it last read or wrote: the state machine stays pure and needs no change
/// tracking of its own, and a field added to `FleetSnapshot.Device` is saved as soon as its column exists.
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
        let stored = try store.fleetState()
        var written = Written()
        written.devices.reserveCapacity(stored.devices.count)
        written.identities.reserveCapacity(stored.identities.count)
        var unreadable: [StoredRowError] = []
        var devices: [FleetSnapshot.Device] = []
        devices.reserveCapacity(stored.devices.count)
        for row in stored.devices {
            do throws(StoredRowError) {
                let device = try FleetSnapshot.Device(row: row)
                devices.append(device)
                written.devices[device.wanted.id] = device
            } catch {
                unreadable.append(error)
            }
        }
        var entries: [IdentityRegistry.Entry] = []
        entries.reserveCapacity(stored.identities.count)
        for row in stored.identities {
            do throws(StoredRowError) {
                let entry = try IdentityRegistry.Entry(row: row)
                entries.append(entry)
                written.identities[entry.stableID] = entry
            } catch {
                unreadable.append(error)
            }
        }
        written.evictions = stored.evictions.map(FleetStateMachine.EvictionRecord.init(row:))
        self.written = written
        self.unreadable = unreadable
        saved = FleetSnapshot(devices: devices, registry: IdentityRegistry(entries: entries), evictions: written.evictions)
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
    /// written and the next save tries the same rows again.
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

    public func close() { store.close() }
}
