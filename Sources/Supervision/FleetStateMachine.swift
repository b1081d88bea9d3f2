import Identity
import Policy

/// The supervisor's one state machine: a value type whose methods take an event (with `now`) and return
/// the actions the driver must perform. It does no I/O and reads no clock; randomness comes from its own
/// seeded generator, so a test replays any scenario exactly on a manual clock.
///
/// It owns identity folding (through `IdentityResolver`), every Policy decision (admission, eviction,
/// backoff, error classes), the per-adapter `SlotTable`s and the timers' ids. Modelled on
/// async-http-client's connection-pool state machine.
public struct FleetStateMachine: Sendable {
    public struct Settings: Sendable {
        public var policy: PolicyConfiguration
        /// Connection pool per adapter name (`hci0`); others get `defaultCapacity`.
        public var capacity: [String: Int]
        public var defaultCapacity: Int
        /// Adapter names to use; empty means all.
        public var adapters: [String]
        /// How long an evicted device is left alone before it may compete for a slot again.
        public var evictionHoldOff: Duration
        /// Time allowed from link-up to a ready device (services resolved, subscriptions armed).
        public var setUpTimeout: Duration
        /// Time allowed for Device1.Pair (a passkey typed on the device, SMP's own 30 s timer): also the
        /// set-up deadline while a device is pairing.
        public var pairingTimeout: Duration = .seconds(60)
        /// Consecutive authentication failures of a bonded device on reconnect before its bond is taken to
        /// be stale (`StaleBondRule`).
        public var staleBondThreshold = 3

        public init(policy: PolicyConfiguration = PolicyConfiguration(), capacity: [String: Int] = [:], defaultCapacity: Int = 5,
                    adapters: [String] = [], evictionHoldOff: Duration = .seconds(60), setUpTimeout: Duration = .seconds(30)) {
            self.policy = policy
            self.capacity = capacity
            self.defaultCapacity = defaultCapacity
            self.adapters = adapters
            self.evictionHoldOff = evictionHoldOff
            self.setUpTimeout = setUpTimeout
        }
    }

    public internal(set) var settings: Settings
    public internal(set) var devices: [DeviceID: FleetDevice] = [:]
    public internal(set) var adapters: [AdapterID: AdapterSlots] = [:]
    /// The slot tables of adapters that went away (bluetoothd restarted, a dongle unplugged), kept so that the
    /// same controller coming back keeps the capacity learned from it.
    var retiredSlots: [AdapterID: SlotTable] = [:]
    public internal(set) var registry: IdentityRegistry
    public internal(set) var evictions: [EvictionRecord] = []
    /// What the events taken since the driver last saved may have changed in the saved state
    /// (`takeUnsavedChanges()`); a machine just made has saved nothing yet.
    var unsaved = UnsavedChanges.all
    var resolver: IdentityResolver
    /// Device1 path → fleet identity id, for every path that resolved to a wanted device.
    public internal(set) var owners: [DevicePath: DeviceID] = [:]
    /// When each path a reload forgot was last heard (`Sighting.lastHeard`), for its re-report under the new rules:
    /// the driver reports BlueZ's objects again at once, and a copy of the tree says nothing of who still answers.
    var heardBeforeReload: [DevicePath: Duration] = [:]
    var rng: SplitMix64
    var nextGeneration: UInt64 = 0
    /// While BlueZ's whole tree is being read, no connect starts: every existing link must be adopted first,
    /// or a device with several addresses could be connected anew beside the link it already has.
    var reconciling = false
    /// How each configured device pairs (`configurePairing`); a device not listed never pairs.
    public internal(set) var pairing: [DeviceID: DevicePairing] = [:]
    /// Set while the driver applies a batch of events: admission runs once at its end (`resumeAdmission`).
    var admissionDeferred = false

    public init(settings: Settings, rules: [IdentityRule], wanted: [WantedDevice], registry: IdentityRegistry = IdentityRegistry(),
                seed: UInt64) throws(IdentityError) {
        self.settings = settings
        self.registry = registry
        resolver = try IdentityResolver(rules: rules)
        rng = SplitMix64(seed: seed)
        for device in wanted {
            devices[device.id] = FleetDevice(wanted: device, isWanted: true, configured: true, configuration: settings.policy)
        }
    }

    /// Per-adapter state: power, the slot table and what fleetd knows of the adapter.
    public struct AdapterSlots: Sendable {
        public var id: AdapterID
        public var powered: Bool
        public var slots: SlotTable
        /// Consecutive aborted connects at one link count, per device (see `learnsFullPool`).
        var abortStreak: (links: Int, devices: [DeviceID: Int])?
        /// A Connect sent through this adapter before it went off, that BlueZ has not answered yet; its device
        /// has moved on (`connectToken` cleared). The slot table keeps it in flight until the answer comes
        /// (`connectFinished`), so no second Connect is pending on the adapter (soak seed 112, invariant 1).
        var unansweredConnect: (device: DeviceID, token: UInt64)?
        public var name: String { id.name }
    }

    /// One eviction, kept (bounded) for the snapshot and `fleetctl`.
    public struct EvictionRecord: Sendable, Hashable, Codable {
        public var victim: DeviceID
        /// The device admitted in its place, or `operator`.
        public var admitted: String
        public var reason: String
        public var at: Duration

        public init(victim: DeviceID, admitted: String, reason: String, at: Duration) {
            self.victim = victim
            self.admitted = admitted
            self.reason = reason
            self.at = at
        }
    }

    mutating func newTimer(_ device: DeviceID, _ purpose: TimerID.Purpose) -> TimerID {
        nextGeneration += 1
        return TimerID(device: device, purpose: purpose, generation: nextGeneration)
    }

    mutating func newToken() -> UInt64 {
        nextGeneration += 1
        return nextGeneration
    }

    /// Replaces a device's timer: the old one (if any) is cancelled, so its fire is stale.
    mutating func setTimer(_ device: inout FleetDevice, _ purpose: TimerID.Purpose, after delay: Duration, into actions: inout [FleetAction]) {
        if let old = device.timer { actions.append(.cancel(old)) }
        let timer = newTimer(device.id, purpose)
        device.timer = timer
        actions.append(.schedule(timer, after: delay))
    }

    mutating func clearTimer(_ device: inout FleetDevice, into actions: inout [FleetAction]) {
        if let old = device.timer { actions.append(.cancel(old)) }
        device.timer = nil
    }

    /// Whether the adapter is one fleetd is configured to use.
    func uses(_ adapter: AdapterID) -> Bool {
        settings.adapters.isEmpty || settings.adapters.contains(adapter.name)
    }

    // MARK: Counts

    public struct Counts: Sendable, Hashable {
        public var wanted = 0, ready = 0, backingOff = 0, failed = 0, connecting = 0, waiting = 0

        /// Counts one wanted device in `phase`.
        mutating func add(_ phase: DevicePhase) {
            wanted += 1
            switch phase {
            case .ready: ready += 1
            case .backoff: backingOff += 1
            case .failed, .needsPairing: failed += 1
            case .connecting, .connected, .resolving, .pairing: connecting += 1
            case .waitingForAdapter: waiting += 1
            default: break
            }
        }
    }

    public var counts: Counts {
        var c = Counts()
        for device in devices.values where device.isWanted { c.add(device.phase) }
        return c
    }

    /// `counts`, reading each device in place: the driver publishes the counts for `Status` after every batch of
    /// events, and `counts` copies every device (about a kilobyte) out of the table to read two fields.
    /// Mutating only so that the table is read through `_modify` (see `refreshSightingInPlace`).
    public mutating func countInPlace() -> Counts {
        var c = Counts()
        // Not `for index in devices.values.indices`: those indices hold the table, which is then shared, so the
        // first in-place access copies all of it (a megabyte for 1 000 devices, half a millisecond per batch).
        var index = devices.values.startIndex
        while index != devices.values.endIndex {
            devices.values[index].count(into: &c)
            devices.values.formIndex(after: &index)
        }
        return c
    }
}
