/// The reply of `Status`: the daemon, its adapters and how the wanted devices are doing.
public struct StatusInfo: Sendable, Equatable, Codable {
    public var daemon: DaemonInfo
    public var adapters: [AdapterInfo]
    public var counts: DeviceCounts
    /// The link to the fleet's MQTT broker; nil when fleetd publishes to none.
    public var broker: BrokerLinkInfo?
    /// The outbox of stored values; nil when fleetd runs without one.
    public var outbox: OutboxStatus?

    public init(daemon: DaemonInfo, adapters: [AdapterInfo], counts: DeviceCounts, broker: BrokerLinkInfo? = nil, outbox: OutboxStatus? = nil) {
        self.daemon = daemon
        self.adapters = adapters
        self.counts = counts
        self.broker = broker
        self.outbox = outbox
    }
}

/// The outbox as `Status` reports it: what is stored, how commits go, and how far behind each named consumer is.
public struct OutboxStatus: Sendable, Equatable, Codable {
    /// Values stored.
    public var depth: Int
    /// Values in memory waiting for their commit.
    public var pending: Int
    /// The cursor of the newest committed value.
    public var lastCursor: Int64
    /// From the append of the last batch's oldest value to its commit.
    public var commitLatencySeconds: Double
    /// Bytes of WAL frames written since fleetd started.
    public var bytesWritten: Int64
    /// Values dropped by retention and, while the disk refused writes, from memory, since start.
    public var droppedByRetention: Int64
    public var droppedInMemory: Int64
    /// True while commits fail (a full disk); `lastError` says why.
    public var failing: Bool
    public var lastError: String?
    public var consumers: [ConsumerStatus]

    public init(depth: Int, pending: Int, lastCursor: Int64, commitLatencySeconds: Double, bytesWritten: Int64, droppedByRetention: Int64,
                droppedInMemory: Int64, failing: Bool, lastError: String?, consumers: [ConsumerStatus]) {
        self.depth = depth
        self.pending = pending
        self.lastCursor = lastCursor
        self.commitLatencySeconds = commitLatencySeconds
        self.bytesWritten = bytesWritten
        self.droppedByRetention = droppedByRetention
        self.droppedInMemory = droppedInMemory
        self.failing = failing
        self.lastError = lastError
        self.consumers = consumers
    }
}

/// One named consumer's position in the outbox.
public struct ConsumerStatus: Sendable, Equatable, Codable {
    public var name: String
    /// The cursor it acknowledged.
    public var cursor: Int64
    /// Committed values after its cursor.
    public var unacknowledged: Int64
    /// Age of the oldest stored value it has not acknowledged; nil when it is up to date.
    public var oldestUnacknowledgedSeconds: Double?
    /// True when retention dropped values it had not acknowledged.
    public var lostPlace: Bool

    public init(name: String, cursor: Int64, unacknowledged: Int64, oldestUnacknowledgedSeconds: Double?, lostPlace: Bool) {
        self.name = name
        self.cursor = cursor
        self.unacknowledged = unacknowledged
        self.oldestUnacknowledgedSeconds = oldestUnacknowledgedSeconds
        self.lostPlace = lostPlace
    }
}

/// The daemon process as `Status` reports it.
public struct DaemonInfo: Sendable, Equatable, Codable {
    public var version: String
    public var uptimeSeconds: Double
    public var state: DaemonState

    public init(version: String, uptimeSeconds: Double, state: DaemonState) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.state = state
    }
}

/// One Bluetooth adapter and its connection slots.
public struct AdapterInfo: Sendable, Equatable, Codable {
    /// e.g. `hci0`.
    public var name: String
    public var address: String?
    public var powered: Bool
    public var slotsUsed: Int
    public var slotsCapacity: Int

    public init(name: String, address: String? = nil, powered: Bool, slotsUsed: Int, slotsCapacity: Int) {
        self.name = name
        self.address = address
        self.powered = powered
        self.slotsUsed = slotsUsed
        self.slotsCapacity = slotsCapacity
    }
}

/// How many wanted devices are in each condition.
public struct DeviceCounts: Sendable, Equatable, Codable {
    public var wanted: Int
    public var ready: Int
    public var backingOff: Int
    public var failed: Int

    public init(wanted: Int, ready: Int, backingOff: Int, failed: Int) {
        self.wanted = wanted
        self.ready = ready
        self.backingOff = backingOff
        self.failed = failed
    }
}
