/// Signals delivered in batches: everything that matched in one batch window of the I/O thread, as one element.
///
/// A per-signal `AsyncStream` wakes its consumer once per signal, and a consumer that relays into an actor adds a
/// second hop; under a flood those thread hand-offs cost more than the work (issue 18). A batch is handed over
/// once per batch window (`DBusConnection.batchWindow`), already turned into the consumer's own type on the I/O thread.
extension DBusConnection {
    /// Subscribes to signals matching any of `rules`, transformed on the I/O thread (nil drops a signal) and
    /// yielded in arrival order, one array per batch window. The stream finishes when the connection closes;
    /// ending the iteration removes the matches from the bus. `transform` runs on the I/O thread: it must be
    /// quick and must not block.
    public func signalBatches<Element: Sendable>(matching rules: [DBusMatchRule],
                                                 transform: @escaping @Sendable (DBusMessage) -> Element?) async throws(DBusError)
        -> SignalBatches<Element> {
        let (stream, continuation) = AsyncStream<[Element]>.makeStream()
        let delivered = DeliveryMark()
        let batcher = SignalBatcher(continuation: continuation, delivered: delivered, transform: transform)
        let id = insertSubscription(rules: rules, sink: .batches(batcher))
        continuation.onTermination = { [weak self] _ in self?.removeSubscription(id, rules: rules) }
        do {
            try await addMatches(rules)
        } catch {
            continuation.finish()
            throw error
        }
        return SignalBatches(batches: stream, delivered: delivered)
    }

    /// Runs on the I/O thread when a batch is due: hands each batch subscriber what the window gathered.
    func flushSignalBatches() {
        let batchers = state.withLock { state -> [any SignalBatchSink] in
            guard state.batchesPending else { return [] }
            state.batchesPending = false
            return state.subscriptions.values.compactMap { subscription in
                if case .batches(let batcher) = subscription.sink { batcher } else { nil }
            }
        }
        for batcher in batchers { batcher.flush() }
    }
}

/// What the I/O thread does with a matched signal for a batch subscriber. Only the I/O thread offers and
/// flushes, so the pending batch needs no lock.
protocol SignalBatchSink: AnyObject, Sendable {
    func offer(_ message: DBusMessage)
    func flush()
    func finish()
}

final class SignalBatcher<Element: Sendable>: SignalBatchSink, @unchecked Sendable {
    private let continuation: AsyncStream<[Element]>.Continuation
    private let delivered: DeliveryMark
    private let transform: @Sendable (DBusMessage) -> Element?
    /// Touched only on the I/O thread.
    private var pending: [Element] = []

    init(continuation: AsyncStream<[Element]>.Continuation, delivered: DeliveryMark,
         transform: @escaping @Sendable (DBusMessage) -> Element?) {
        self.continuation = continuation
        self.delivered = delivered
        self.transform = transform
    }

    func offer(_ message: DBusMessage) {
        guard let element = transform(message) else { return }
        pending.append(element)
        // Marked when kept, before any later message (a reply) is handled on this thread; the batch is yielded at
        // the end of the read turn, so a reader waiting for this mark gets it. A dropped message is never marked:
        // nobody would take it.
        delivered.value.store(message.arrival, ordering: .releasing)
    }

    func flush() {
        guard !pending.isEmpty else { return }
        continuation.yield(pending)
        pending.removeAll(keepingCapacity: true)
    }

    func finish() {
        continuation.finish()
    }
}

/// Signals in batches, and how far the connection has delivered into them.
public struct SignalBatches<Element: Sendable>: Sendable {
    /// One array per read turn of the I/O thread, in arrival order; finishes when the connection closes.
    public let batches: AsyncStream<[Element]>
    let delivered: DeliveryMark

    /// The `arrival` of the last message kept for `batches` (0 before the first); see
    /// `SignalSubscription.lastDelivered`. The element should carry its message's arrival so the reader can say
    /// how far it has got.
    public var lastDelivered: UInt64 { delivered.value.load(ordering: .acquiring) }
}
