/// What the connection's mutex guards.
struct ConnectionState {
    var outgoing: [Outgoing] = []
    var pending: [UInt32: PendingCall] = [:]
    var serialByCall: [UInt64: UInt32] = [:]
    var cancelledBeforeQueued: Set<UInt64> = []
    var nextCallID: UInt64 = 0
    var subscriptions: [UInt64: Subscription] = [:]
    var nextSubscriptionID: UInt64 = 0
    /// Current unique owner of each well-known name a subscription follows.
    var nameOwners: [String: String] = [:]
    var methodCallHandler: (@Sendable (DBusMessage) -> Void)?
    /// Tests only: run on the I/O thread after it has taken queued calls off `outgoing` and before they are sent
    /// and recorded as pending, the moment a cancellation used to fall between.
    var tookOutgoingCalls: (@Sendable () -> Void)?
    /// A batch subscriber was offered a signal in this read turn.
    var batchesPending = false
    var closing = false
    var closed = false
}

/// A message waiting for the I/O thread to send it.
enum Outgoing {
    case send(DBusMessagePointer)
    case call(id: UInt64, message: DBusMessagePointer, deadline: ContinuousClock.Instant, context: String,
              continuation: CheckedContinuation<Result<DBusMessage, DBusError>, Never>)

    var callID: UInt64? {
        if case .call(let id, _, _, _, _) = self { return id }
        return nil
    }
}

/// A sent call waiting for its reply.
struct PendingCall {
    let id: UInt64
    let deadline: ContinuousClock.Instant
    let context: String
    let continuation: CheckedContinuation<Result<DBusMessage, DBusError>, Never>
}

/// One signal subscriber: the messages matching any of its rules go to one stream, in arrival order.
///
/// A class: every signal walks the subscriptions, and a struct was copied out of the dictionary for each (its
/// rules' strings retained and released, through unspecialised value witnesses) — 5 % of the I/O thread at 1 Hz
/// with adverts (issue 18).
final class Subscription: Sendable {
    let rules: [DBusMatchRule]
    let sink: Sink

    init(rules: [DBusMatchRule], sink: Sink) {
        self.rules = rules
        self.sink = sink
    }

    /// Whether any rule matches `message`. The rules are read in place, not copied out one by one.
    func matches(_ message: DBusMessage, owners: [String: String]) -> Bool {
        rules.withUnsafeBufferPointer { rules in
            for index in rules.indices where rules[index].matches(message, owners: owners) { return true }
            return false
        }
    }

    /// Where matched signals go: one stream element each, or into a batch handed over per read turn. Each
    /// sink records the arrival of the last message it took (`SignalSubscription.lastDelivered`).
    enum Sink: Sendable {
        case each(AsyncStream<DBusMessage>.Continuation, DeliveryMark)
        case batches(any SignalBatchSink)
    }

    func finish() {
        switch sink {
        case .each(let continuation, _): continuation.finish()
        case .batches(let batcher): batcher.finish()
        }
    }
}
