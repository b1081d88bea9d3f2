import Synchronization

/// Store-and-forward from a ``ReadingSource`` to the broker: keeps up to ``PublishPumpConfiguration/maxInFlight``
/// QoS 1 publishes in flight and advances the source's cursor only as far as every reading below it was
/// acknowledged by the broker (``PublishWindow``).
///
/// When the session is lost, what was in flight is forgotten; when the connection is back, the pump starts
/// again after the acknowledged cursor, so the readings whose PUBACK never came are published again
/// (at-least-once: a consumer can see a reading twice, and drops it by its per-device `seq`). Readings that
/// arrive while the broker is away stay in the source and go out in cursor order when it returns.
///
/// The connection's lifecycle belongs to the caller: ``run()`` observes it (start the connection before or
/// after, either works) and returns when ``stop()`` has drained the window, its task is cancelled, or the
/// connection is shut down. A clean stop is ``stop()``, then ``BrokerConnection/shutdown()`` once ``run()`` has
/// returned: the PUBACKs of what was in flight are counted first, so the next run publishes none of it again. Tell the pump about new readings with ``readingsAvailable()``; it also polls the source every
/// ``PublishPumpConfiguration/pollInterval``.
public final class PublishPump: Sendable {
    public let source: any ReadingSource
    public let publisher: ReadingPublisher
    public let configuration: PublishPumpConfiguration
    private let report: @Sendable (PublishPumpReport) -> Void
    private let inbox = Mutex(PumpInbox())
    private let doorbell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation
    private let counters = Mutex(PublishPumpStatistics())

    /// `report` hears of every reading settled without a PUBACK and every failed call, on the pump's task.
    public init(source: any ReadingSource, publisher: ReadingPublisher, configuration: PublishPumpConfiguration = PublishPumpConfiguration(),
                report: @escaping @Sendable (PublishPumpReport) -> Void) {
        self.source = source
        self.publisher = publisher
        self.configuration = configuration
        self.report = report
        (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The counters now.
    public var statistics: PublishPumpStatistics { counters.withLock { $0 } }

    /// The source has new readings: the pump reads them at once (if connected and the window has room).
    public func readingsAvailable() {
        post { $0.readingsAvailable = true }
    }

    /// A clean stop: nothing new is published; ``run()`` waits for the PUBACKs of the publishes in flight (at most
    /// ``PublishPumpConfiguration/drainTimeout``, less if the session ends), tells the source the last
    /// acknowledged cursor and returns.
    public func stop() {
        post { $0.stop = true }
    }

    /// Publishes until stopped, cancelled, or the connection is shut down.
    public func run() async {
        let connection = publisher.connection
        let observation = connection.observe { [self] event in post { $0.events.append(event) } }
        defer { observation.cancel() }
        let status = connection.status
        if status.phase == .connected {
            // Already up before we observed: the same `connected` may also arrive as an event; the pump ignores
            // a repeat of the session it is in.
            post { $0.events.append(.link(.connected(session: status.session, isReconnect: status.session > 1))) }
        }
        let ticker = Task { [self, pollInterval = configuration.pollInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: pollInterval)
                post { $0.tick = true }
            }
        }
        defer { ticker.cancel() }
        let publisher = self.publisher
        var cycle = PumpCycle(source: source, configuration: configuration, report: report) { (reading) throws(BrokerError) -> PublishID in
            try publisher.publish(reading)
        }
        cycle.start()
        await withTaskCancellationHandler {
            var drainDeadline: Task<Void, Never>?
            defer { drainDeadline?.cancel() }
            for await _ in doorbell {
                let mail = inbox.withLock { inbox -> PumpInbox in
                    defer { inbox = PumpInbox(stop: inbox.stop, drainExpired: inbox.drainExpired, cancelled: inbox.cancelled) }
                    return inbox
                }
                if mail.stop, drainDeadline == nil {
                    drainDeadline = Task { [self, timeout = configuration.drainTimeout] in
                        try? await Task.sleep(for: timeout)
                        post { $0.drainExpired = true }
                    }
                }
                let ended = cycle.handle(mail)
                counters.withLock { $0 = cycle.statistics }
                if ended { break }
            }
        } onCancel: {
            // Cancellation is not a clean stop: no waiting for PUBACKs.
            post { $0.cancelled = true }
        }
        cycle.flushAcknowledgements(force: true)
        counters.withLock { $0 = cycle.statistics }
    }

    private func post(_ change: (inout PumpInbox) -> Void) {
        let mustRing = inbox.withLock { inbox -> Bool in
            change(&inbox)
            defer { inbox.rung = true }
            return !inbox.rung
        }
        if mustRing { ring.yield() }
    }
}

/// What arrived for the pump since it last looked; taken whole each time, so a burst of PUBACKs costs one wake.
/// `stop`, `drainExpired` and `cancelled` stay set once set.
struct PumpInbox {
    var events: [BrokerEvent] = []
    var readingsAvailable = false
    var tick = false
    /// ``PublishPump/stop()``: drain, then end.
    var stop = false
    /// The drain's deadline passed: end now, with whatever is still unanswered.
    var drainExpired = false
    /// The pump's task was cancelled: end now.
    var cancelled = false
    var rung = false
}
