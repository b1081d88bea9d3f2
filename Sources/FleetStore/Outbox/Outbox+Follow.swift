/// Live subscription and replay-then-follow.
extension Outbox {
    /// A live feed of committed batches, with the id it starts after.
    public struct Subscription: Sendable {
        /// Every reading up to this id was committed before the subscription began and is in the store (or was
        /// dropped by retention); every batch on `batches` holds only newer ids. Replaying up to it and then
        /// reading `batches` therefore has neither a gap nor a duplicate.
        public var committedThrough: Int64
        /// Committed batches in commit order. The stream ends when the outbox closes, or when the subscriber
        /// has more than `subscriberBufferLimit` batches unread: then resume with `read(after:)` from the last id
        /// processed, and subscribe again.
        public var batches: AsyncStream<[StoredReading]>
    }

    /// Subscribes to committed batches; nil once the outbox is closed.
    public func subscribe() -> Subscription? {
        let (stream, continuation) = AsyncStream<[StoredReading]>.makeStream(
            bufferingPolicy: .bufferingOldest(core.configuration.subscriberBufferLimit))
        let registered: Int64? = core.lock.withLock {
            guard !core.closing && !core.writerFinished else { return nil }
            let id = core.nextSubscriber
            core.nextSubscriber += 1
            core.subscribers[id] = continuation
            continuation.onTermination = { [core] _ in
                core.lock.withLock { core.subscribers[id] = nil }
            }
            return core.lastCommittedID
        }
        guard let committedThrough = registered else {
            continuation.finish()
            return nil
        }
        return Subscription(committedThrough: committedThrough, batches: stream)
    }

    /// Replays every committed reading after `cursor` (only `device`'s, if given) from the store, then follows
    /// new batches as they commit, with neither a gap nor a duplicate between the two. A follower that falls
    /// behind catches up from the store again instead of buffering without bound; if retention dropped
    /// readings it had not reached, it yields `.lost` first.
    public func follow(after cursor: Int64, device: DeviceFilter? = nil, pageSize: Int = 1000) -> OutboxFollower {
        OutboxFollower(outbox: self, cursor: cursor, device: device, pageSize: max(1, pageSize))
    }
}

/// What a follower yields.
public enum OutboxFollowEvent: Sendable, Equatable {
    /// Readings in id order; the last one's id is the cursor to acknowledge or resume from.
    case readings([StoredReading])
    /// Retention dropped these ids before the follower reached them.
    case lost(OutboxGap)
}

/// An outbox replay that turns into a live feed: see `Outbox.follow(after:device:pageSize:)`. Ends when the
/// outbox closes or the iterating task is cancelled; throws `OutboxError.storage` when a replay read fails.
public struct OutboxFollower: AsyncSequence, Sendable {
    public typealias Element = OutboxFollowEvent
    public typealias Failure = OutboxError
    let outbox: Outbox
    let cursor: Int64
    let device: DeviceFilter?
    let pageSize: Int

    public func makeAsyncIterator() -> Iterator {
        Iterator(outbox: outbox, cursor: cursor, device: device, pageSize: pageSize)
    }

    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = OutboxFollowEvent
        public typealias Failure = OutboxError
        let outbox: Outbox
        /// The newest id handed out (or skipped as another device's).
        public private(set) var cursor: Int64
        let device: DeviceFilter?
        let pageSize: Int
        private var live: (through: Int64, batches: AsyncStream<[StoredReading]>.Iterator)?
        private var replaying = true
        private var held: [StoredReading] = []

        init(outbox: Outbox, cursor: Int64, device: DeviceFilter?, pageSize: Int) {
            self.outbox = outbox
            self.cursor = cursor
            self.device = device
            self.pageSize = pageSize
        }

        public mutating func next() async throws(OutboxError) -> OutboxFollowEvent? {
            if !held.isEmpty {
                defer { held = [] }
                return .readings(held)
            }
            while !Task.isCancelled {
                if live == nil {
                    // Subscribe before replaying, so nothing committed meanwhile falls between the two.
                    guard let subscription = outbox.subscribe() else { return nil }
                    live = (subscription.committedThrough, subscription.batches.makeAsyncIterator())
                    replaying = true
                }
                if replaying {
                    let page: ReplayPage
                    switch await outbox.reader.pageOffPool(after: cursor, limit: pageSize, device: device, through: live!.through) {
                    case .success(let read): page = read
                    case .failure(let error):
                        // The reader refuses once the outbox closes: that ends the feed, it is not a failure.
                        if outbox.isClosing { return nil }
                        throw .storage(error)
                    }
                    cursor = page.next
                    if page.reachedEnd { replaying = false }
                    if let lost = page.lost {
                        held = page.readings
                        return .lost(lost)
                    }
                    if !page.readings.isEmpty { return .readings(page.readings) }
                    continue
                }
                guard let batch = await live!.batches.next() else {
                    // Closed, cancelled, or fell too far behind: in the last case catch up from the store.
                    if outbox.isClosing || Task.isCancelled { return nil }
                    live = nil
                    continue
                }
                let fresh = batch.filter { $0.id > cursor && (device?.contains($0.device) ?? true) }
                if let last = batch.last { cursor = Swift.max(cursor, last.id) }
                if !fresh.isEmpty { return .readings(fresh) }
            }
            return nil
        }
    }
}

extension Outbox {
    var isClosing: Bool { core.lock.withLock { core.closing || core.writerFinished } }
}
