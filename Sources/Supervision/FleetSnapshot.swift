import Identity
import Policy

/// What fleetd persists: the desired state (which devices, which subscriptions, their policy class), the
/// identity registry (ids, names, last addresses), backoff progress and recent evictions. Times are the
/// machine's `now`: the driver counts it monotonically from the wall-clock time at start, so they keep their
/// meaning across restarts.
public struct FleetSnapshot: Codable, Sendable, Equatable {
    /// Bumped on any incompatible change; a newer file is refused, never misread.
    public static let currentSchemaVersion = 1

    public struct Device: Codable, Sendable, Equatable {
        public var wanted: WantedDevice
        public var isWanted: Bool
        public var lastAddresses: [String]
        public var failures: Int
        public var gaveUp: Bool
        public var lastReason: String?
        /// Whether the device came from fleetd.conf (true) or from `fleetctl connect` (false); nil in snapshots
        /// written before fleetd recorded it.
        public var configured: Bool?
        /// The adapter holding the device's bond (nil: none known). Absent in files before pairing.
        public var bondAdapter: String?
        /// Why it waits for `fleetctl pair`, when it does.
        public var needsPairing: String?

        public init(wanted: WantedDevice, isWanted: Bool, configured: Bool? = nil, lastAddresses: [String], failures: Int, gaveUp: Bool,
                    lastReason: String?, bondAdapter: String? = nil, needsPairing: String? = nil) {
            self.bondAdapter = bondAdapter
            self.needsPairing = needsPairing
            self.wanted = wanted
            self.isWanted = isWanted
            self.configured = configured
            self.lastAddresses = lastAddresses
            self.failures = failures
            self.gaveUp = gaveUp
            self.lastReason = lastReason
        }
    }

    public var schemaVersion: Int
    public var devices: [Device]
    public var registry: IdentityRegistry
    public var evictions: [FleetStateMachine.EvictionRecord]

    public init(schemaVersion: Int = FleetSnapshot.currentSchemaVersion, devices: [Device], registry: IdentityRegistry,
                evictions: [FleetStateMachine.EvictionRecord]) {
        self.schemaVersion = schemaVersion
        self.devices = devices
        self.registry = registry
        self.evictions = evictions
    }
}

extension FleetStateMachine {
    /// The snapshot of the current state.
    public var snapshot: FleetSnapshot {
        // The ids are sorted, not the devices: a FleetDevice is a kilobyte, and sorting 10 000 of them moved
        // megabytes.
        FleetSnapshot(devices: devices.keys.sorted().compactMap { devices[$0]?.saved }, registry: registry, evictions: evictions)
    }

    /// Takes back the desired state of a previous run; the configuration (already in the machine) wins:
    /// - a device the configuration lists keeps its configured class and subscriptions, and takes back its
    ///   failures, whether it gave up, and whether the operator released it (`fleetctl disconnect`);
    /// - a device that came from the configuration and is no longer listed is dropped: it does not come back;
    /// - a device added with `fleetctl connect` comes back as it was, until `fleetctl forget`.
    /// The registry is merged.
    public mutating func restore(_ snapshot: FleetSnapshot) {
        // The configuration may differ from what was saved, and rows may have been skipped: all of it is compared.
        unsaved.insertEverything()
        registry.merge(snapshot.registry)
        evictions = snapshot.evictions
        for saved in snapshot.devices {
            if devices[saved.wanted.id] == nil, saved.cameFromConfiguration { continue }
            var device = devices[saved.wanted.id]
                ?? FleetDevice(wanted: saved.wanted, isWanted: saved.isWanted, configured: false, configuration: settings.policy)
            device.isWanted = saved.isWanted
            device.lastReason = saved.lastReason
            device.reconnect.restore(failures: saved.failures, hasGivenUp: saved.gaveUp)
            if let bond = saved.bondAdapter { device.bond.adapter = AdapterID(name: bond) }
            if !saved.isWanted {
                device.phase = .idle
            } else if let reason = saved.needsPairing {
                device.phase = .needsPairing(reason: reason)
            } else if saved.gaveUp && device.policyClass != .critical {
                // It gave up before the restart; only the operator's Connect brings it back.
                device.phase = .failed(reason: saved.lastReason ?? "gave up before the restart")
            }
            devices[saved.wanted.id] = device
        }
    }
}

extension FleetSnapshot.Device {
    /// Whether the device was in the configuration when the snapshot was written. Snapshots from before fleetd
    /// recorded it tell by the entry: `fleetctl connect` adds a bare id (no name, no subscriptions, no reads).
    var cameFromConfiguration: Bool {
        configured ?? (wanted.name != nil || !wanted.subscribe.isEmpty || !wanted.readOnConnect.isEmpty)
    }
}

extension FleetDevice {
    /// What the snapshot keeps of the device: one entry of `FleetStateMachine.snapshot`, on its own for a save of
    /// the devices that changed.
    public var saved: FleetSnapshot.Device {
        var failed = false
        if case .failed = phase { failed = true }
        var needsPairing: String?
        if case .needsPairing(let reason) = phase { needsPairing = reason }
        return FleetSnapshot.Device(wanted: wanted, isWanted: isWanted, configured: configured,
                                    lastAddresses: Array(Set(sightings.values.map(\.address))).sorted(),
                                    failures: reconnect.failures, gaveUp: failed, lastReason: lastReason,
                                    bondAdapter: bond.adapter?.name, needsPairing: needsPairing)
    }
}
