/// The in-flight publishes of a ``PublishPump`` and the cursor below which all of them are settled: the pure
/// core of store-and-forward (no I/O, no clock).
///
/// Readings are published in increasing cursor order and acknowledged in any order. The acknowledged cursor is
/// the highest cursor such that it and every cursor published before it is settled (PUBACKed, rejected, or
/// unpublishable); a PUBACK that arrives early is remembered until the ones before it arrive:
///
/// | event | window (cursor: settled?) | acknowledged |
/// |---|---|---|
/// | publish 11, 12, 13 | 11: no, 12: no, 13: no | 10 |
/// | PUBACK of 12 | 11: no, 12: yes, 13: no | 10 |
/// | PUBACK of 11 | 13: no | 12 |
/// | session lost | (empty) | 12: republish from 13 |
///
/// A reading the broker refused for now (``BrokerEvent/refusedForNow(_:_:)``) keeps its place and holds the cursor
/// until it is published again and answered:
///
/// | event | window | acknowledged |
/// |---|---|---|
/// | publish 11, 12, 13 | 11: no, 12: no, 13: no | 10 |
/// | PUBACK of 11, 13; 0x97 for 12 | 12: to retry, 13: yes | 11 |
/// | 12 published again | 12: no, 13: yes | 11 |
/// | PUBACK of 12 | (empty) | 13 |
public struct PublishWindow: Sendable {
    public let capacity: Int
    /// Every cursor up to this one is settled.
    public private(set) var acknowledgedCursor: Int64
    /// The highest cursor published in this session (or the acknowledged cursor after a ``restart()``): the
    /// next read starts after it.
    public private(set) var publishedCursor: Int64

    private struct Entry: Sendable {
        var cursor: Int64
        var settled: Bool
        /// Refused for now and not yet published again: no PUBACK is awaited for it.
        var awaitingRetry = false
    }

    /// In-flight entries in publish order; `entries[head...]` are live, the prefix is dead space reclaimed in bulk.
    private var entries: [Entry] = []
    private var head = 0
    /// Entries dropped from the front of `entries` since the window began: entry k lives at `entries[k - dropped]`.
    private var dropped = 0
    private var positions: [PublishID: Int] = [:]

    public init(capacity: Int, acknowledgedCursor: Int64) {
        precondition(capacity > 0, "a publish window holds at least one message")
        self.capacity = capacity
        self.acknowledgedCursor = acknowledgedCursor
        publishedCursor = acknowledgedCursor
    }

    /// Publishes awaiting their PUBACK (or behind one that is), and readings waiting to be published again.
    public var inFlight: Int { entries.count - head }
    /// Publishes on the wire whose answer has not come: what a clean stop waits for.
    public var awaitingAnswer: Int { positions.count }
    /// How many more may be published now.
    public var room: Int { max(0, capacity - inFlight) }
    public var isEmpty: Bool { inFlight == 0 }

    /// A reading went out as `id`. Its cursor must exceed every cursor published before.
    public mutating func published(cursor: Int64, id: PublishID) {
        precondition(cursor > publishedCursor, "cursor \(cursor) published after \(publishedCursor)")
        positions[id] = dropped + entries.count
        entries.append(Entry(cursor: cursor, settled: false))
        publishedCursor = cursor
    }

    /// A reading that cannot be published (its id cannot be a topic level, say) counts as settled, so it does not
    /// hold back every reading after it. Returns the acknowledged cursor if it advanced.
    public mutating func settleUnpublished(cursor: Int64) -> Int64? {
        precondition(cursor > publishedCursor, "cursor \(cursor) settled after \(publishedCursor)")
        entries.append(Entry(cursor: cursor, settled: true))
        publishedCursor = cursor
        return advance()
    }

    /// The broker answered `id`. Returns the cursor of that reading, or nil if `id` is not in flight (an answer
    /// from a session that has ended, or a duplicate).
    public mutating func acknowledge(_ id: PublishID) -> Int64? {
        guard let position = positions.removeValue(forKey: id) else { return nil }
        let index = position - dropped
        entries[index].settled = true
        let cursor = entries[index].cursor
        _ = advance()
        return cursor
    }

    /// The broker refused `id` for now: its reading keeps its place, unsettled, until ``republished(cursor:id:)``.
    /// Returns that reading's cursor, or nil if `id` is not in flight.
    public mutating func refusedForNow(_ id: PublishID) -> Int64? {
        guard let position = positions.removeValue(forKey: id) else { return nil }
        entries[position - dropped].awaitingRetry = true
        return entries[position - dropped].cursor
    }

    /// The reading at `cursor`, refused for now, went out again as `id`. Returns false (and changes nothing) if no
    /// such reading waits in the window: the session restarted since, or it was never refused.
    @discardableResult
    public mutating func republished(cursor: Int64, id: PublishID) -> Bool {
        guard let index = liveIndex(of: cursor), entries[index].awaitingRetry else { return false }
        entries[index].awaitingRetry = false
        positions[id] = index + dropped
        return true
    }

    /// A reading waiting to be published again is gone from the source (retention dropped it meanwhile): it counts
    /// as settled, so it holds back nothing. Returns the acknowledged cursor if it advanced.
    public mutating func abandon(cursor: Int64) -> Int64? {
        guard let index = liveIndex(of: cursor), entries[index].awaitingRetry else { return nil }
        entries[index].awaitingRetry = false
        entries[index].settled = true
        return advance()
    }

    /// Where the live entry with `cursor` is (entries are in increasing cursor order).
    private func liveIndex(of cursor: Int64) -> Int? {
        var low = head, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].cursor < cursor { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].cursor == cursor ? low : nil
    }

    /// The session ended: its PUBACKs will never come. Forgets what is in flight, so the next read starts again
    /// after the acknowledged cursor (those readings are published again: at-least-once).
    public mutating func restart() {
        dropped += entries.count
        entries.removeAll(keepingCapacity: true)
        head = 0
        positions.removeAll(keepingCapacity: true)
        publishedCursor = acknowledgedCursor
    }

    private mutating func advance() -> Int64? {
        let before = acknowledgedCursor
        while head < entries.count, entries[head].settled {
            acknowledgedCursor = entries[head].cursor
            head += 1
        }
        // Reclaim the dead prefix once it is both large and most of the array, so the cost stays O(1) amortised.
        if head > 1024, head * 2 > entries.count {
            entries.removeFirst(head)
            dropped += head
            head = 0
        }
        return acknowledgedCursor > before ? acknowledgedCursor : nil
    }
}
