/// Named consumers: a server-side cursor each, advanced only by an explicit acknowledgement, so a consumer that
/// restarts continues after what it acknowledged.
extension Outbox {
    /// The consumer's acknowledged cursor, nil when it has never acknowledged. Memory only.
    public func cursor(of consumer: String) -> Int64? {
        core.lock.withLock { core.consumers[consumer] }
    }

    /// Every consumer and its acknowledged cursor.
    public var consumers: [String: Int64] { core.lock.withLock { core.consumers } }

    /// Advances `consumer`'s cursor to `cursor` (creating the consumer). A cursor below the current one is
    /// ignored; the result is the cursor now in effect. Persisted with the next commit (within `commitDelay`);
    /// a crash before it makes the consumer see those readings again, never skip any.
    @discardableResult
    public func acknowledge(consumer: String, upTo cursor: Int64) throws(OutboxError) -> Int64 {
        try Self.validate(consumer: consumer)
        let now = StoreClock.monotonicNanoseconds()
        return try core.lock.withLock { () throws(OutboxError) -> Int64 in
            guard !core.closing else { throw .closed }
            guard cursor <= core.lastCommittedID else {
                throw .acknowledgementBeyondCommitted(consumer: consumer, cursor: cursor, lastCommitted: core.lastCommittedID)
            }
            if let current = core.consumers[consumer], current >= cursor { return current }
            core.consumers[consumer] = cursor
            core.consumerChanges[consumer] = .some(cursor)
            if core.consumerChangesSince == nil {
                core.consumerChangesSince = now
                core.lock.broadcast()
            }
            return cursor
        }
    }

    /// Forgets a consumer and its cursor; false when there was none.
    @discardableResult
    public func removeConsumer(_ consumer: String) throws(OutboxError) -> Bool {
        let now = StoreClock.monotonicNanoseconds()
        return try core.lock.withLock { () throws(OutboxError) -> Bool in
            guard !core.closing else { throw .closed }
            guard core.consumers.removeValue(forKey: consumer) != nil else { return false }
            core.consumerChanges[consumer] = .some(nil)
            if core.consumerChangesSince == nil {
                core.consumerChangesSince = now
                core.lock.broadcast()
            }
            return true
        }
    }

    /// True for a name `acknowledge` accepts: 1–200 bytes, no control characters.
    public static func isValidConsumerName(_ consumer: String) -> Bool {
        (try? validate(consumer: consumer)) != nil
    }

    static func validate(consumer: String) throws(OutboxError) {
        guard !consumer.isEmpty, consumer.utf8.count <= 200,
              !consumer.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidConsumerName(consumer)
        }
    }
}
