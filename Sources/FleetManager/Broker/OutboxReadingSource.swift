import FleetBroker
import FleetStore
import FoundationEssentials
import Synchronization

/// The outbox as the publish pump's ``ReadingSource``: one named consumer whose cursor is the broker's
/// acknowledgement, so what the broker never acknowledged is read again after a lost session or a restart.
///
/// A consumer that never existed starts at the outbox's newest committed reading: turning publishing on for an
/// old outbox does not flood the broker with a week of history, and from then on nothing is skipped (the
/// consumer is created at once, before the first connection, so readings that arrive while the broker is away
/// wait for it). Readings retention drops before they are published are counted once each and reported.
final class OutboxReadingSource: ReadingSource {
    let outbox: Outbox
    let consumer: String
    private let losses = Mutex<(count: Int64, reportedThrough: Int64)>((0, 0))
    private let onLost: @Sendable (_ gap: OutboxGap, _ newlyLost: Int64) -> Void

    init(outbox: Outbox, consumer: String, onLost: @escaping @Sendable (_ gap: OutboxGap, _ newlyLost: Int64) -> Void) {
        self.outbox = outbox
        self.consumer = consumer
        self.onLost = onLost
    }

    /// Readings retention dropped before they were published, each counted once.
    var lost: Int64 { losses.withLock { $0.count } }

    /// Creates the consumer at the newest committed reading if it has never acknowledged anything.
    @discardableResult
    func register() throws(OutboxError) -> Int64 {
        if let cursor = outbox.cursor(of: consumer) { return cursor }
        return try outbox.acknowledge(consumer: consumer, upTo: outbox.lastCommittedID)
    }

    func acknowledgedCursor() throws -> Int64 { try register() }

    func read(after cursor: Int64, limit: Int) throws -> [BrokerReading] {
        let page = try outbox.read(after: cursor, limit: limit)
        if let gap = page.lost { count(gap) }
        return page.readings.map(Self.brokerReading)
    }

    func acknowledge(upTo cursor: Int64) throws {
        try outbox.acknowledge(consumer: consumer, upTo: cursor)
    }

    /// The pump reads a gap again after a lost session (it restarts from the acknowledged cursor), so only ids
    /// above those already counted are new.
    private func count(_ gap: OutboxGap) {
        let fresh = losses.withLock { state -> Int64 in
            let from = max(gap.firstID, state.reportedThrough + 1)
            guard gap.lastID >= from else { return 0 }
            state.reportedThrough = gap.lastID
            state.count += gap.lastID - from + 1
            return gap.lastID - from + 1
        }
        if fresh > 0 { onLost(gap, fresh) }
    }

    static func brokerReading(_ stored: StoredReading) -> BrokerReading {
        let reading = stored.reading
        return BrokerReading(cursor: stored.id, device: reading.device, characteristic: reading.characteristic, sequence: stored.seq,
                             kind: BrokerReading.Kind(rawValue: reading.kind.rawValue) ?? .notification,
                             monotonicNanoseconds: reading.monotonicNanoseconds >= 0 ? UInt64(reading.monotonicNanoseconds) : nil,
                             wallTime: Date(timeIntervalSince1970: Double(reading.wallNanoseconds) / 1e9),
                             session: reading.session, value: reading.value)
    }
}
