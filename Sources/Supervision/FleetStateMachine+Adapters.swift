import Policy

/// Adapters appearing, powering off and on, and going away. An adapter that is off pauses its devices
/// without burning attempts; its return reconnects them spread over the policy's recovery window.
extension FleetStateMachine {
    /// Failures this close before an adapter-off report are blamed on the adapter, not the device.
    static let adapterOffGrace: Duration = .seconds(2)

    mutating func adapterAppeared(_ id: AdapterID, powered: Bool, now: Duration) -> [FleetAction] {
        guard uses(id) else { return [] }
        var actions: [FleetAction] = []
        if adapters[id] == nil {
            if let retired = retiredSlots.removeValue(forKey: id) {
                // The same controller back (bluetoothd restarted): its learned capacity still holds.
                adapters[id] = AdapterSlots(id: id, powered: false, slots: retired)
            } else {
                let capacity = max(1, settings.capacity[id.name] ?? settings.defaultCapacity)
                // Capacity is validated (≥ 1) at configuration time, so this cannot fail here.
                guard let table = try? SlotTable(adapter: id.name, capacity: capacity, configuration: settings.policy) else { return [] }
                adapters[id] = AdapterSlots(id: id, powered: false, slots: table)
            }
        }
        if powered { actions += adapterPowered(id, true, now: now) }
        return actions
    }

    mutating func adapterPowered(_ id: AdapterID, _ powered: Bool, now: Duration) -> [FleetAction] {
        guard var adapter = adapters[id], adapter.powered != powered else { return [] }
        adapter.powered = powered
        var actions: [FleetAction] = []
        if powered {
            adapters[id] = adapter
            actions.append(.event(LifecycleEvent(.adapterOn, "adapter \(id) is powered; resuming", adapter: id)))
            actions.append(.startDiscovery(adapter: id))
            for deviceID in devices.keys.sorted() {
                guard var device = devices[deviceID], device.phase == .waitingForAdapter,
                      device.sightings.values.contains(where: { $0.adapter == id }) || device.sightings.isEmpty else { continue }
                if let step = device.reconnect.adapterReturned(now: now, using: &rng) {
                    apply(step, to: &device, now: now, into: &actions)
                } else {
                    device.phase = .discovered
                }
                devices[deviceID] = device
            }
        } else {
            // A fleet that lags behind BlueZ may hear the adapter go off after it sent a Connect that BlueZ took
            // once the adapter was back: that Connect is still pending, and answered later.
            let pending = adapter.slots.connectInFlight.map { DeviceID($0.device) }.flatMap { deviceID in
                devices[deviceID].flatMap { device in
                    device.linkPath?.adapter == id ? device.connectToken.map { (device: deviceID, token: $0) } : nil
                }
            }
            _ = adapter.slots.adapterReset(keepingPendingConnect: pending != nil)
            adapter.unansweredConnect = pending
            adapters[id] = adapter
            actions.append(.event(LifecycleEvent(.adapterOff, "adapter \(id) is off; pausing its devices (no attempt burnt)",
                                                 adapter: id, warning: true)))
            for deviceID in devices.keys.sorted() {
                guard var device = devices[deviceID], device.isWanted else { continue }
                // Only a link or a connect on this adapter is interrupted, and a failure it caused a moment ago
                // (its links are reported down just before the adapter). A device merely seen here keeps its link
                // on another adapter: touching it would leave a ghost slot there and a second link for its identity.
                // A device with no link anywhere that only off adapters see is paused too: it has nowhere to go,
                // and its return is spread over the recovery window with the others.
                let linkedHere = device.adapter == id
                let failedHere = device.beforeLastFailure.map { $0.adapter == id && now - $0.at <= Self.adapterOffGrace } ?? false
                let strandedHere = device.linkPath == nil && device.sightings.values.contains { $0.adapter == id }
                    && !device.sightings.values.contains { adapters[$0.adapter]?.powered == true }
                if failedHere, !linkedHere, device.linkPath != nil, let saved = device.beforeLastFailure {
                    // It failed here a moment ago and is linked (or connecting) elsewhere by now: only the count
                    // is taken back; its link is left alone.
                    device.reconnect.restore(failures: min(saved.state.failures, device.reconnect.failures), hasGivenUp: false)
                    device.beforeLastFailure = nil
                    devices[deviceID] = device
                    continue
                }
                guard linkedHere || failedHere || strandedHere else { continue }
                switch device.phase {
                case .idle, .evicted: continue
                case .failed where !failedHere: continue
                default: break
                }
                if failedHere, let saved = device.beforeLastFailure { device.reconnect = saved.state }
                device.beforeLastFailure = nil
                let step = device.reconnect.connectFailed(.local(.adapterPoweredOff), now: now, using: &rng)
                clearTimer(&device, into: &actions)
                device.connectToken = nil
                device.linkUpAt = nil
                device.linkPath = nil
                apply(step, to: &device, now: now, into: &actions)
                devices[deviceID] = device
            }
        }
        actions += pump(now: now)
        return actions
    }

    /// Remembers the reconnect state before a failure on `adapter`, for `adapterPowered(_:false:)` to take back.
    /// A run of failures on one adapter within the grace keeps the state before the first of them: a fleet that
    /// lags behind BlueZ may try an adapter that is already off more than once before it hears so.
    func noteFailure(_ device: inout FleetDevice, on adapter: AdapterID?, now: Duration) {
        if let saved = device.beforeLastFailure, saved.adapter == adapter, now - saved.at <= Self.adapterOffGrace {
            device.beforeLastFailure = (saved.state, now, adapter)
        } else {
            device.beforeLastFailure = (device.reconnect, now, adapter)
        }
    }

    mutating func adapterRemoved(_ id: AdapterID, now: Duration) -> [FleetAction] {
        var actions = adapterPowered(id, false, now: now)
        if var gone = adapters.removeValue(forKey: id) {
            // The adapter is gone, and its pending Connect with it: a table kept for its return holds none.
            if gone.unansweredConnect != nil { gone.slots.adapterReset() }
            retiredSlots[id] = gone.slots
        }
        for deviceID in devices.keys {
            guard var device = devices[deviceID] else { continue }
            device.sightings = device.sightings.filter { $0.value.adapter != id }
            devices[deviceID] = device
        }
        owners = owners.filter { $0.key.adapter != id }
        actions += pump(now: now)
        return actions
    }
}
