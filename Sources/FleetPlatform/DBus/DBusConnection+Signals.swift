import Synchronization

/// Signal subscriptions: match rules on the bus plus an `AsyncStream` per subscriber.
extension DBusConnection {
    /// Subscribes to signals matching `rule`. The stream yields them in arrival order and finishes when the
    /// connection closes; ending the iteration removes the match from the bus.
    public func signals(matching rule: DBusMatchRule) async throws(DBusError) -> AsyncStream<DBusMessage> {
        try await subscribe(matching: [rule]).messages
    }

    /// Subscribes to signals matching any of `rules`, in one stream in arrival order (two streams read by two
    /// tasks would lose the order between them, e.g. bluetoothd's last signals and its leaving the bus).
    public func subscribe(matching rules: [DBusMatchRule]) async throws(DBusError) -> SignalSubscription {
        let (stream, continuation) = AsyncStream<DBusMessage>.makeStream()
        let delivered = DeliveryMark()
        let id = insertSubscription(rules: rules, sink: .each(continuation, delivered))
        continuation.onTermination = { [weak self] _ in self?.removeSubscription(id, rules: rules) }
        do {
            try await addMatches(rules)
        } catch {
            continuation.finish()
            throw error
        }
        return SignalSubscription(messages: stream, delivered: delivered)
    }

    /// Puts a subscriber on the connection before its matches go on the bus, so that nothing the bus sends once a
    /// match is in place is lost. The caller makes the subscriber's stream end with `removeSubscription`.
    func insertSubscription(rules: [DBusMatchRule], sink: Subscription.Sink) -> UInt64 {
        state.withLock { state -> UInt64 in
            state.nextSubscriptionID += 1
            state.subscriptions[state.nextSubscriptionID] = Subscription(rules: rules, sink: sink)
            return state.nextSubscriptionID
        }
    }

    /// Adds `rules` on the bus, following the owner of each well-known sender (a restarted service's signals
    /// still match).
    func addMatches(_ rules: [DBusMatchRule]) async throws(DBusError) {
        for rule in rules {
            if let sender = rule.sender, !sender.hasPrefix(":"), sender != "org.freedesktop.DBus" {
                try await follow(name: sender)
            }
            try await busCall("AddMatch", [.string(rule.text)])
        }
    }

    /// The subscriber stopped listening (or its matches could not be added): it is taken off the connection and
    /// its matches off the bus.
    func removeSubscription(_ id: UInt64, rules: [DBusMatchRule]) {
        state.withLock { _ = $0.subscriptions.removeValue(forKey: id) }
        Task { for rule in rules { _ = try? await busCall("RemoveMatch", [.string(rule.text)]) } }
    }

    /// Tracks the unique owner of a well-known name, so that signals from a restarted service still match and
    /// ``owner(of:)`` can tell who a caller is (fleetd's agent answers only the owner of org.bluez).
    public func follow(name: String) async throws(DBusError) {
        let already = state.withLock { $0.nameOwners[name] != nil }
        guard !already else { return }
        let watch = DBusMatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                  interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: name)
        try await busCall("AddMatch", [.string(watch.text)])
        do {
            let owner = try await call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                       interface: "org.freedesktop.DBus", member: "GetNameOwner",
                                       arguments: [.string(name)], expecting: "s")
            if case .string(let unique) = owner[0] {
                state.withLock { state in
                    if state.nameOwners[name] == nil || state.nameOwners[name] == "" { state.nameOwners[name] = unique }
                }
            }
        } catch where error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            state.withLock { state in
                if state.nameOwners[name] == nil { state.nameOwners[name] = "" }
            }
        }
    }

    /// The current unique owner of a well-known name this connection follows ("" when it has none).
    public func owner(of name: String) -> String? {
        state.withLock { $0.nameOwners[name] }
    }

    @discardableResult
    func busCall(_ member: String, _ arguments: [DBusValue]) async throws(DBusError) -> DBusMessage {
        try await call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                       interface: "org.freedesktop.DBus", member: member, arguments: arguments)
    }

    /// Runs on the I/O thread: updates followed owners, then yields to every matching subscriber.
    func deliver(signal message: DBusMessage) {
        // Nearly every signal has one subscriber (fleetd's one BlueZ subscription): it is kept without an array,
        // which would be a malloc and a free per signal under a flood (issue 18).
        var first: Subscription.Sink?
        var others: [Subscription.Sink] = []
        state.withLock { state in
            if message.member == "NameOwnerChanged", message.interface == "org.freedesktop.DBus",
               message.sender == "org.freedesktop.DBus", message.body.count == 3,
               case .string(let name) = message.body[0], case .string(let newOwner) = message.body[2],
               state.nameOwners[name] != nil {
                state.nameOwners[name] = newOwner
            }
            for subscription in state.subscriptions.values {
                guard subscription.matches(message, owners: state.nameOwners) else { continue }
                switch subscription.sink {
                case .each(_, let delivered):
                    // Marked before the yield (which follows at once): a reader waiting for this mark never misses the message.
                    delivered.value.store(message.arrival, ordering: .releasing)
                case .batches:
                    // The batcher marks what it keeps when offered; the batch is yielded at the end of this read turn.
                    state.batchesPending = true
                }
                if first == nil { first = subscription.sink } else { others.append(subscription.sink) }
            }
        }
        guard let first else { return }
        Self.hand(message, to: first)
        for target in others { Self.hand(message, to: target) }
    }

    private static func hand(_ message: DBusMessage, to target: Subscription.Sink) {
        switch target {
        case .each(let continuation, _): continuation.yield(message)
        case .batches(let batcher): batcher.offer(message)
        }
    }
}

/// A signal subscription: its messages, and how far the connection has delivered into them.
public struct SignalSubscription: Sendable {
    /// The matching signals in arrival order; finishes when the connection closes.
    public let messages: AsyncStream<DBusMessage>
    let delivered: DeliveryMark

    /// The `arrival` of the last message yielded to `messages` (0 before the first). A reply that resumed its
    /// caller before this was read is behind every signal up to it: a caller that waits until its reader has
    /// taken the message with this arrival acts on the reply after the signals sent before it.
    public var lastDelivered: UInt64 { delivered.value.load(ordering: .acquiring) }
}

/// The arrival number of the last message yielded to a subscription, shared with its reader.
final class DeliveryMark: Sendable {
    let value = Atomic<UInt64>(0)
}
