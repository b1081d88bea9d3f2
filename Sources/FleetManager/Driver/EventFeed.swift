import FoundationEssentials
import Supervision
import Synchronization

/// One entry of the supervisor's event stream: a lifecycle event, a notification value, or the marker a
/// reconnect leaves, numbered so a consumer can detect gaps.
public struct FeedEntry: Sendable {
    public enum Kind: Sendable {
        /// A lifecycle event, with the device's phase when it was published.
        case lifecycle(FleetMessageID, phase: DevicePhase)
        case notification(characteristic: String, value: [UInt8])
        /// The link came back: values before and after belong to different connections.
        case reconnected
    }

    public var sequence: UInt64
    /// Wall-clock time, for people.
    public var time: Date
    /// Policy time since the feed started (monotonic), for ordering and gap detection.
    public var monotonic: Duration
    public var device: DeviceID
    public var kind: Kind
    public var text: String
}

/// Fans the supervisor's entries out to subscribers (`fleetctl watch`). Each subscriber has a bounded buffer: a consumer that falls behind loses the oldest entries, and the
/// sequence numbers show the gap.
public final class EventFeed: Sendable {
    private struct State {
        var next: UInt64 = 1
        var subscribers: [UInt64: AsyncStream<FeedEntry>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var notificationCount: UInt64 = 0
    }

    private let state = Mutex(State())
    private let clock: any SupervisorClock
    private let started: Duration
    public let bufferPerSubscriber: Int

    public init(clock: any SupervisorClock = SystemSupervisorClock(), bufferPerSubscriber: Int = 4096) {
        self.clock = clock
        started = clock.now()
        self.bufferPerSubscriber = bufferPerSubscriber
    }

    /// Numbers an entry and hands it to every subscriber. With none (no `fleetctl watch` running, the usual
    /// case) the number is still taken, so a later subscriber's first number says how much went by, but no
    /// entry is made: its text cost two mallocs, and its times two clock reads, per notification
    /// (issue 18).
    public func publish(device: DeviceID, kind: FeedEntry.Kind, text: @autoclosure () -> String) {
        let (entry, targets) = state.withLock { state -> (FeedEntry?, [AsyncStream<FeedEntry>.Continuation]) in
            let sequence = state.next
            state.next += 1
            if case .notification = kind { state.notificationCount += 1 }
            guard !state.subscribers.isEmpty else { return (nil, []) }
            let entry = FeedEntry(sequence: sequence, time: clock.wallNow(), monotonic: clock.now() - started, device: device, kind: kind,
                                  text: text())
            return (entry, Array(state.subscribers.values))
        }
        guard let entry else { return }
        for target in targets { target.yield(entry) }
    }

    /// A live stream of entries (optionally for one device), finished when the feed closes.
    public func subscribe(device: DeviceID? = nil) -> AsyncStream<FeedEntry> {
        let (stream, continuation) = AsyncStream<FeedEntry>.makeStream(bufferingPolicy: .bufferingNewest(bufferPerSubscriber))
        let (relay, relayContinuation) = AsyncStream<FeedEntry>.makeStream(bufferingPolicy: .bufferingNewest(bufferPerSubscriber))
        let id = state.withLock { state -> UInt64 in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        let task = Task {
            for await entry in stream where device == nil || entry.device == device { relayContinuation.yield(entry) }
            relayContinuation.finish()
        }
        relayContinuation.onTermination = { [weak self] _ in
            task.cancel()
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
            continuation.finish()
        }
        return relay
    }

    public var notificationsReceived: UInt64 { state.withLock { $0.notificationCount } }

    public func close() {
        let targets = state.withLock { state -> [AsyncStream<FeedEntry>.Continuation] in
            let targets = Array(state.subscribers.values)
            state.subscribers.removeAll()
            return targets
        }
        for target in targets { target.finish() }
    }
}
