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
            let capacity = max(1, settings.capacity[id.name] ?? settings.defaultCapacity)
            // Capacity is validated (≥ 1) at configuration time, so this cannot fail here.
            guard let table = try? SlotTable(adapter: id.name, capacity: capacity, configuration: settings.policy) else { return [] }
            adapters[id] = AdapterSlots(id: id, powered: false, slots: table)
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
            actions.append(.log(LifecycleEvent(.adapterOn, "adapter \(id) is powered; resuming", adapter: id)))
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
            _ = adapter.slots.adapterReset()
            adapters[id] = adapter
            actions.append(.log(LifecycleEvent(.adapterOff, "adapter \(id) is off; pausing its devices (no attempt burnt)",
                                               adapter: id, warning: true)))
            for deviceID in devices.keys.sorted() {
                guard var device = devices[deviceID], device.isWanted else { continue }
                let onThisAdapter = device.adapter == id || device.sightings.values.contains(where: { $0.adapter == id })
                guard onThisAdapter else { continue }
                switch device.phase {
                case .failed, .idle, .evicted: continue
                default: break
                }
                if let saved = device.beforeLastFailure, now - saved.at <= Self.adapterOffGrace {
                    device.reconnect = saved.state
                }
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

    mutating func adapterRemoved(_ id: AdapterID, now: Duration) -> [FleetAction] {
        var actions = adapterPowered(id, false, now: now)
        adapters.removeValue(forKey: id)
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
