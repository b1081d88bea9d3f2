import Dispatch
import FleetPlatform
import FoundationEssentials
import Policy
#if canImport(Glibc)
import Glibc
#endif

/// What the callbacks of one attempt's client saw, read by the network thread between loop passes.
private final class SessionSignals {
    var connack: Int32?
    var disconnect: Int32?
}

private enum AttemptOutcome {
    case established(MosquittoClient, SessionSignals)
    case failed(BrokerError)
    case stopped
}

private enum SessionEnd {
    case lost(BrokerError)
    case stopped
}

extension BrokerConnection {
    /// The network thread: attempt, serve the session, wait out the backoff, again, until shutdown.
    func runNetworkLoop() {
        var outage = BrokerOutage(policy: configuration.reconnectPolicy)
        var random = SplitMix64(seed: configuration.randomSeed ?? UInt64.random(in: .min ... .max))
        var sessions = 0
        attempts: while !stopRequested {
            setPhase(.connecting)
            switch attemptSession(number: sessions + 1) {
            case .stopped:
                break attempts
            case .failed(let error):
                let delay = outage.failed(now: sinceEpoch, draw: Double.random(in: 0...1, using: &random))
                state.withLock { state in
                    state.status.failedAttempts += 1
                    state.status.lastError = error
                }
                emit(.link(.attemptFailed(error, retryIn: delay)))
                waitOut(delay)
            case .established(let client, let signals):
                sessions += 1
                outage.linkUp(now: sinceEpoch)
                emit(.link(.connected(session: sessions, isReconnect: sessions > 1)))
                let end = serve(client, signals)
                outage.linkDown(now: sinceEpoch)
                state.withLock { $0.client = nil }
                statusPublishes.withLock { $0.ids = [] }
                // The client (and with it the socket, if still open) goes here, before anything else happens.
                switch end {
                case .stopped:
                    break attempts
                case .lost(let error):
                    let delay = outage.failed(now: sinceEpoch, draw: Double.random(in: 0...1, using: &random))
                    state.withLock { state in
                        state.status.losses += 1
                        state.status.lastError = error
                    }
                    emit(.link(.lost(error, retryIn: delay)))
                    waitOut(delay)
                }
            }
        }
        let waiters = state.withLock { state in
            state.finished = true
            state.client = nil
            state.status.phase = .stopped
            defer { state.finishWaiters = [] }
            return state.finishWaiters
        }
        emitStopped()
        for waiter in waiters { waiter.resume() }
    }

    private var stopRequested: Bool { state.withLock { $0.stopRequested } }
    private var sinceEpoch: Duration { ContinuousClock.now - epoch }

    private func setPhase(_ phase: BrokerLinkStatus.Phase) {
        state.withLock { $0.status.phase = phase }
    }

    /// Sleeps `delay`, or less if shutdown is requested.
    private func waitOut(_ delay: Duration) {
        guard !stopRequested else { return }
        setPhase(.waiting)
        let nanoseconds = max(0, delay.components.seconds) * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
        _ = wake.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
    }

    private var endpoint: String { "\(configuration.host):\(configuration.port)" }

    /// One attempt: a fresh client, CONNECT, and the CONNACK within the connect timeout.
    private func attemptSession(number: Int) -> AttemptOutcome {
        let signals = SessionSignals()
        let callbacks = MosquittoCallbacks()
        callbacks.onConnect = { signals.connack = $0 }
        callbacks.onDisconnect = { signals.disconnect = $0 }
        callbacks.onPublish = { [unowned self] messageID, reason in
            publishAnswered(PublishID(session: number, messageID: messageID), reason: reason)
        }
        let client: MosquittoClient
        do {
            client = try MosquittoClient(clientID: configuration.gatewayID, callbacks: callbacks)
            try client.setProtocol(configuration.protocolVersion)
            try client.setSendMaximum(configuration.maxInFlight)
            if let path = configuration.credentialsFile { try client.setCredentials(try BrokerCredentials.load(from: path)) }
            try client.setWill(topic: topics.status, payload: GatewayStatus.offline.payload, retain: true)
            if let tls = configuration.tls {
                try tls.validate()
                try client.setTLS(tls)
            }
        } catch {
            return .failed(error)
        }
        let deadline = ContinuousClock.now + configuration.connectTimeout
        let started = client.connect(host: configuration.host, port: configuration.port,
                                     keepAliveSeconds: Int(configuration.keepAlive.components.seconds))
        let startErrno = errno
        guard started == MosquittoLibrary.success || started == MosquittoLibrary.connectionPending else {
            return .failed(BrokerError(.connectFailed, "cannot connect to the broker at \(endpoint)",
                                       cause: MosquittoLibrary.cause(started, errno: startErrno)))
        }
        while true {
            if stopRequested { return .stopped }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                return .failed(BrokerError(.connectTimedOut, "the broker at \(endpoint) did not answer CONNECT within \(configuration.connectTimeout)"))
            }
            // Short passes, so a shutdown during a slow connect is seen within a quarter second.
            let code = client.loop(timeoutMilliseconds: min(250, max(1, Int(clamping: remaining.milliseconds))))
            let loopErrno = errno
            if let connack = signals.connack {
                guard connack == 0 else {
                    return .failed(BrokerError(.connectionRefused, "the broker at \(endpoint) refused gateway \(configuration.gatewayID)",
                                               cause: MosquittoLibrary.replyCause(connack, version: configuration.protocolVersion)))
                }
                break
            }
            if code != MosquittoLibrary.success || signals.disconnect != nil {
                let cause = signals.disconnect.map { sessionEndCause($0, errno: loopErrno) } ?? MosquittoLibrary.cause(code, errno: loopErrno)
                return .failed(BrokerError(.connectFailed, "cannot connect to the broker at \(endpoint)", cause: cause))
            }
        }
        let online = state.withLock { state -> Bool in
            guard !state.stopRequested else { return false }
            state.client = client
            state.status.session = number
            state.status.phase = .connected
            let online = client.publish(topic: topics.status, payload: GatewayStatus.online.payload, qos: 1, retain: true)
            statusPublishes.withLock { status in
                status.ids = []
                if case .success(let messageID) = online { status.ids.insert(messageID) }
            }
            return true
        }
        return online ? .established(client, signals) : .stopped
    }

    /// Runs the loop of an established session until it is lost or shut down.
    private func serve(_ client: MosquittoClient, _ signals: SessionSignals) -> SessionEnd {
        var shutdownDeadline: ContinuousClock.Instant?
        var disconnecting = false
        while true {
            let stopping = stopRequested
            let offlineAcknowledged = statusPublishes.withLock { $0.shutdownAcknowledged }
            var timeout = 1000
            if stopping {
                let deadline = shutdownDeadline ?? ContinuousClock.now + configuration.shutdownTimeout
                shutdownDeadline = deadline
                if !disconnecting && offlineAcknowledged {
                    disconnecting = client.disconnect() == MosquittoLibrary.success
                    if !disconnecting { return .stopped }
                }
                let remaining = deadline - ContinuousClock.now
                // Past the deadline without the offline PUBACK (or without the DISCONNECT written): closing the
                // socket bare makes the broker publish the will, so the status still ends `offline`.
                guard remaining > .zero else { return .stopped }
                timeout = min(100, max(1, Int(clamping: remaining.milliseconds)))
            }
            let code = client.loop(timeoutMilliseconds: timeout)
            let loopErrno = errno
            if disconnecting, code != MosquittoLibrary.success || signals.disconnect != nil { return .stopped }
            if let disconnect = signals.disconnect {
                return .lost(BrokerError(.connectionLost, "the session with the broker at \(endpoint) ended",
                                         cause: sessionEndCause(disconnect, errno: loopErrno)))
            }
            if code != MosquittoLibrary.success {
                return .lost(BrokerError(.connectionLost, "the session with the broker at \(endpoint) ended",
                                         cause: MosquittoLibrary.cause(code, errno: loopErrno)))
            }
        }
    }

    /// libmosquitto passes the disconnect callback either its own error code or, when an MQTT 5 broker sent
    /// DISCONNECT, the broker's reason code; those are all ≥ 0x80, above every `MOSQ_ERR_*`.
    private func sessionEndCause(_ code: Int32, errno savedErrno: Int32) -> BrokerError.Cause {
        if configuration.protocolVersion == .mqtt5 && code >= 0x80 {
            return MosquittoLibrary.replyCause(code, version: .mqtt5)
        }
        return MosquittoLibrary.cause(code, errno: savedErrno)
    }

    /// A PUBACK (on the network thread): the connection's own status publishes end here, the rest go to observers.
    private func publishAnswered(_ id: PublishID, reason: Int32) {
        let isInternal = statusPublishes.withLock { status -> Bool in
            guard status.ids.remove(id.messageID) != nil else { return false }
            if id.messageID == status.shutdownID { status.shutdownAcknowledged = true }
            return true
        }
        guard !isInternal else { return }
        emit(.answer(to: id, reason: reason, broker: endpoint))
    }
}
