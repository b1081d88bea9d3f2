/// A bounded map whose entries lapse at a given time. Pure: time is passed in.
///
/// When an insert takes it past `capacity`, lapsed entries are dropped, then if need be the soonest-lapsing
/// quarter, so pruning is amortised over many inserts and memory stays bounded under address churn.
struct ExpiringCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var expires: Duration
    }

    private var entries: [Key: Entry] = [:]
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { entries.count }

    func value(for key: Key, now: Duration) -> Value? {
        guard let entry = entries[key], entry.expires > now else { return nil }
        return entry.value
    }

    /// Stores `value` until `expires` and returns what was there and still live, in one hash lookup
    /// because this sits on the per-advert path.
    @discardableResult
    mutating func set(_ value: Value, for key: Key, expires: Duration, now: Duration) -> Value? {
        let old = entries.updateValue(Entry(value: value, expires: expires), forKey: key)
        if old == nil, entries.count > capacity { prune(now: now) }
        guard let old, old.expires > now else { return nil }
        return old.value
    }

    /// The live value for `key`, now kept until `expires`; nil (and untouched) if absent or lapsed.
    /// One hash lookup: the entry is updated through its index.
    mutating func refresh(_ key: Key, expires: Duration, now: Duration) -> Value? {
        guard let index = entries.index(forKey: key), entries.values[index].expires > now else { return nil }
        entries.values[index].expires = expires
        return entries.values[index].value
    }

    mutating func remove(_ key: Key) { entries[key] = nil }

    mutating func removeAll() { entries.removeAll(keepingCapacity: true) }

    private mutating func prune(now: Duration) {
        entries = entries.filter { $0.value.expires > now }
        let target = capacity - capacity / 4
        guard entries.count > target else { return }
        let doomed = entries.sorted { $0.value.expires < $1.value.expires }.prefix(entries.count - target)
        for (key, _) in doomed { entries[key] = nil }
    }
}
