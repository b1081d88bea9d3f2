/// What a marked signal stream carries: a signal, or a marker from `insertMarker()`.
public enum DBusSignalItem: Sendable {
    case signal(DBusMessage)
    case marker(UInt64)
}

/// Signal subscriptions: a match rule on the bus plus an `AsyncStream` per subscriber.
extension DBusConnection {
    /// Subscribes to signals matching `rule`. The stream yields them in arrival order and finishes when the
    /// connection closes; ending the iteration removes the match from the bus.
    public func signals(matching rule: DBusMatchRule) async throws(DBusError) -> AsyncStream<DBusMessage> {
        let (stream, continuation) = AsyncStream<DBusMessage>.makeStream()
        try await subscribe(rule, .messages(continuation)) { ended in continuation.onTermination = { _ in ended() } }
        return stream
    }

    /// Subscribes like `signals(matching:)`, with `insertMarker()`'s markers in the same stream: a marker comes
    /// after every signal this stream was given before it was inserted. A consumer that reached the marker has
    /// seen all of them, which is how a method reply is put in order with the signals that preceded it.
    public func markedSignals(matching rule: DBusMatchRule) async throws(DBusError) -> AsyncStream<DBusSignalItem> {
        let (stream, continuation) = AsyncStream<DBusSignalItem>.makeStream()
        try await subscribe(rule, .marked(continuation)) { ended in continuation.onTermination = { _ in ended() } }
        return stream
    }

    /// Puts a new marker into every marked stream and returns its number (increasing). Called after a method
    /// reply arrived, it follows every signal that arrived before that reply: the I/O thread hands a signal to
    /// its streams before it reads the next message.
    public func insertMarker() -> UInt64 {
        state.withLock { state in
            state.nextMarker += 1
            for subscription in state.subscriptions.values {
                if case .marked(let continuation) = subscription.sink { continuation.yield(.marker(state.nextMarker)) }
            }
            return state.nextMarker
        }
    }

    private func subscribe(_ rule: DBusMatchRule, _ sink: Subscription.Sink,
                           onTermination: (@escaping @Sendable () -> Void) -> Void) async throws(DBusError) {
        let subscription = Subscription(rule: rule, sink: sink)
        let id = state.withLock { state -> UInt64 in
            state.nextSubscriptionID += 1
            let id = state.nextSubscriptionID
            // Registered before AddMatch so that nothing the bus sends after the match is in place is lost.
            state.subscriptions[id] = subscription
            return id
        }
        onTermination { [weak self] in
            guard let self else { return }
            self.state.withLock { _ = $0.subscriptions.removeValue(forKey: id) }
            Task { try? await self.busCall("RemoveMatch", [.string(rule.text)]) }
        }
        do {
            if let sender = rule.sender, !sender.hasPrefix(":"), sender != "org.freedesktop.DBus" {
                try await follow(name: sender)
            }
            try await busCall("AddMatch", [.string(rule.text)])
        } catch {
            subscription.finish()
            throw error
        }
    }

    /// Tracks the unique owner of a well-known name, so that signals from a restarted service still match.
    private func follow(name: String) async throws(DBusError) {
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
        let targets = state.withLock { state -> [Subscription] in
            if message.member == "NameOwnerChanged", message.interface == "org.freedesktop.DBus",
               message.sender == "org.freedesktop.DBus", message.body.count == 3,
               case .string(let name) = message.body[0], case .string(let newOwner) = message.body[2],
               state.nameOwners[name] != nil {
                state.nameOwners[name] = newOwner
            }
            var out: [Subscription] = []
            for subscription in state.subscriptions.values {
                let owner = subscription.rule.sender.flatMap { state.nameOwners[$0] }
                if subscription.rule.matches(message, owner: owner) { out.append(subscription) }
            }
            return out
        }
        for target in targets { target.yield(message) }
    }
}
