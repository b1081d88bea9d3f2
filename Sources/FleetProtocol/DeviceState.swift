/// Where a device is in its life, named the same by the daemon (which maps its supervisor phase to it)
/// and by every client (fleetctl colours by it). The raw values are the wire spelling, declared as the
/// `DeviceState` enum of `io.fleetd.Fleet`.
public enum DeviceState: String, Sendable, Codable, CaseIterable {
    /// Wanted but not seen on any adapter yet.
    case unknown
    /// Seen and eligible: waiting for its adapter's turn or a slot.
    case discovered
    case connecting
    /// Linked; waiting for BlueZ to resolve services.
    case connected
    /// Services resolved; subscriptions and reads on connect are being set up.
    case resolving
    case ready
    /// A connect failed or the link dropped; the next attempt waits for the backoff delay.
    case backingOff
    /// Disconnected to free a slot; not reconnected before its hold-off ends.
    case evicted
    case disconnecting
    /// Its adapter is off: paused, no attempt counted.
    case waitingForAdapter
    /// Not wanted (operator Disconnect); kept for its history.
    case idle
    /// Given up on: a permanent error or the retry budget spent. `fleetctl connect` starts over.
    case failed
    /// Linked and pairing (before set-up, or to retry a GATT call refused for lack of security).
    case pairing
    /// Stopped until an operator pairs it (`fleetctl pair`): a wrong passkey, or a stale bond under
    /// `re-pair = manual`.
    case needsPairing
}

/// What the daemon as a whole is doing, as `Status` reports it.
public enum DaemonState: String, Sendable, Codable, CaseIterable {
    /// Restoring the snapshot and reading BlueZ's object tree.
    case starting
    case running
    /// Running, but something it depends on is missing.
    case degraded
    case stopping
}
