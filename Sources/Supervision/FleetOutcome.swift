import Policy

/// A fact the machine reports for the fleet's counters and the event feed, typed, apart from the sentence
/// that tells a person (`LifecycleEvent`): the driver counts and streams these, it never reads log lines.
public enum FleetOutcome: Sendable, Hashable {
    /// BlueZ failed a connect; `errorClass` is Policy's error class code (e.g. `transient`).
    case connectFailed(DeviceID, errorClass: String)
    /// A device was evicted; `reason` is the admission reason code (e.g. `evict-lower-class`).
    case evicted(DeviceID, reason: String)
    /// A lost link is up again, `after` it went down.
    case reconnected(DeviceID, after: Duration)
}
