import Identity
import Policy

/// Device1 objects appearing, advertising, linking and disappearing: each is folded into a fleet identity,
/// and twins (two live addresses of one identity) are reduced to one link.
extension FleetStateMachine {
    /// A Device1 object appeared (in the link state it has), or what it advertises changed (`link` nil).
    mutating func deviceSeen(_ report: DeviceReport, link: LinkState?, now: Duration) -> [FleetAction] {
        guard adapters[report.adapter] != nil || uses(report.adapter) else { return [] }
        if link == nil, let (id, wasLink) = refreshSightingInPlace(report, now: now) {
            return settle(id, path: report.path, wasLink: wasLink, rssi: report.rssi, now: now)
        }
        var actions: [FleetAction] = []
        let id: DeviceID
        if let known = owners[report.path] {
            id = known
        } else {
            guard let resolved = resolve(report, now: now, into: &actions) else { return actions }
            id = resolved
        }
        guard var device = devices[id] else { return actions }
        let previous = device.sightings[report.path]
        var sighting = previous ?? Sighting(path: report.path, address: report.address, addressType: report.addressType, rssi: nil,
                                            lastSeen: now, connected: false, servicesResolved: false)
        sighting.address = report.address
        sighting.addressType = report.addressType
        sighting.rssi = report.rssi ?? previous?.rssi
        sighting.bonded = report.bonded
        let wasConnected = sighting.connected
        if let link {
            sighting.connected = link != .down
            sighting.servicesResolved = link == .resolved
        }
        // Heard: an advert, or a link at this address. A path resolved afresh after a reload keeps what was heard of it.
        if previous == nil, let before = heardBeforeReload.removeValue(forKey: report.path) { sighting.lastHeard = before }
        if report.heard || sighting.connected { sighting.lastHeard = now }
        // A path resolved afresh is owned again, even if the device still had a sighting of it: a sighting
        // nobody owns is one whose link, services and values are never heard.
        owners[report.path] = id
        if previous == nil {
            if !device.sightings.isEmpty {
                actions.append(.event(LifecycleEvent(.identityMerged, "\(report.address) is another address of \(id); folded into one device",
                                                     device: id, address: report.address, adapter: report.adapter, reason: "same-identity")))
            }
        }
        let wasLink = device.linkPath == report.path
        record(sighting, of: &device, now: now)
        actions += noteBond(&device, report: report, wasBonded: previous?.bonded, now: now)
        if device.displayName == nil { device.displayName = report.name }
        if device.phase == .unknown, device.isWanted {
            device.phase = .discovered
            actions.append(.event(LifecycleEvent(.discovered, "discovered \(id) at \(report.address)", device: id,
                                                 address: report.address, adapter: report.adapter)))
        }
        if device.phase == .waitingForAdapter, device.isWanted, adapters[report.adapter]?.powered == true {
            // It waited with nowhere to go, and is now heard where it can be reached: another adapter that is up,
            // or its own back again (an adapter's objects go with its power, so its return may find no sighting
            // of the device there to resume). Resumed as an adapter's return is, nothing counted.
            if let step = device.reconnect.adapterReturned(now: now, using: &rng) {
                apply(step, to: &device, now: now, into: &actions)
            } else {
                device.phase = .discovered
            }
        }
        if sighting.connected != wasConnected { actions += linkTurned(&device, path: report.path, up: sighting.connected, now: now) }
        devices[id] = device
        return actions + settle(id, path: report.path, wasLink: wasLink, rssi: report.rssi, now: now)
    }

    /// The link to one of a device's paths came up or went down.
    mutating func linkChanged(_ path: DevicePath, up: Bool, now: Duration) -> [FleetAction] {
        guard let id = owners[path], var device = devices[id], var sighting = device.sightings[path] else { return [] }
        let changed = sighting.connected != up
        let wasLink = device.linkPath == path
        sighting.connected = up
        if up { sighting.lastHeard = now }
        if up, device.linkPath == path, device.phase == .connecting { device.bond.linkUpDuringConnect = device.connectToken }
        // BlueZ resolves services only over a link.
        if !up { sighting.servicesResolved = false }
        record(sighting, of: &device, now: now)
        let actions = changed ? linkTurned(&device, path: path, up: up, now: now) : []
        devices[id] = device
        return actions + settle(id, path: path, wasLink: wasLink, rssi: nil, now: now)
    }

    /// What a link coming up or going down on `path` means for the device.
    private mutating func linkTurned(_ device: inout FleetDevice, path: DevicePath, up: Bool, now: Duration) -> [FleetAction] {
        if up {
            // A link we did not ask for (adoption after a restart, or BlueZ reconnecting) counts as ours when
            // nothing else holds the device; twins are sorted out by dropTwins.
            guard device.linkPath == nil || device.linkPath == path, device.phase != .connecting && !device.phase.hasLink else { return [] }
            return linkEstablished(&device, path: path, now: now, adopted: true)
        }
        guard device.linkPath == path else { return [] }
        return linkLost(&device, now: now, failure: nil)
    }

    /// BlueZ finished (or forgot) resolving the services of one of a device's paths.
    mutating func servicesResolved(_ path: DevicePath, _ resolved: Bool, now: Duration) -> [FleetAction] {
        guard let id = owners[path], var device = devices[id], var sighting = device.sightings[path] else { return [] }
        sighting.servicesResolved = resolved
        record(sighting, of: &device, now: now)
        devices[id] = device
        return settle(id, path: path, wasLink: device.linkPath == path, rssi: nil, now: now)
    }

    /// Stores what BlueZ just said of one of the device's paths: any word from an object is a sign of life.
    private func record(_ sighting: Sighting, of device: inout FleetDevice, now: Duration) {
        var sighting = sighting
        sighting.lastSeen = now
        device.sightings[sighting.path] = sighting
        device.lastSeen = now
    }

    /// What follows any word from one of a device's objects: a wanted link whose services are resolved is set
    /// up, the link counts as active, twins are sorted out and waiting devices get their turn.
    private mutating func settle(_ id: DeviceID, path: DevicePath, wasLink: Bool, rssi: Int?, now: Duration) -> [FleetAction] {
        var actions: [FleetAction] = []
        // Asked in place, through one lookup: copying the device out to ask would retain and release each of its
        // collections on every advert, and set-up is due, or a twin to drop, on almost none of them.
        if let index = devices.index(forKey: id) {
            if devices.values[index].awaitsSetUp(on: path) {
                var device = devices.values[index]
                actions += beginSetUp(&device, now: now)
                devices[id] = device
                actions += dropTwins(id: id, now: now)
            } else if !devices.values[index].hasNoTwins() {
                actions += dropTwins(id: id, now: now)
            }
        }
        if wasLink {
            // In place: copying the slot table out and back would copy its links on every advert.
            recordActivity(on: path.adapter, of: id, now: now, rssi: rssi)
        }
        return actions + pump(now: now)
    }

    /// A Device1 object went away (BlueZ expired it, or it was removed).
    mutating func deviceRemoved(_ path: DevicePath, now: Duration) -> [FleetAction] {
        guard let id = owners.removeValue(forKey: path), var device = devices[id] else { return [] }
        var actions: [FleetAction] = []
        let was = device.sightings.removeValue(forKey: path)
        devices[id] = device
        // A Connect pending on the object stays in flight, holding the adapter's connect slot, until BlueZ
        // answers it (or the driver's deadline does). A removal fleetd hears behind a backlog may be of the
        // object's previous life, before the Connect was even sent, while BlueZ connects the object that came
        // back at the same path (soak seed 1: freeing the slot here started a second Connect on the adapter
        // beside the first). An object that is really gone answers UnknownObject, which `connectFinished` takes
        // as the path's failure, not the device's; nothing is counted here either.
        if device.linkPath == path, device.phase != .connecting, let was {
            // Gone with its link: the link is lost, reported with the address it had.
            device.sightings[path] = was
            if was.connected {
                device.sightings[path]?.connected = false
                actions += linkLost(&device, now: now, failure: nil)
            }
            device.sightings.removeValue(forKey: path)
            if device.linkPath == path { device.linkPath = nil }
            devices[id] = device
        }
        actions += pump(now: now)
        return actions
    }

    /// Resolves an unknown path's identity; returns the id when it is a fleet device.
    mutating func resolve(_ report: DeviceReport, now: Duration, into actions: inout [FleetAction]) -> DeviceID? {
        let observation: Observation
        do {
            observation = try Observation(bluezAddress: report.address, addressType: report.addressType,
                                          manufacturerData: report.manufacturerData, serviceData: report.serviceData,
                                          name: report.name, rssi: report.rssi.map { Int16(clamping: $0) })
        } catch {
            actions.append(.event(LifecycleEvent(.malformedReply, "ignoring \(report.path): \(error)", address: report.address,
                                                 reason: "bad-address", warning: true)))
            return nil
        }
        let resolution = resolver.resolve(observation, now: now)
        // The id spelled once, and kept as the strings the registry and the device table already hold: the
        // unsaved set, the store's copy of the registry and `owners` (an entry per Device1 object) then share
        // them instead of keeping a string each (issue 18).
        let stableID = registry.record(resolution, observation: observation, now: now)
        unsaved.insert(identity: stableID)
        guard let index = devices.index(forKey: DeviceID(stableID)) else { return nil }
        return devices.keys[index]
    }

    /// Keeps one link per identity: a connected stale twin is disconnected (once).
    mutating func dropTwins(id: DeviceID, now: Duration) -> [FleetAction] {
        guard !hasNoTwins(id), var device = devices[id] else { return [] }
        device.twinDisconnects = device.twinDisconnects.filter { device.sightings[$0]?.connected == true }
        var stale: [Sighting] = []
        if let link = device.linkPath, device.sightings[link]?.connected == true {
            // Our link is the one to keep; every other connected address of this identity is a stale twin.
            stale = device.sightings.values.filter { $0.connected && $0.path != link }
        } else if device.sightings.count > 1 {
            let live = device.sightings.values.compactMap { s -> (LiveAddress, Sighting)? in
                guard let type = try? AddressType(bluez: s.addressType),
                      let address = try? BluetoothAddress(s.address, type: type) else { return nil }
                return (LiveAddress(address: address, lastAdvert: s.lastSeen, isConnected: s.connected || s.path == device.linkPath), s)
            }
            if let decision = TwinDecision(live: live.map(\.0)), decision.hasTwins {
                stale = decision.stale.compactMap { address in live.first(where: { $0.0.address == address.address })?.1 }
                    .filter { $0.connected && $0.path != device.linkPath }
            }
        }
        var actions: [FleetAction] = []
        let keep = device.linkPath.flatMap { device.sightings[$0]?.address } ?? device.bestSighting?.address ?? "?"
        for sighting in stale.sorted(by: { $0.path < $1.path }) where !device.twinDisconnects.contains(sighting.path) {
            device.twinDisconnects.insert(sighting.path)
            actions.append(.disconnect(device: id, path: sighting.path))
            actions.append(.event(LifecycleEvent(.twinDropped, "disconnecting stale twin \(sighting.address) of \(id); keeping \(keep)",
                                                 device: id, address: sighting.address, adapter: sighting.adapter, reason: "stale-twin")))
        }
        devices[id] = device
        return actions
    }
}
