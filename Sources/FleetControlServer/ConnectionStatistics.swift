#if canImport(Glibc)
import Glibc
#endif

/// What one control connection holds right now, for tests and metrics: who it is, the reply bytes it has not
/// read, and whether its calls are held back until it reads.
public struct ConnectionStatistics: Sendable, Equatable {
    /// The peer, from SO_PEERCRED.
    public var pid: pid_t
    public var uid: uid_t
    /// Reply bytes queued for the client and not yet taken by its socket.
    public var queuedOutputBytes: Int
    /// The most `queuedOutputBytes` has been since the connection was accepted.
    public var peakQueuedOutputBytes: Int
    /// Requests read and not yet answered (the one running included; a streaming Watch counts until it ends).
    public var callsInProgress: Int
    /// A call (or the next value of a durable Watch) waits for the client to read before it runs.
    public var waitingForRoom: Bool

    public init(pid: pid_t, uid: uid_t, queuedOutputBytes: Int, peakQueuedOutputBytes: Int, callsInProgress: Int, waitingForRoom: Bool) {
        self.pid = pid
        self.uid = uid
        self.queuedOutputBytes = queuedOutputBytes
        self.peakQueuedOutputBytes = peakQueuedOutputBytes
        self.callsInProgress = callsInProgress
        self.waitingForRoom = waitingForRoom
    }
}

/// The server's connections and what it has refused or closed since it started.
public struct ControlServerStatistics: Sendable, Equatable {
    public var connections: [ConnectionStatistics]
    /// Connections closed because the client read none of its replies for `roomTimeout`.
    public var closedStalled: Int
    /// Connections closed because their queued replies passed `maxQueuedOutputBytes`.
    public var closedOverHardBound: Int
    /// Connections from other users refused because only the slots reserved for root were left.
    public var refusedForRootReserve: Int

    public init(connections: [ConnectionStatistics] = [], closedStalled: Int = 0, closedOverHardBound: Int = 0, refusedForRootReserve: Int = 0) {
        self.connections = connections
        self.closedStalled = closedStalled
        self.closedOverHardBound = closedOverHardBound
        self.refusedForRootReserve = refusedForRootReserve
    }

    /// Every connection's queued reply bytes together.
    public var queuedOutputBytes: Int { connections.reduce(0) { $0 + $1.queuedOutputBytes } }
}
