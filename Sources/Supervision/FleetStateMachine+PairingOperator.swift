import Pairing
import Policy

/// `fleetctl pair` and `fleetctl unpair`.
extension FleetStateMachine {
    /// Why the machine refused `pair` or `unpair`; nothing changed.
    public enum PairingRefusal: Error, Sendable, Hashable, CustomStringConvertible {
        case unknownDevice(DeviceID)
        /// The device is configured `pairing = none` (or not configured): fleetd's agent would refuse it.
        case pairingNotConfigured(DeviceID)
        /// No adapter holds a bond for the device.
        case notBonded(DeviceID)
        /// A pairing is already under way.
        case alreadyPairing(DeviceID)

        public var description: String {
            switch self {
            case .unknownDevice(let id): "no device \(id)"
            case .pairingNotConfigured(let id): "\(id) has no pairing configured; set `pairing = just-works` or `passkey` in its [device] section"
            case .notBonded(let id): "\(id) is not bonded on any adapter"
            case .alreadyPairing(let id): "\(id) is pairing already"
            }
        }
    }

    /// Pair the device: now over its link, or on its next link (it becomes wanted and competes for a slot).
    /// Ends a needs-pairing stop.
    public mutating func operatorPair(_ id: DeviceID, now: Duration) throws(PairingRefusal) -> OperatorOutcome {
        unsaved.insert(device: id)
        guard var device = devices[id] else { throw .unknownDevice(id) }
        guard pairingPolicy(of: id).pairs else { throw .pairingNotConfigured(id) }
        guard device.phase != .pairing else { throw .alreadyPairing(id) }
        var actions: [FleetAction] = []
        device.bond.staleBond = StaleBondRule(threshold: settings.staleBondThreshold)
        if let path = device.linkPath, device.sightings[path]?.connected == true,
           device.phase == .connected || device.phase == .resolving || device.phase == .ready {
            device.connectToken = nil
            actions += startPairing(&device, path: path, why: "operator request", retrySetUp: false, now: now)
            devices[id] = device
            return OperatorOutcome(actions: actions, message: "pairing \(id) via \(path.adapter); set-up follows", eviction: nil)
        }
        // A fresh bond: keys the device no longer accepts (a stale bond) would fail the next link before any
        // pairing could start, so they go first.
        let removed = unpairActions(device, reason: "operator-pair")
        if !removed.isEmpty {
            device.bond.adapter = nil
            for key in device.sightings.keys { device.sightings[key]?.bonded = false }
        }
        device.bond.pairOnNextLink = true
        devices[id] = device
        let connect = operatorConnect(id, now: now)
        return OperatorOutcome(actions: removed + connect.actions, message: "\(id) pairs on its next link: \(connect.message)", eviction: connect.eviction)
    }

    /// Remove the device's bond (Adapter1.RemoveDevice of its bonded objects). It stays wanted: a device with
    /// `pairing = … required` pairs again on its next link.
    public mutating func operatorUnpair(_ id: DeviceID, now: Duration) throws(PairingRefusal) -> OperatorOutcome {
        unsaved.insert(device: id)
        guard var device = devices[id] else { throw .unknownDevice(id) }
        let actions = unpairActions(device, reason: "operator")
        guard !actions.isEmpty || device.bond.adapter != nil else { throw .notBonded(id) }
        let was = device.bond.adapter
        device.bond.adapter = nil
        device.bond.pairOnNextLink = false
        if case .needsPairing = device.phase {
            // Nothing to wait for now: the bond that failed is gone.
            device.phase = device.sightings.isEmpty ? .unknown : .discovered
        }
        devices[id] = device
        let message = actions.isEmpty ? "forgot the bond of \(id) on \(was?.name ?? "?") (BlueZ has no object for it now)"
            : "removed the bond of \(id) on \(was?.name ?? "its adapter")"
        return OperatorOutcome(actions: actions + [.persist] + pump(now: now), message: message, eviction: nil)
    }
}
