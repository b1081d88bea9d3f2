/// A registered observer of a ``BrokerConnection``; ``cancel()`` unregisters it.
public struct BrokerObservation: Sendable {
    let id: Int
    let connection: BrokerConnection

    public func cancel() {
        connection.observers.withLock { list in list.handlers.removeAll { $0.id == id } }
    }
}

extension BrokerConnection {
    /// Calls `handler` with every event from now on, on the network thread, in order. Keep it short: it holds up
    /// the network loop. An observer registered after the connection stopped gets `.link(.stopped)` at once.
    public func observe(_ handler: @escaping @Sendable (BrokerEvent) -> Void) -> BrokerObservation {
        let (id, finished) = observers.withLock { list in
            let id = list.nextID
            list.nextID += 1
            if !list.finished { list.handlers.append((id, handler)) }
            return (id, list.finished)
        }
        if finished { handler(.link(.stopped)) }
        return BrokerObservation(id: id, connection: self)
    }

    /// Every event from now on; the stream ends after `.link(.stopped)`.
    public func events() -> AsyncStream<BrokerEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: BrokerEvent.self)
        let observation = observe { event in
            continuation.yield(event)
            if case .link(.stopped) = event { continuation.finish() }
        }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// Link changes only (connected, attempt failed, lost, stopped), for logs and metrics; ends after `stopped`.
    public func linkEvents() -> AsyncStream<BrokerLinkEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: BrokerLinkEvent.self)
        let observation = observe { event in
            guard case .link(let link) = event else { return }
            continuation.yield(link)
            if case .stopped = link { continuation.finish() }
        }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    func emit(_ event: BrokerEvent) {
        let handlers = observers.withLock { $0.handlers }
        for observer in handlers { observer.handler(event) }
    }

    /// The last event: delivered, then every observer is dropped and later ones hear `stopped` at once.
    func emitStopped() {
        let handlers = observers.withLock { list in
            list.finished = true
            defer { list.handlers = [] }
            return list.handlers
        }
        for observer in handlers { observer.handler(.link(.stopped)) }
    }
}
