import Policy

/// Every MESSAGE_ID fleetd emits, in one place. Each has an entry in deploy/fleetd.catalog (a unit test
/// checks both directions).
public enum FleetMessageID: String, Sendable, CaseIterable {
    case discovered = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60701"
    case identityMerged = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60702"
    case connectAttempt = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60703"
    case connected = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60704"
    case ready = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60705"
    case disconnected = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60706"
    case backoffScheduled = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60707"
    case evicted = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60708"
    case gaveUp = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60709"
    case adapterOff = "3b5a1f0e7c2d4e8fa1b2c3d4e5f6070a"
    case adapterOn = "3b5a1f0e7c2d4e8fa1b2c3d4e5f6070b"
    case snapshotWritten = "3b5a1f0e7c2d4e8fa1b2c3d4e5f6070c"
    case snapshotRestored = "3b5a1f0e7c2d4e8fa1b2c3d4e5f6070d"
    case snapshotRejected = "3b5a1f0e7c2d4e8fa1b2c3d4e5f6070e"
    case twinDropped = "3b5a1f0e7c2d4e8fa1b2c3d4e5f6070f"
    case setUpFailed = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60710"
    case staleStateCleared = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60711"
    case capacityLowered = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60712"
    case started = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60713"
    case stopping = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60714"
    case configRejected = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60715"
    case malformedReply = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60716"
    case brokerLost = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60717"
    case brokerBack = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60718"
    case brokerReadingsDropped = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60719"
    case waitingForBlueZ = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60740"
    case busLost = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60741"
    case pairingStarted = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60720"
    case paired = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60721"
    case pairingFailed = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60722"
    case needsPairing = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60723"
    case staleBond = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60724"
    case bondRemoved = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60725"
    case agentRefused = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60726"
    /// The SQLite store (state and outbox) was corrupt, foreign or from a newer fleetd: moved aside, started empty.
    case storeMovedAside = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60750"
    /// A JSON state snapshot of an older fleetd was imported into the store (once) and renamed aside.
    case snapshotImported = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60751"
    /// Writing the fleet's state to the store failed (a full disk, an I/O error); retried.
    case stateWriteFailed = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60752"
    /// The outbox cannot be opened (not an unusable file: permissions, a full disk): start-up waits, retrying.
    case outboxUnavailable = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60753"
    /// The outbox's writer met a fault retrying cannot cure (corruption, I/O errors): fleetd exits to restart.
    case outboxFailed = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60754"
    /// The outbox started a new epoch: consumers start a new per-device seq count.
    case outboxEpochChanged = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60755"
    /// A wanted device whose identity comes from advertised bytes pairs for the first time: logged loudly.
    case spoofableFirstPairing = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60756"
    /// A glucose meter's or CGM's RACP sync began on a new link (docs/records.md).
    case recordSyncStarted = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60757"
    /// An RACP sync ended: how, what it received, where the mark is; a sequence reset or a failure is a warning.
    case recordSyncEnded = "3b5a1f0e7c2d4e8fa1b2c3d4e5f60758"
}

/// One lifecycle event: what happened, to which device, and why — logged to journald with `FLEET_*`
/// fields and streamed to `fleetctl watch`.
public struct LifecycleEvent: Sendable, Hashable {
    public var id: FleetMessageID
    public var message: String
    public var device: DeviceID?
    public var address: String?
    public var adapter: AdapterID?
    public var reason: String?
    /// `attempt` (FLEET_ATTEMPT): the connect attempt of the current cycle, 1 for the first since the device was
    /// last ready. Set on connecting and connected events.
    public var attempt: Int?
    /// `failures` (FLEET_FAILURES): consecutive failures counted against the class's retry budget. Set on
    /// backoff and gave-up events. A different count from `attempt`: a session that reached ready and ended is
    /// one more attempt, never a failure.
    public var failures: Int?
    public var delay: Duration?
    public var warning: Bool

    public init(_ id: FleetMessageID, _ message: String, device: DeviceID? = nil, address: String? = nil, adapter: AdapterID? = nil,
                reason: String? = nil, attempt: Int? = nil, failures: Int? = nil, delay: Duration? = nil, warning: Bool = false) {
        self.id = id
        self.message = message
        self.device = device
        self.address = address
        self.adapter = adapter
        self.reason = reason
        self.attempt = attempt
        self.failures = failures
        self.delay = delay
        self.warning = warning
    }

    /// Journald metadata: FLEET_DEVICE, FLEET_ADDRESS, FLEET_ADAPTER, FLEET_REASON, FLEET_ATTEMPT, FLEET_FAILURES,
    /// FLEET_DELAY_MS.
    public var metadata: [String: String] {
        var out: [String: String] = [:]
        if let device { out["device"] = device.rawValue }
        if let address { out["address"] = address }
        if let adapter { out["adapter"] = adapter.name }
        if let reason { out["reason"] = reason }
        if let attempt { out["attempt"] = String(attempt) }
        if let failures { out["failures"] = String(failures) }
        if let delay { out["delay_ms"] = String(delay.milliseconds) }
        return out
    }
}
