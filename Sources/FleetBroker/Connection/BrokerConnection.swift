import Dispatch
import FleetSystem
import FoundationEssentials
import Synchronization

/// One gateway's link to the fleet's MQTT broker over libmosquitto: QoS 1 publishes that return an id, PUBACKs
/// and link changes as events, the gateway's retained status with a last will, and reconnects paced by
/// ``BrokerReconnectPolicy`` (the project's own ``Backoff``, capped at 1 s while an outage is young).
///
/// **Threads.** ``start()`` starts a network thread that owns the socket: it connects, runs libmosquitto's loop,
/// and waits out the backoff between attempts. ``publish(topic:payload:qos:retain:)`` may be called from any
/// thread or task and never blocks on the network: it queues the message inside libmosquitto and wakes the
/// network thread. Events are delivered on the network thread, in order, to every observer; an observer must
/// return quickly (append to a queue, yield to a stream).
///
/// **Sessions.** Each connection attempt uses a fresh libmosquitto client with a clean session, so nothing of a
/// dead session is resent by the library: a publish that was not acknowledged when its session ended is
/// simply never acknowledged, and its owner republishes it (``PublishPump`` does, from its acknowledged
/// cursor). That is MQTT's at-least-once: a message whose PUBACK was lost in the crash is delivered twice.
///
/// **Status and will.** CONNECT carries a last will: `offline`, retained, QoS 1 on `<prefix>/<gateway>/status`;
/// the broker publishes it when the session dies without a DISCONNECT (gateway killed, network gone, keep-alive
/// missed). Each session first publishes a retained `online` there. ``shutdown()`` publishes a retained
/// `offline`, waits for its PUBACK (``BrokerConfiguration/shutdownTimeout``) and disconnects; if the PUBACK does
/// not come, it closes the socket without DISCONNECT, so the broker publishes the will instead.
public final class BrokerConnection: Sendable {
    public let configuration: BrokerConfiguration
    public let topics: ReadingTopics
    let state = Mutex(ConnectionState())
    /// Apart from `state`, so that delivering a PUBACK never waits for a publish holding `state` (at tens of
    /// thousands of messages a second that contention cost more than the publishing itself).
    let observers = Mutex(ObserverList())
    let statusPublishes = Mutex(StatusPublishes())
    /// Ends the backoff wait early when ``shutdown()`` is called.
    let wake = DispatchSemaphore(value: 0)
    /// The zero of the durations given to ``BrokerOutage`` (it wants time since a monotonic epoch).
    let epoch = ContinuousClock.now

    /// Validates the configuration (including the credentials file's mode and the TLS files) without
    /// connecting; ``start()`` connects.
    public init(_ configuration: BrokerConfiguration) throws(BrokerError) {
        self.configuration = try configuration.validated()
        topics = try ReadingTopics(prefix: configuration.topicPrefix, gateway: configuration.gatewayID)
    }

    /// Starts the network thread, which connects and keeps reconnecting until ``shutdown()``. Register
    /// observers first to see the first `connected`. Calling it again does nothing.
    public func start() {
        let first = state.withLock { state in
            guard !state.started, !state.stopRequested else { return false }
            state.started = true
            state.status.phase = .connecting
            return true
        }
        guard first else { return }
        DetachedThread.start(name: "mqtt-link", stackSize: 1 << 20) { [self] in runNetworkLoop() }
    }

    /// The link now: phase, session, counts, last error.
    public var status: BrokerLinkStatus { state.withLock { $0.status } }

    /// Publishes one message: QoS 1 by default, so the broker's PUBACK arrives as
    /// ``BrokerEvent/acknowledged(_:)`` with the returned id. Throws ``BrokerError/Kind/notConnected`` when no
    /// session is up (nothing was sent), ``BrokerError/Kind/publishFailed`` when libmosquitto refuses the message.
    /// A QoS 0 publish is acknowledged by nobody; its id only names it.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: BrokerQoS = .atLeastOnce, retain: Bool = false) throws(BrokerError) -> PublishID {
        try state.withLock { (state) throws(BrokerError) -> PublishID in
            guard !state.stopRequested else { throw BrokerError(.shutDown, "the broker connection is shut down; not publishing on \(topic)") }
            guard let client = state.client else {
                throw BrokerError(.notConnected, "no broker session (\(state.status.phase.rawValue)); not publishing on \(topic)")
            }
            switch client.publish(topic: topic, payload: payload, qos: qos.rawValue, retain: retain) {
            case .success(let messageID):
                return PublishID(session: state.status.session, messageID: messageID)
            case .failure(let failure):
                if MosquittoLibrary.meansNoSession(failure.code) {
                    throw BrokerError(.notConnected, "the broker session ended; not publishing on \(topic)", cause: failure.cause)
                }
                let kind: BrokerError.Kind = MosquittoLibrary.meansInvalidMessage(failure.code) ? .messageInvalid : .publishFailed
                throw BrokerError(kind, "libmosquitto refused a \(payload.count)-byte publish on \(topic)", cause: failure.cause)
            }
        }
    }

    /// Publishes the retained `offline` status, waits for its PUBACK (at most the shutdown timeout), disconnects
    /// and stops the network thread; returns once it has ended. Publishing afterwards throws
    /// ``BrokerError/Kind/shutDown``. Calling it again waits for the same end.
    public func shutdown() async {
        let mustWait = state.withLock { state -> Bool in
            if !state.stopRequested {
                state.stopRequested = true
                if let client = state.client {
                    // Published under `statusPublishes`, so its PUBACK (looked up on the network thread under that
                    // lock alone) cannot be looked up before the id is recorded.
                    statusPublishes.withLock { status in
                        if case .success(let messageID) = client.publish(topic: topics.status, payload: GatewayStatus.offline.payload, qos: 1, retain: true) {
                            status.shutdownID = messageID
                            status.ids.insert(messageID)
                        }
                    }
                }
            }
            return state.started && !state.finished
        }
        wake.signal()
        guard mustWait else {
            finishWithoutThread()
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLock { state in
                if !state.finished { state.finishWaiters.append(continuation) }
                return state.finished
            }
            if finished { continuation.resume() }
        }
    }

    /// A connection that never started still reports `stopped` once, so stream consumers end.
    private func finishWithoutThread() {
        let report = state.withLock { state -> Bool in
            guard !state.started, !state.finished else { return false }
            state.finished = true
            state.status.phase = .stopped
            return true
        }
        if report { emitStopped() }
    }
}

/// The quality of service of a publish. QoS 2 is not offered: readings carry a per-device sequence, so
/// consumers drop duplicates themselves, and QoS 2's extra round trip would halve the rate.
public enum BrokerQoS: Int32, Sendable, Hashable {
    /// Fire and forget: no acknowledgement, lost when the link is down.
    case atMostOnce = 0
    /// Acknowledged by PUBACK; resent until acknowledged, so possibly delivered twice.
    case atLeastOnce = 1
}

/// What the connection's threads share, under ``BrokerConnection/state``.
struct ConnectionState {
    var started = false
    var stopRequested = false
    var finished = false
    var status = BrokerLinkStatus()
    /// The client of the session that is up; nil between sessions.
    var client: MosquittoClient?
    var finishWaiters: [CheckedContinuation<Void, Never>] = []
}

/// The connection's own publishes on the status topic in the current session: their PUBACKs are not reported.
struct StatusPublishes {
    var ids: Set<Int32> = []
    var shutdownID: Int32?
    var shutdownAcknowledged = false
}

/// Who hears the connection's events.
struct ObserverList {
    var handlers: [(id: Int, handler: @Sendable (BrokerEvent) -> Void)] = []
    var nextID = 0
    /// Set once `stopped` has gone out: later observers hear it at once.
    var finished = false
}
