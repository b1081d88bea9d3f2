@testable import Supervision

/// Pattern-matching helpers over a batch of actions, so each test reads as "which connects, which timers".
struct ConnectRequest: Hashable {
    var device: DeviceID
    var path: DevicePath
    var adapter: AdapterID
    var timeout: Duration
    var token: UInt64
}

struct SetUpRequest: Hashable {
    var device: DeviceID
    var path: DevicePath
    var subscribe: [String]
    var read: [String]
    var token: UInt64
    var session: UInt64
}

extension Array where Element == FleetAction {
    var connects: [ConnectRequest] {
        compactMap {
            guard case let .connect(device, path, adapter, timeout, token) = $0 else { return nil }
            return ConnectRequest(device: device, path: path, adapter: adapter, timeout: timeout, token: token)
        }
    }

    var setUps: [SetUpRequest] {
        compactMap {
            guard case let .setUp(device, path, subscribe, read, _, token, session) = $0 else { return nil }
            return SetUpRequest(device: device, path: path, subscribe: subscribe, read: read, token: token, session: session)
        }
    }

    var scheduled: [(timer: TimerID, after: Duration)] {
        compactMap {
            guard case let .schedule(timer, after) = $0 else { return nil }
            return (timer, after)
        }
    }

    var cancelled: [TimerID] {
        compactMap {
            guard case let .cancel(timer) = $0 else { return nil }
            return timer
        }
    }

    var disconnects: [(device: DeviceID, path: DevicePath)] {
        compactMap {
            guard case let .disconnect(device, path) = $0 else { return nil }
            return (device, path)
        }
    }

    var removals: [(device: DeviceID, adapter: AdapterID, path: DevicePath)] {
        compactMap {
            guard case let .removeDevice(device, adapter, path) = $0 else { return nil }
            return (device, adapter, path)
        }
    }

    var discoveryStarts: [AdapterID] {
        compactMap {
            guard case let .startDiscovery(adapter) = $0 else { return nil }
            return adapter
        }
    }

    var persists: Int { filter { $0 == .persist }.count }

    var events: [LifecycleEvent] {
        compactMap {
            guard case let .event(event) = $0 else { return nil }
            return event
        }
    }

    /// Everything but the outcomes counted for metrics: what the machine does about an event.
    var effects: [FleetAction] {
        filter { if case .outcome = $0 { false } else { true } }
    }

    var outcomes: [FleetOutcome] {
        compactMap {
            guard case let .outcome(outcome) = $0 else { return nil }
            return outcome
        }
    }

    func events(_ id: FleetMessageID) -> [LifecycleEvent] { events.filter { $0.id == id } }
}
