/// What the supervisor should do next for one device, as decided by ``ReconnectState``.
public struct ReconnectStep: Sendable, Hashable {
    /// The action itself; every delay is measured from the `now` that produced the step.
    public enum Action: Sendable, Hashable {
        /// Connect again after `after`.
        case connect(after: Duration)
        /// Call Device1.Disconnect now, then connect after `after`.
        case disconnectThenConnect(after: Duration)
        /// Call Adapter1.RemoveDevice now (BlueZ forgets the device, and any bond), then connect after
        /// `after` once the device is seen again. The supervisor should not take this step for a bonded
        /// device it cannot re-pair; it can fall back to Disconnect.
        case removeDeviceThenConnect(after: Duration)
        /// Do nothing until the adapter returns (then call ``ReconnectState/adapterReturned(now:using:)``).
        case waitForAdapter
        /// Stop trying and report it; the device needs an operator or its budget is spent.
        case giveUp
        /// The device is connected; nothing to schedule.
        case connected
    }

    public let action: Action
    /// The classification behind this step, if it followed a failure.
    public let classification: ErrorClassification?
    /// Consecutive failures counted against the retry budget so far (`failures`, `FLEET_FAILURES`).
    public let failures: Int
    /// Why, for logs and fleetctl: "le-connection-abort-by-local; retry 3 in 2.4 s".
    public let reason: String
}
