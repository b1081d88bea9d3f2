import FleetProtocol
import Supervision

/// How the supervisor's phases and lifecycle events read on the control socket: the one place where the
/// daemon's words become the protocol's `DeviceState`.
extension DeviceState {
    /// The state a device in `phase` is in. Exhaustive, so a new phase cannot reach clients unnamed.
    init(_ phase: DevicePhase) {
        switch phase {
        case .unknown: self = .unknown
        case .discovered: self = .discovered
        case .connecting: self = .connecting
        case .connected: self = .connected
        case .resolving: self = .resolving
        case .ready: self = .ready
        case .backoff: self = .backingOff
        case .evicted: self = .evicted
        case .disconnecting: self = .disconnecting
        case .waitingForAdapter: self = .waitingForAdapter
        case .idle: self = .idle
        case .failed: self = .failed
        case .pairing: self = .pairing
        case .needsPairing: self = .needsPairing
        }
    }

    /// The state a lifecycle event announces at its own moment (not wherever the device went after it);
    /// nil for events that announce none, which then show the device's phase when they were published.
    init?(announcedBy id: FleetMessageID) {
        switch id {
        case .discovered: self = .discovered
        case .connectAttempt: self = .connecting
        case .connected: self = .connected
        case .ready: self = .ready
        case .backoffScheduled: self = .backingOff
        case .evicted: self = .evicted
        case .gaveUp: self = .failed
        case .pairingStarted: self = .pairing
        case .needsPairing: self = .needsPairing
        default: return nil
        }
    }
}

extension WatchEvent.Kind {
    /// The Watch form of a feed entry: a link-down event is its own kind, every other lifecycle event a state.
    init(_ kind: FeedEntry.Kind) {
        switch kind {
        case .lifecycle(.disconnected, _): self = .disconnected
        case .lifecycle(let id, let phase): self = .lifecycle(state: DeviceState(announcedBy: id) ?? DeviceState(phase))
        case .notification(let characteristic, let value): self = .notification(characteristic: characteristic, value: value)
        case .reconnected: self = .reconnected
        }
    }
}
