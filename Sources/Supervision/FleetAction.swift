/// A timer the driver runs for the state machine. The generation makes every scheduled timer unique, so a
/// fire for a timer that was since replaced or cancelled is recognised as stale and dropped.
public struct TimerID: Sendable, Hashable, CustomStringConvertible {
    public enum Purpose: String, Sendable, Hashable {
        /// Retry a connect after backoff.
        case retry
        /// End an eviction's hold-off.
        case holdOff
        /// Give a connected device this long to resolve services and finish set-up.
        case setUpDeadline
        /// Re-run admission when a hold time that blocked it ends.
        case admission
        /// A Disconnect we asked for must show as Connected=false within this time, or the link is
        /// written off (and BlueZ's object cleared) so that the device and its slot are never stuck.
        case disconnectDeadline
    }

    public var device: DeviceID
    public var purpose: Purpose
    public var generation: UInt64

    public var description: String { "\(purpose.rawValue)#\(generation)/\(device)" }
}

/// What the state machine asks the driver to do. The driver performs actions in order and reports each
/// outcome back as an event.
public enum FleetAction: Sendable, Hashable {
    /// Device1.Connect on `path`, bounded by `timeout`; report `connectFinished(device:token:…)`.
    case connect(device: DeviceID, path: DevicePath, adapter: AdapterID, timeout: Duration, token: UInt64)
    case disconnect(device: DeviceID, path: DevicePath)
    /// Adapter1.RemoveDevice, to clear state BlueZ is stuck in. Never for a bonded object (it would delete
    /// the keys): the machine falls back to Disconnect for those.
    case removeDevice(device: DeviceID, adapter: AdapterID, path: DevicePath)
    /// Device1.Pair on `path` with fleetd's agent, bounded by `timeout`; report `pairFinished(device:token:…)`.
    case pair(device: DeviceID, path: DevicePath, timeout: Duration, token: UInt64)
    /// Device1.CancelPairing: a Pair that outlived its time.
    case cancelPairing(device: DeviceID, path: DevicePath)
    /// Adapter1.RemoveDevice of a bonded object, deleting its keys: only for `fleetctl unpair`/`forget` and
    /// the stale-bond policy (`re-pair = auto`).
    case unpair(device: DeviceID, adapter: AdapterID, path: DevicePath)
    /// Discover the characteristics under `path`, read `read`, StartNotify `subscribe`; report `setUpFinished`
    /// with the reads that succeeded. Values belong to reading session `session`: the token of the link's first
    /// set-up, so a set-up run again on the same link (after pairing) continues its session.
    /// With `armProfiles` the driver also arms the standard profile characteristics it finds (and reports them
    /// as `armed`).
    case setUp(device: DeviceID, path: DevicePath, subscribe: [String], read: [String], armProfiles: Bool, token: UInt64, session: UInt64)
    case schedule(TimerID, after: Duration)
    case cancel(TimerID)
    /// Start (or restart) discovery with fleetd's filter on this adapter.
    case startDiscovery(adapter: AdapterID)
    /// The desired state changed: write the snapshot (the driver coalesces bursts).
    case persist
    /// A lifecycle event: logged for people and streamed to `fleetctl watch`.
    case event(LifecycleEvent)
    /// A fact for the counters and the feed.
    case outcome(FleetOutcome)
}
