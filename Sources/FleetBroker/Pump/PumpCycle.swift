/// The pump's working state, owned by its ``PublishPump/run()`` task: the window, the session it publishes in,
/// and the calls to the source and publisher. It takes the connection's events as mail and does no I/O of its
/// own beyond `source` and `publish`, so a test can drive it with synthetic events.
struct PumpCycle {
    let source: any ReadingSource
    /// Publishes one reading: the ``ReadingPublisher`` in the pump, a recording stub in tests.
    let publish: (BrokerReading) throws(BrokerError) -> PublishID
    let configuration: PublishPumpConfiguration
    let report: @Sendable (PublishPumpReport) -> Void
    private(set) var statistics = PublishPumpStatistics()
    /// Nil until the source has told its acknowledged cursor.
    private var window: PublishWindow?
    private var session: Int?
    /// The last read returned less than asked: nothing to read until the source says so, a poll, or a new session.
    private var sourceDrained = false
    private var highestPublished: Int64 = .min
    private var settledSinceAcknowledge = 0
    /// Readings the broker refused for now, to publish again at the next poll (cursors, in no order).
    private var retries: Set<Int64> = []
    /// A refusal for now came since the last poll: nothing is published until the next one, so a broker pushing back
    /// (quota exceeded) is not answered with a hot loop.
    private var holdUntilPoll = false
    /// Whether this poll round's first refusal was reported (one report per round, every refusal counted).
    private var refusalReported = false
    /// A clean stop was asked for: nothing new is published; the pump ends once nothing awaits an answer.
    private(set) var draining = false
    /// Reading the source for a handful of free slots would cost a query per PUBACK; wait for a useful batch.
    private var refillThreshold: Int { min(configuration.readBatch, max(1, configuration.maxInFlight / 4)) }

    init(source: any ReadingSource, configuration: PublishPumpConfiguration, report: @escaping @Sendable (PublishPumpReport) -> Void,
         publish: @escaping (BrokerReading) throws(BrokerError) -> PublishID) {
        self.source = source
        self.publish = publish
        self.configuration = configuration
        self.report = report
    }

    mutating func start() {
        guard window == nil else { return }
        do {
            let cursor = try source.acknowledgedCursor()
            window = PublishWindow(capacity: configuration.maxInFlight, acknowledgedCursor: cursor)
            statistics.acknowledgedCursor = cursor
            statistics.settledCursor = cursor
            highestPublished = cursor
        } catch {
            report(.sourceFailed(operation: "acknowledgedCursor", message: "\(error)"))
        }
    }

    /// Handles one inbox; returns whether the pump should end: cancelled, the connection stopped, or a stop whose
    /// drain is done (every PUBACK in, the session gone, or the deadline passed).
    mutating func handle(_ mail: PumpInbox) -> Bool {
        if window == nil { start() }
        if mail.stop { draining = true }
        var stopping = mail.cancelled || (draining && mail.drainExpired)
        // The poll ends the hold before this mail's events: a refusal that arrives with it waits for the next one.
        if mail.tick {
            holdUntilPoll = false
            refusalReported = false
        }
        for event in mail.events {
            switch event {
            case .link(.connected(let number, _)):
                guard session != number else { continue }
                session = number
                statistics.sessions += 1
                restartWindow()
                sourceDrained = false
            case .link(.lost), .link(.attemptFailed):
                guard session != nil else { continue }
                session = nil
                restartWindow()
            case .link(.stopped):
                session = nil
                stopping = true
            case .acknowledged(let id):
                guard window?.acknowledge(id) != nil else { continue }
                statistics.acknowledged += 1
                settledSinceAcknowledge += 1
            case .rejected(let id, let error):
                guard let cursor = window?.acknowledge(id) else { continue }
                statistics.rejected += 1
                settledSinceAcknowledge += 1
                report(.rejected(cursor: cursor, error))
            case .refusedForNow(let id, let error):
                guard let cursor = window?.refusedForNow(id) else { continue }
                statistics.refusedForNow += 1
                retries.insert(cursor)
                holdUntilPoll = true
                if !refusalReported {
                    refusalReported = true
                    report(.refusedForNow(cursor: cursor, error))
                }
            }
        }
        if mail.readingsAvailable || mail.tick { sourceDrained = false }
        if draining, session == nil || (window?.awaitingAnswer ?? 0) == 0 { stopping = true }
        if !stopping && !draining { fill() }
        flushAcknowledgements(force: mail.tick || stopping)
        statistics.inFlight = window?.inFlight ?? 0
        statistics.settledCursor = window?.acknowledgedCursor ?? statistics.settledCursor
        return stopping
    }

    /// Tells the source how far everything is settled, when enough has been or when `force`d.
    mutating func flushAcknowledgements(force: Bool) {
        guard let window, window.acknowledgedCursor > statistics.acknowledgedCursor else { return }
        guard force || window.isEmpty || settledSinceAcknowledge >= configuration.acknowledgeEvery else { return }
        do {
            try source.acknowledge(upTo: window.acknowledgedCursor)
            statistics.acknowledgedCursor = window.acknowledgedCursor
            settledSinceAcknowledge = 0
        } catch {
            report(.sourceFailed(operation: "acknowledge", message: "\(error)"))
        }
    }

    /// The session ended: what was in flight, and what waited to be published again, goes out again from the
    /// acknowledged cursor in the next session.
    private mutating func restartWindow() {
        window?.restart()
        retries.removeAll()
        holdUntilPoll = false
    }

    /// Publishes the readings refused for now, then from the source, while connected, not held back by a refusal,
    /// and the window has room.
    private mutating func fill() {
        guard session != nil, !holdUntilPoll, var window else { return }
        defer { self.window = window }
        guard retryRefused(&window) else { return }
        guard !sourceDrained else { return }
        guard window.isEmpty || window.room >= refillThreshold else { return }
        while window.room > 0 {
            let limit = min(window.room, configuration.readBatch)
            let batch: [BrokerReading]
            do {
                batch = try source.read(after: window.publishedCursor, limit: limit)
            } catch {
                report(.sourceFailed(operation: "read", message: "\(error)"))
                sourceDrained = true
                return
            }
            for reading in batch {
                guard reading.cursor > window.publishedCursor else {
                    report(.sourceFailed(operation: "read", message: "the source returned cursor \(reading.cursor) after \(window.publishedCursor); readings must come in increasing cursor order"))
                    sourceDrained = true
                    return
                }
                do {
                    let id = try publish(reading)
                    window.published(cursor: reading.cursor, id: id)
                    statistics.published += 1
                    if reading.cursor <= highestPublished { statistics.republished += 1 } else { highestPublished = reading.cursor }
                } catch {
                    switch error.kind {
                    case .invalidTopicSegment, .messageInvalid:
                        statistics.unpublishable += 1
                        settledSinceAcknowledge += 1
                        _ = window.settleUnpublished(cursor: reading.cursor)
                        report(.unpublishable(cursor: reading.cursor, error))
                    case .notConnected, .shutDown:
                        // The session ended under us; its `lost` event is on its way and restarts the window. The
                        // session is kept until then, or that event would look like a repeat and be skipped.
                        return
                    default:
                        report(.publishFailed(error))
                        sourceDrained = true
                        return
                    }
                }
            }
            if batch.count < limit {
                sourceDrained = true
                return
            }
        }
    }

    /// Publishes again, in cursor order, the readings the broker refused for now (read back from the source: they
    /// are still there, unacknowledged). Returns false when the session ended or publishing failed meanwhile, so
    /// nothing new goes out either.
    private mutating func retryRefused(_ window: inout PublishWindow) -> Bool {
        guard let first = retries.min() else { return true }
        let last = retries.max() ?? first
        var after = first - 1
        while !retries.isEmpty {
            let batch: [BrokerReading]
            do {
                batch = try source.read(after: after, limit: min(configuration.readBatch, Int(clamping: last - after)))
            } catch {
                report(.sourceFailed(operation: "read", message: "\(error)"))
                holdUntilPoll = true
                return false
            }
            for reading in batch where retries.contains(reading.cursor) {
                do {
                    let id = try publish(reading)
                    retries.remove(reading.cursor)
                    window.republished(cursor: reading.cursor, id: id)
                    statistics.published += 1
                    statistics.republished += 1
                } catch {
                    switch error.kind {
                    case .invalidTopicSegment, .messageInvalid:
                        retries.remove(reading.cursor)
                        statistics.unpublishable += 1
                        settledSinceAcknowledge += 1
                        _ = window.abandon(cursor: reading.cursor)
                        report(.unpublishable(cursor: reading.cursor, error))
                    case .notConnected, .shutDown:
                        return false
                    default:
                        report(.publishFailed(error))
                        holdUntilPoll = true
                        return false
                    }
                }
            }
            guard let end = batch.last?.cursor, end < last else { break }
            after = end
        }
        // What the source no longer has (retention dropped it while it waited) holds back nothing.
        for cursor in retries {
            settledSinceAcknowledge += 1
            _ = window.abandon(cursor: cursor)
        }
        retries.removeAll()
        return true
    }
}
