/// Signal subscriptions: a match rule on the bus plus an `AsyncStream` per subscriber.
extension DBusConnection {
    /// Subscribes to signals matching `rule`. The stream yields them in arrival order and finishes when the
    /// connection closes; ending the iteration removes the match from the bus.
    public func signals(matching rule: DBusMatchRule) async throws(DBusError) -> AsyncStream<DBusMessage> {
        let (stream, continuation) = AsyncStream<DBusMessage>.makeStream()
        let id = state.withLock { state -> UInt64 in
            state.nextSubscriptionID += 1
            let id = state.nextSubscriptionID
            // Registered before AddMatch so that nothing the bus sends after the match is in place is lost.
            state.subscriptions[id] = Subscription(rule: rule, continuation: continuation)
            return id
        }
        continuation.onTermination = { [weak self] _ in
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
            continuation.finish()
            throw error
        }
        return stream
    }

    /// Tracks the unique owner of a well-known name, so that signals from a restarted service still match.
    func follow(name: String) async throws(DBusError) {
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
        let targets = state.withLock { state -> [Subscription.Sink] in
            if message.member == "NameOwnerChanged", message.interface == "org.freedesktop.DBus",
               message.sender == "org.freedesktop.DBus", message.body.count == 3,
               case .string(let name) = message.body[0], case .string(let newOwner) = message.body[2],
               state.nameOwners[name] != nil {
                state.nameOwners[name] = newOwner
            }
            var out: [Subscription.Sink] = []
            for subscription in state.subscriptions.values {
                let owner = subscription.rule.sender.flatMap { state.nameOwners[$0] }
                guard subscription.rule.matches(message, owner: owner) else { continue }
                if case .batches(let batcher) = subscription.sink {
                    // One subscriber with several rules takes a signal once, however many of its rules match.
                    if out.contains(where: { if case .batches(let other) = $0 { other === batcher } else { false } }) { continue }
                    state.batchesPending = true
                }
                out.append(subscription.sink)
            }
            return out
        }
        for target in targets {
            switch target {
            case .each(let continuation): continuation.yield(message)
            case .batches(let batcher): batcher.offer(message)
            }
        }
    }
}
