/// The fleet's memory of every identity it has resolved: stable id, display name, recent addresses and
/// first/last sighting. A value type, saved whole in the daemon's snapshot (`Codable`, versioned).
///
/// Times are `Duration`s since the daemon's monotonic epoch, like every `now` in this library.
public struct IdentityRegistry: Hashable, Sendable {
    /// The snapshot schema this version writes and reads.
    public static let schemaVersion = 1
    /// How many recent addresses each entry keeps.
    public static let addressHistoryLimit = 8

    /// One known device.
    public struct Entry: Hashable, Sendable, Codable {
        public var identity: FleetIdentity
        /// The latest name the device advertised, or one the operator set.
        public var displayName: String?
        /// Most recent first, at most `addressHistoryLimit`, no duplicates.
        public var lastAddresses: [BluetoothAddress]
        public var firstSeen: Duration
        public var lastSeen: Duration

        public init(identity: FleetIdentity, displayName: String? = nil, lastAddresses: [BluetoothAddress] = [], firstSeen: Duration, lastSeen: Duration) {
            self.identity = identity
            self.displayName = displayName
            self.lastAddresses = lastAddresses
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
        }

        public var stableID: String { identity.stableID }

        /// `IdentityRegistry.record`'s edit of an entry.
        mutating func note(_ address: BluetoothAddress, name: String?, now: Duration) {
            firstSeen = min(firstSeen, now)
            if now >= lastSeen {
                lastSeen = now
                lastAddresses.removeAll { $0 == address }
                lastAddresses.insert(address, at: 0)
                if let name, !name.isEmpty { displayName = name }
            } else if !lastAddresses.contains(address) {
                // A late report of an older sighting: keep the history's recency order intact.
                lastAddresses.append(address)
            }
            let excess = lastAddresses.count - IdentityRegistry.addressHistoryLimit
            if excess > 0 { lastAddresses.removeLast(excess) }
        }
    }

    /// Keyed by stable id.
    public private(set) var entries: [String: Entry] = [:]

    public init() {}

    public init(entries: [Entry]) {
        for entry in entries { merge(entry) }
    }

    /// Takes entries already keyed by their stable ids, as a store that wrote them by id gives them back: the
    /// dictionary is kept as it is (no id is computed again, no entry merged), except that an address history
    /// longer than the limit or with repeats is put right.
    ///
    /// - Precondition: every key is its entry's `stableID` (checked in debug builds).
    public init(keyedEntries: [String: Entry]) {
        entries = keyedEntries
        for (id, entry) in keyedEntries {
            assert(id == entry.stableID, "registry entry keyed \(id) is \(entry.stableID)")
            if !Self.isUniqued(entry.lastAddresses) { entries[id]?.lastAddresses = Self.uniqued(entry.lastAddresses) }
        }
    }

    private static func isUniqued(_ addresses: [BluetoothAddress]) -> Bool {
        guard addresses.count <= addressHistoryLimit else { return false }
        for i in addresses.indices.dropFirst() where addresses[..<i].contains(addresses[i]) { return false }
        return true
    }

    public subscript(stableID: String) -> Entry? { entries[stableID] }
    public subscript(identity: FleetIdentity) -> Entry? { entries[identity.stableID] }

    /// Entries sorted by stable id, for stable output.
    public var sortedEntries: [Entry] { entries.values.sorted { $0.stableID < $1.stableID } }

    /// Notes that `identity` was seen at `address` at `now`, advertising `name` (kept when non-empty). Returns
    /// the entry's stable id, the registry's own copy of the string: a caller that keeps the id (a set of unsaved
    /// ids, a table keyed by id) then shares it instead of holding another string per identity (issue 18).
    @discardableResult
    public mutating func record(_ identity: FleetIdentity, address: BluetoothAddress, name: String?, now: Duration) -> String {
        let id = identity.stableID
        // In place: an entry copied out and back would copy its address history on every advert.
        if let index = entries.index(forKey: id) {
            entries.values[index].note(address, name: name, now: now)
            return entries.keys[index]
        }
        var entry = Entry(identity: identity, firstSeen: now, lastSeen: now)
        entry.note(address, name: name, now: now)
        entries[id] = entry
        return id
    }

    /// Convenience for the daemon's per-advert path; returns the entry's stable id as `record(_:address:name:now:)`.
    @discardableResult
    public mutating func record(_ resolution: Resolution, observation: Observation, now: Duration) -> String {
        record(resolution.identity, address: observation.address, name: observation.name, now: now)
    }

    public mutating func setDisplayName(_ name: String?, for stableID: String) {
        entries[stableID]?.displayName = name
    }

    @discardableResult
    public mutating func remove(stableID: String) -> Entry? { entries.removeValue(forKey: stableID) }

    /// Folds another registry in (e.g. a restored snapshot into what was learnt since start).
    public mutating func merge(_ other: IdentityRegistry) {
        for entry in other.entries.values { merge(entry) }
    }

    /// Combines by stable id: earliest first sighting, latest last sighting, the display name and address
    /// order of whichever saw the device last, then the other's addresses, up to the history limit.
    public mutating func merge(_ incoming: Entry) {
        guard let existing = entries[incoming.stableID] else {
            var entry = incoming
            entry.lastAddresses = Self.uniqued(entry.lastAddresses)
            entries[incoming.stableID] = entry
            return
        }
        let (newer, older) = incoming.lastSeen > existing.lastSeen ? (incoming, existing) : (existing, incoming)
        var merged = newer
        merged.firstSeen = min(newer.firstSeen, older.firstSeen)
        merged.displayName = newer.displayName ?? older.displayName
        merged.lastAddresses = Self.uniqued(newer.lastAddresses + older.lastAddresses)
        entries[incoming.stableID] = merged
    }

    private static func uniqued(_ addresses: [BluetoothAddress]) -> [BluetoothAddress] {
        // At most two histories of `addressHistoryLimit`: a scan of what is kept beats hashing into a Set (a
        // restore of 10 000 entries comes through here).
        var kept: [BluetoothAddress] = []
        kept.reserveCapacity(min(addresses.count, addressHistoryLimit))
        for address in addresses where !kept.contains(address) {
            kept.append(address)
            if kept.count == addressHistoryLimit { break }
        }
        return kept
    }
}
