import Policy

/// What the operator asks through fleetctl. Each returns the actions plus a sentence saying what was done.
extension FleetStateMachine {
    /// An outcome for the operator, with any eviction it caused.
    public struct OperatorOutcome: Sendable {
        public var actions: [FleetAction]
        public var message: String
        /// The eviction this request caused: who lost a slot, and the sentence saying so.
        public var eviction: EvictionRecord?
    }

    /// Why the machine refused an operator's command; nothing changed.
    public enum OperatorRefusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// No device with this identity id is known.
        case unknownDevice(DeviceID)
        /// Only a device with a link (or a connect in flight) can be evicted: there is no slot to free.
        case notLinked(DeviceID)

        public var description: String {
            switch self {
            case .unknownDevice(let id): "no device \(id)"
            case .notLinked(let id): "\(id) has no link to evict"
            }
        }
    }

    /// Want the device now: it competes for a slot at once (and may evict, which the outcome says).
    public mutating func operatorConnect(_ id: DeviceID, now: Duration) -> OperatorOutcome {
        unsaved.insert(device: id)
        var actions: [FleetAction] = []
        if devices[id] == nil {
            devices[id] = FleetDevice(wanted: WantedDevice(id: id), isWanted: true, configured: false, configuration: settings.policy)
        }
        guard var device = devices[id] else { return OperatorOutcome(actions: [], message: "unknown device", eviction: nil) }
        // Wanting a device that was not wanted makes it the operator's: it stays (across restarts) until forgotten,
        // even if the configuration no longer lists it.
        if !device.isWanted { device.configured = false }
        device.isWanted = true
        if device.phase.hasLink || device.phase == .connecting {
            return OperatorOutcome(actions: [], message: "\(id) is already \(device.phase)", eviction: nil)
        }
        clearTimer(&device, into: &actions)
        device.reconnect = ReconnectState(policyClass: device.policyClass, configuration: settings.policy)
        device.attempt = 0
        device.phase = device.sightings.isEmpty ? .unknown : .discovered
        devices[id] = device
        // The log is capped, so its length cannot tell whether an eviction was added; its last entry can.
        let lastBefore = evictions.last
        actions += pump(now: now)
        actions.append(.persist)
        let eviction = evictions.last != lastBefore ? evictions.last : nil
        let phase = devices[id]?.phase ?? .unknown
        let message = phase == .connecting ? "connecting \(id)" :
            (phase == .unknown ? "\(id) is wanted; it will connect when it is seen" : "\(id) is wanted and waiting for a slot")
        return OperatorOutcome(actions: actions, message: message, eviction: eviction)
    }

    /// Drop the link and stop wanting the device until the next Connect.
    public mutating func operatorDisconnect(_ id: DeviceID, now: Duration) throws(OperatorRefusal) -> OperatorOutcome {
        unsaved.insert(device: id)
        guard var device = devices[id] else { throw .unknownDevice(id) }
        var actions: [FleetAction] = []
        device.isWanted = false
        clearTimer(&device, into: &actions)
        if let path = device.linkPath {
            actions.append(.disconnect(device: id, path: path))
            _ = adapters[path.adapter]?.slots.linkDown(device: id.rawValue)
            adapters[path.adapter]?.slots.connectFinished(device: id.rawValue)
        }
        device.linkPath = nil
        device.connectToken = nil
        device.phase = .idle
        devices[id] = device
        actions.append(.persist)
        return OperatorOutcome(actions: actions + pump(now: now), message: "disconnected \(id); it stays down until `fleetctl connect`", eviction: nil)
    }

    /// Free the slot now but keep wanting the device after a hold-off.
    public mutating func operatorEvict(_ id: DeviceID, now: Duration) throws(OperatorRefusal) -> OperatorOutcome {
        unsaved.insert(device: id)
        guard let device = devices[id] else { throw .unknownDevice(id) }
        guard device.phase.hasLink || device.phase == .connecting else { throw .notLinked(id) }
        let reason = AdmissionReason(.evictLowerClass, "evicted \(id) by operator request; it may reconnect after \(settings.evictionHoldOff)")
        let actions = evict(victim: id, admitting: nil, reason: reason, now: now)
        return OperatorOutcome(actions: actions + pump(now: now), message: reason.message, eviction: evictions.last)
    }

    /// Stop tracking the device entirely: disconnect, drop it from the registry and the snapshot.
    public mutating func operatorForget(_ id: DeviceID, now: Duration) throws(OperatorRefusal) -> OperatorOutcome {
        unsaved.insert(device: id)
        unsaved.insert(identity: id.rawValue)
        guard let device = devices.removeValue(forKey: id) else { throw .unknownDevice(id) }
        var actions: [FleetAction] = []
        if let timer = device.timer { actions.append(.cancel(timer)) }
        // A forgotten device keeps no keys on the gateway.
        actions += unpairActions(device, reason: "forget")
        if let path = device.linkPath {
            actions.append(.disconnect(device: id, path: path))
            _ = adapters[path.adapter]?.slots.linkDown(device: id.rawValue)
            adapters[path.adapter]?.slots.connectFinished(device: id.rawValue)
        }
        owners = owners.filter { $0.value != id }
        registry.remove(stableID: id.rawValue)
        actions.append(.persist)
        return OperatorOutcome(actions: actions + pump(now: now), message: "forgot \(id)", eviction: nil)
    }

    public mutating func operatorSetPolicy(_ id: DeviceID, _ policyClass: PolicyClass, now: Duration) throws(OperatorRefusal) -> OperatorOutcome {
        unsaved.insert(device: id)
        guard var device = devices[id] else { throw .unknownDevice(id) }
        changeClass(of: &device, to: policyClass, now: now)
        device.wanted.policyClass = policyClass
        devices[id] = device
        return OperatorOutcome(actions: [.persist] + pump(now: now), message: "\(id) is now \(policyClass)", eviction: nil)
    }

    /// A new class takes effect at once: the reconnect budget is the new class's, and a link (or the connect in
    /// flight) is held in its adapter's slot table under the new class, so a device promoted to critical is
    /// never evicted as normal. A ready link stays a healthy session.
    mutating func changeClass(of device: inout FleetDevice, to policyClass: PolicyClass, now: Duration) {
        device.reconnect = ReconnectState(policyClass: policyClass, configuration: settings.policy)
        if device.phase == .ready { device.reconnect.ready(now: now) }
        if let adapter = device.adapter {
            adapters[adapter]?.slots.reclassify(device: device.id.rawValue, as: policyClass)
        }
    }
}
