import FleetBroker
import FleetStore
import FoundationEssentials
import GATTProfiles
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
    private let decoding = Mutex(PublishedDecoding())
    /// Who passes through raw (`profile = none`); set by the forwarder's start, empty before.
    let rawDevices = Mutex<RawProfileDevices?>(nil)

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
        let raw = rawDevices.withLock { $0?.current } ?? []
        return decoding.withLock { decoding in
            page.readings.map { stored in
                var reading = Self.brokerReading(stored)
                reading.decoded = decoding.decoded(stored, rawDevices: raw)
                return reading
            }
        }
    }

    func acknowledge(upTo cursor: Int64) throws {
        try outbox.acknowledge(consumer: consumer, upTo: cursor)
        decoding.withLock { $0.acknowledged(through: cursor) }
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
        return BrokerReading(cursor: stored.id, device: reading.device, characteristic: reading.characteristic, sequence: stored.seq, epoch: stored.epoch,
                             kind: BrokerReading.Kind(rawValue: reading.kind.rawValue) ?? .notification,
                             monotonicNanoseconds: reading.monotonicNanoseconds >= 0 ? UInt64(reading.monotonicNanoseconds) : nil,
                             wallTime: Date(timeIntervalSince1970: Double(reading.wallNanoseconds) / 1e9),
                             session: reading.session, value: reading.value)
    }
}

/// The forwarder's decoding, in cursor order. The pump reads unacknowledged readings again after a lost session;
/// decoding them a second time would give a value derived from its predecessor (CSC speed) the wrong predecessor,
/// so what was decoded is kept until the broker acknowledged it, and a re-published reading carries the same
/// observations as its first publication. After a restart of fleetd the first value of each characteristic has
/// no predecessor (its derived figures are absent, its own fields are not).
struct PublishedDecoding {
    private var decoder = ObservationDecoder()
    /// Decoded standard values not yet acknowledged, in cursor order (a value with nothing to decode is not kept:
    /// decoding it again gives nil again and changes no state).
    private var unacknowledged: [(cursor: Int64, decoded: DecodedValue)] = []
    private var decodedThrough: Int64 = 0

    mutating func decoded(_ stored: StoredReading, rawDevices: Set<String>) -> DecodedValue? {
        if stored.id <= decodedThrough { return kept(stored.id) }
        decodedThrough = stored.id
        decoder.rawDevices = rawDevices
        let reading = stored.reading
        guard let decoded = decoder.decode(device: reading.device, characteristic: reading.characteristic, value: reading.value) else {
            return nil
        }
        unacknowledged.append((stored.id, decoded))
        return decoded
    }

    mutating func acknowledged(through cursor: Int64) {
        let done = unacknowledged.prefix { $0.cursor <= cursor }.count
        if done > 0 { unacknowledged.removeFirst(done) }
    }

    private func kept(_ cursor: Int64) -> DecodedValue? {
        var (low, high) = (0, unacknowledged.count)
        while low < high {
            let middle = (low + high) / 2
            if unacknowledged[middle].cursor < cursor { low = middle + 1 } else { high = middle }
        }
        return low < unacknowledged.count && unacknowledged[low].cursor == cursor ? unacknowledged[low].decoded : nil
    }
}
