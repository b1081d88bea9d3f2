/// The pump's working state, owned by its ``PublishPump/run()`` task: the window, the session it publishes in,
/// and the calls to the source and publisher.
struct PumpCycle {
    let source: any ReadingSource
    let publisher: ReadingPublisher
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
    /// Reading the source for a handful of free slots would cost a query per PUBACK; wait for a useful batch.
    private var refillThreshold: Int { min(configuration.readBatch, max(1, configuration.maxInFlight / 4)) }

    init(source: any ReadingSource, publisher: ReadingPublisher, configuration: PublishPumpConfiguration,
         report: @escaping @Sendable (PublishPumpReport) -> Void) {
        self.source = source
        self.publisher = publisher
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

    /// Handles one inbox; returns whether the pump should stop.
    mutating func handle(_ mail: PumpInbox) -> Bool {
        if window == nil { start() }
        var stopping = mail.stop
        for event in mail.events {
            switch event {
            case .link(.connected(let number, _)):
                guard session != number else { continue }
                session = number
                statistics.sessions += 1
                window?.restart()
                sourceDrained = false
            case .link(.lost), .link(.attemptFailed):
                guard session != nil else { continue }
                session = nil
                window?.restart()
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
            }
        }
        if mail.readingsAvailable || mail.tick { sourceDrained = false }
        if !stopping { fill() }
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

    /// Publishes from the source while connected and the window has room.
    private mutating func fill() {
        guard session != nil, !sourceDrained, var window else { return }
        defer { self.window = window }
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
                    let id = try publisher.publish(reading)
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
}
