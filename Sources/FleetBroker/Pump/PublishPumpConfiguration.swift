/// How a ``PublishPump`` paces itself.
public struct PublishPumpConfiguration: Sendable, Hashable {
    /// QoS 1 publishes awaiting their PUBACK at most (the window). Larger hides more round-trip time; every one
    /// of them is published again if the session is lost. Keep it at or below the connection's
    /// ``BrokerConfiguration/maxInFlight`` so none waits inside libmosquitto.
    public var maxInFlight: Int
    /// Readings asked of the source per read.
    public var readBatch: Int
    /// The source's cursor is advanced after this many settled readings, when nothing is left in flight, and at
    /// every poll: fewer cursor writes than one per PUBACK, at the price of republishing up to this many after a
    /// crash.
    public var acknowledgeEvery: Int
    /// The pump reads the source again at least this often, even if nobody calls
    /// ``PublishPump/readingsAvailable()``, and retries a failed source call.
    public var pollInterval: Duration
    /// On ``PublishPump/stop()``, how long the pump waits at most for the PUBACKs of the publishes in flight before
    /// it tells the source its cursor and ends. What is still unanswered then is published again by the next run.
    public var drainTimeout: Duration

    public init(maxInFlight: Int = 1000, readBatch: Int = 256, acknowledgeEvery: Int = 256, pollInterval: Duration = .seconds(1),
                drainTimeout: Duration = .seconds(5)) {
        self.maxInFlight = max(1, maxInFlight)
        self.readBatch = max(1, readBatch)
        self.acknowledgeEvery = max(1, acknowledgeEvery)
        self.pollInterval = pollInterval > .zero ? pollInterval : .seconds(1)
        self.drainTimeout = max(.zero, drainTimeout)
    }
}

/// Something the pump met and went on from; each is also counted in ``PublishPumpStatistics``.
public enum PublishPumpReport: Sendable, Hashable {
    /// The broker refused the reading at `cursor` (MQTT 5 PUBACK with a permanent error reason, ``PubackReason``).
    /// It is settled: publishing it again would be refused again and would hold back every later reading.
    case rejected(cursor: Int64, BrokerError)
    /// The broker refused the reading at `cursor` for now (MQTT 5 PUBACK with a transient error reason: quota
    /// exceeded, …). It is not settled: the pump publishes nothing new until the next poll, then publishes it (and
    /// any other so refused) again. Reported once per poll, for the first refusal; ``PublishPumpStatistics/refusedForNow``
    /// counts them all.
    case refusedForNow(cursor: Int64, BrokerError)
    /// The reading at `cursor` cannot be published at all (an id that is not a valid topic level, a payload the
    /// broker cannot take). It is settled, for the same reason.
    case unpublishable(cursor: Int64, BrokerError)
    /// libmosquitto could not take a publish now; the pump tries again at the next poll.
    case publishFailed(BrokerError)
    /// A call to the source threw; the pump tries again at the next poll.
    case sourceFailed(operation: String, message: String)
}

/// Counters of a ``PublishPump`` since it started, for metrics and `fleetctl status`.
public struct PublishPumpStatistics: Sendable, Hashable {
    /// QoS 1 publishes sent, republications included.
    public var published = 0
    /// Publishes of a cursor already published before (after a lost session, the duplicates the pump may cause;
    /// or after the broker refused it for now).
    public var republished = 0
    /// PUBACKs matched to a reading.
    public var acknowledged = 0
    /// Readings the broker refused for good (settled, not delivered).
    public var rejected = 0
    /// PUBACKs that refused a reading for now (each is published again: also counted in ``republished``).
    public var refusedForNow = 0
    public var unpublishable = 0
    /// The cursor the source was last told (``ReadingSource/acknowledge(upTo:)``).
    public var acknowledgedCursor: Int64 = 0
    /// Everything up to this cursor is settled, whether or not the source has been told yet.
    public var settledCursor: Int64 = 0
    public var inFlight = 0
    /// Sessions the pump has published in.
    public var sessions = 0

    public init() {}
}
