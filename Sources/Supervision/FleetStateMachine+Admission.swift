import Policy

/// Choosing the next connect: at most one in flight per adapter, admission (free slot, wait or evict)
/// decided by each adapter's `SlotTable`, adapters chosen by free slot then RSSI.
extension FleetStateMachine {
    /// Starts every connect that may start now.
    mutating func pump(now: Duration) -> [FleetAction] {
        guard !reconciling, !admissionDeferred else { return [] }
        // One pass over the fleet: who may connect, and which adapters wait for an eviction's disconnect.
        // This runs after every event, so in the steady state (nobody waiting) it must cost one scan only.
        var waiting: [FleetDevice] = []
        var busy = Set<AdapterID>()
        // Devices admitted by an eviction whose disconnect is under way wait for that disconnect, instead of
        // evicting a second victim elsewhere; once the link is down they compete for the freed slot as usual.
        var makingRoom = Set<DeviceID>()
        // Fields are read in place through the index: `for device in devices.values` copied every (1 KiB)
        // FleetDevice out of the table, a megabyte moved per event for 1 000 devices (issue 18's profile).
        for index in devices.values.indices {
            switch devices.values[index].phase {
            case .discovered:
                if devices.values[index].isWanted && !devices.values[index].sightings.isEmpty { waiting.append(devices.values[index]) }
            case .evicted:
                if let path = devices.values[index].linkPath, devices.values[index].sightings[path] != nil {
                    busy.insert(path.adapter)
                    if let admitted = devices.values[index].evictedFor { makingRoom.insert(admitted) }
                }
            default:
                break
            }
        }
        guard !waiting.isEmpty else { return [] }
        // Adapters that could start a connect now; when there are none (the common case while a fleet comes
        // up), the waiting devices need not even be sorted.
        var open = Set(adapters.filter { $0.value.powered && $0.value.slots.connectInFlight == nil && !busy.contains($0.key) }.keys)
        guard !open.isEmpty else { return [] }
        var actions: [FleetAction] = []
        // Highest class first, then the one that has waited longest, so critical devices are admitted first.
        let candidates = waiting
            .sorted { ($0.policyClass, -($0.lastSeen ?? .zero).milliseconds, $0.id) > ($1.policyClass, -($1.lastSeen ?? .zero).milliseconds, $1.id) }
        for candidate in candidates {
            guard !open.isEmpty else { break }
            guard !makingRoom.contains(candidate.id) else { continue }
            guard let path = chooseAdapter(for: candidate, excluding: busy) else { continue }
            let adapterID = path.adapter
            guard var adapter = adapters[adapterID] else { continue }
            let decision = adapter.slots.admit(device: candidate.id.rawValue, policyClass: candidate.policyClass, now: now)
            switch decision {
            case .wait(let reason):
                if reason.code == .connectInFlight { busy.insert(adapterID); open.remove(adapterID) }
                if let at = reason.retryAt, at > now, var waiting = devices[candidate.id], waiting.timer == nil {
                    // Nothing else may happen when the hold ends: a timer re-runs admission then.
                    setTimer(&waiting, .admission, after: at - now, into: &actions)
                    devices[candidate.id] = waiting
                }
                continue
            case .evict(let victim, let reason):
                let victim = DeviceID(victim)
                actions += evict(victim: victim, admitting: candidate.id, reason: reason, now: now)
                adapter = adapters[adapterID] ?? adapter
                // The victim keeps its link path while BlueZ still holds the link (the only eviction pending
                // here: busy adapters were not chosen).
                if devices[victim]?.linkPath != nil {
                    busy.insert(adapterID)
                    open.remove(adapterID)
                    continue
                }
            case .takeFreeSlot:
                break
            }
            guard var device = devices[candidate.id] else { continue }
            do {
                try adapter.slots.connectStarted(device: device.id.rawValue, policyClass: device.policyClass, now: now)
            } catch {
                continue
            }
            adapters[adapterID] = adapter
            busy.insert(adapterID)
            open.remove(adapterID)
            let token = newToken()
            device.connectToken = token
            device.linkPath = path
            device.phase = .connecting
            // A new attempt: a blip after the previous one's abort can no longer be told from this one's.
            device.bond.abortedConnect = nil
            device.attempt += 1
            device.totalAttempts += 1
            device.nextRetry = nil
            clearTimer(&device, into: &actions)
            let timeout = settings.policy[device.policyClass].connectTimeout
            actions.append(.event(LifecycleEvent(.connectAttempt, "connecting \(device.id) via \(adapterID) (attempt \(device.attempt))",
                                                 device: device.id, address: device.sightings[path]?.address, adapter: adapterID,
                                                 reason: decision.reason.code.rawValue, attempt: device.attempt)))
            actions.append(.connect(device: device.id, path: path, adapter: adapterID, timeout: timeout, token: token))
            devices[device.id] = device
        }
        return actions
    }

    /// Marks the start of a full read of BlueZ's tree (start-up, bluetoothd restart): connects wait.
    public mutating func beginReconciliation() { reconciling = true }

    /// The tree has been read: twins are sorted out and connects may start.
    public mutating func endReconciliation(now: Duration) -> [FleetAction] {
        reconciling = false
        var actions: [FleetAction] = []
        for id in devices.keys.sorted() { actions += dropTwins(id: id, now: now) }
        return actions + pump(now: now)
    }

    /// Among powered adapters that see the device at an address it has not rotated away from, and have no
    /// connect in flight: free slot first, then the fewest failed connects of the device there, then best recent RSSI. Returns the Device1 path to connect through (which names its adapter).
    func chooseAdapter(for device: FleetDevice, excluding busy: Set<AdapterID>) -> DevicePath? {
        // The addresses are weighed among the paths fleetd may use, busy or not: a bonded device's object on its
        // bond adapter is not given up for a rotating address another adapter hears but may not connect.
        let usable = device.sightings.values.filter { adapters[$0.adapter]?.powered == true && bondAdmits(device, through: $0.adapter) }
        var byAdapter: [AdapterID: Sighting] = [:]
        for sighting in Sighting.atCurrentAddresses(usable) {
            guard let adapter = adapters[sighting.adapter], !busy.contains(sighting.adapter), adapter.slots.connectInFlight == nil else { continue }
            if let current = byAdapter[sighting.adapter], current.lastSeen >= sighting.lastSeen { continue }
            byAdapter[sighting.adapter] = sighting
        }
        let candidates = byAdapter.map {
            AdapterCandidate(table: adapters[$0.key]!.slots, recentRSSI: $0.value.rssi, recentFailures: device.failedConnects[$0.key] ?? 0)
        }
        guard let choice = AdapterChoice.choose(for: device.id.rawValue, among: candidates) else { return nil }
        return byAdapter[AdapterID(name: choice.adapter)]?.path
    }

    /// Disconnects `victim` to make room, holding it off so the two never flap.
    mutating func evict(victim id: DeviceID, admitting: DeviceID?, reason: AdmissionReason, now: Duration) -> [FleetAction] {
        guard var victim = devices[id] else { return [] }
        var actions: [FleetAction] = []
        let path = victim.linkPath
        let adapterID = path?.adapter
        let linked = path.flatMap { victim.sightings[$0]?.connected } ?? false
        if let adapterID {
            if victim.connectToken != nil { adapters[adapterID]?.slots.connectFinished(device: id.rawValue) }
            // The slot stays taken until BlueZ reports the link down, so the admitted device does not race
            // the disconnect into a controller that is still full.
            if !linked { _ = adapters[adapterID]?.slots.linkDown(device: id.rawValue) }
        }
        if let path { actions.append(.disconnect(device: id, path: path)) }
        victim.reconnect.evicted(now: now)
        if !linked { victim.linkPath = nil }
        victim.evictedFor = linked ? admitting : nil
        victim.linkUpAt = nil
        victim.connectToken = nil
        let until = now + settings.evictionHoldOff
        victim.phase = .evicted(until: until)
        victim.nextRetry = until
        victim.lastReason = reason.message
        setTimer(&victim, .holdOff, after: settings.evictionHoldOff, into: &actions)
        devices[id] = victim
        evictions.append(EvictionRecord(victim: id, admitted: admitting?.rawValue ?? "operator", reason: reason.message, at: now))
        if evictions.count > 100 { evictions.removeFirst(evictions.count - 100) }
        actions.append(.outcome(.evicted(id, reason: reason.code.rawValue)))
        actions.append(.event(LifecycleEvent(.evicted, reason.message, device: id, address: victim.address,
                                             adapter: adapterID, reason: reason.code.rawValue, delay: settings.evictionHoldOff)))
        actions.append(.persist)
        return actions
    }
}
