import Policy

/// Adapters appearing, powering off and on, and going away. An adapter that is off pauses its devices
/// without burning attempts; its return reconnects them spread over the policy's recovery window.
extension FleetStateMachine {
    /// Failures this close before an adapter-off report are blamed on the adapter, not the device.
    static let adapterOffGrace: Duration = .seconds(2)

    public mutating func adapterAppeared(path: String, powered: Bool, now: Duration) -> [FleetAction] {
        guard uses(adapterPath: path) else { return [] }
        var actions: [FleetAction] = []
        if adapters[path] == nil {
            let name = String(path.split(separator: "/").last ?? "")
            let capacity = max(1, settings.capacity[name] ?? settings.defaultCapacity)
            // Capacity is validated (≥ 1) at configuration time, so this cannot fail here.
            guard let table = try? SlotTable(adapter: name, capacity: capacity, configuration: settings.policy) else { return [] }
            adapters[path] = AdapterSlots(path: path, powered: false, slots: table)
        }
        if powered { actions += adapterPowered(path: path, true, now: now) }
        return actions
    }

    public mutating func adapterPowered(path: String, _ powered: Bool, now: Duration) -> [FleetAction] {
        guard var adapter = adapters[path], adapter.powered != powered else { return [] }
        adapter.powered = powered
        var actions: [FleetAction] = []
        if powered {
            adapters[path] = adapter
            actions.append(.log(LifecycleEvent(.adapterOn, "adapter \(adapter.name) is powered; resuming", adapter: adapter.name)))
            actions.append(.startDiscovery(adapter: path))
            for id in devices.keys.sorted() {
                guard var device = devices[id], device.phase == .waitingForAdapter,
                      device.sightings.values.contains(where: { $0.adapter == path }) || device.sightings.isEmpty else { continue }
                if let step = device.reconnect.adapterReturned(now: now, using: &rng) {
                    apply(step, to: &device, now: now, into: &actions)
                } else {
                    device.phase = .discovered
                }
                devices[id] = device
            }
        } else {
            _ = adapter.slots.adapterReset()
            adapters[path] = adapter
            actions.append(.log(LifecycleEvent(.adapterOff, "adapter \(adapter.name) is off; pausing its devices (no attempt burnt)",
                                               adapter: adapter.name, warning: true)))
            for id in devices.keys.sorted() {
                guard var device = devices[id], device.isWanted else { continue }
                let onThisAdapter = device.adapter.map { "/org/bluez/" + $0 == path || $0 == path } ?? false
                    || device.sightings.values.contains(where: { $0.adapter == path })
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
                devices[id] = device
            }
        }
        actions += pump(now: now)
        return actions
    }

    public mutating func adapterRemoved(path: String, now: Duration) -> [FleetAction] {
        var actions = adapterPowered(path: path, false, now: now)
        adapters.removeValue(forKey: path)
        for id in devices.keys {
            guard var device = devices[id] else { continue }
            device.sightings = device.sightings.filter { $0.value.adapter != path }
            devices[id] = device
        }
        owners = owners.filter { !$0.key.hasPrefix(path + "/") }
        actions += pump(now: now)
        return actions
    }
}
