import Identity
import Policy

/// Device1 objects appearing, changing and disappearing: each is folded into a fleet identity, and twins
/// (two live addresses of one identity) are reduced to one link.
extension FleetStateMachine {
    /// A Device1 object appeared or changed. `connected`/`servicesResolved` changes drive the link lifecycle.
    public mutating func deviceObserved(_ object: DeviceReport, now: Duration) -> [FleetAction] {
        guard adapters[object.adapter] != nil || uses(adapterPath: object.adapter) else { return [] }
        var actions: [FleetAction] = []
        let id: String
        if let known = owners[object.path] {
            id = known
        } else {
            guard let resolved = resolve(object, now: now, into: &actions) else { return actions }
            id = resolved
        }
        guard var device = devices[id] else { return actions }
        let previous = device.sightings[object.path]
        let sighting = Sighting(path: object.path, adapter: object.adapter, address: object.address, addressType: object.addressType,
                                rssi: object.rssi ?? previous?.rssi, lastSeen: now, connected: object.connected,
                                servicesResolved: object.servicesResolved)
        if previous == nil {
            owners[object.path] = id
            if !device.sightings.isEmpty {
                actions.append(.log(LifecycleEvent(.identityMerged, "\(object.address) is another address of \(id); folded into one device",
                                                   device: id, address: object.address, adapter: adapterName(object.adapter),
                                                   reason: "same-identity")))
            }
        }
        device.sightings[object.path] = sighting
        device.lastSeen = now
        if device.displayName == nil { device.displayName = object.name }
        if device.phase == .unknown, device.isWanted {
            device.phase = .discovered
            actions.append(.log(LifecycleEvent(.discovered, "discovered \(id) at \(object.address)", device: id,
                                               address: object.address, adapter: adapterName(object.adapter))))
        }
        devices[id] = device
        actions += linkChanges(id: id, path: object.path, was: previous, now: now)
        actions += dropTwins(id: id, now: now)
        if device.linkPath == object.path {
            // In place: copying the slot table out and back would copy its links on every advert.
            adapters[object.adapter]?.slots.recordActivity(device: id, now: now, rssi: object.rssi)
        }
        actions += pump(now: now)
        return actions
    }

    /// A Device1 object went away (BlueZ expired it, or it was removed).
    public mutating func deviceRemoved(path: String, now: Duration) -> [FleetAction] {
        guard let id = owners.removeValue(forKey: path), var device = devices[id] else { return [] }
        var actions: [FleetAction] = []
        let was = device.sightings.removeValue(forKey: path)
        devices[id] = device
        if device.linkPath == path, device.phase == .connecting {
            // The object went away under a pending Connect: that attempt has failed.
            if let adapterPath = was?.adapter ?? adapterOf(path) { adapters[adapterPath]?.slots.connectFinished(device: id) }
            device.connectToken = nil
            device.linkPath = nil
            device.beforeLastFailure = (device.reconnect, now)
            let step = device.reconnect.connectFailed(.dbus(name: "org.freedesktop.DBus.Error.UnknownObject", message: "device object removed"),
                                                      now: now, using: &rng)
            apply(step, to: &device, now: now, into: &actions)
            devices[id] = device
        } else if device.linkPath == path, let was {
            var gone = was
            gone.connected = false
            device.sightings[path] = gone
            devices[id] = device
            actions += linkChanges(id: id, path: path, was: was, now: now)
            devices[id]?.sightings.removeValue(forKey: path)
            if devices[id]?.linkPath == path { devices[id]?.linkPath = nil }
        }
        actions += pump(now: now)
        return actions
    }

    /// Resolves an unknown path's identity; returns the id when it is a fleet device.
    mutating func resolve(_ object: DeviceReport, now: Duration, into actions: inout [FleetAction]) -> String? {
        let observation: Observation
        do {
            observation = try Observation(bluezAddress: object.address, addressType: object.addressType,
                                          manufacturerData: object.manufacturerData, serviceData: object.serviceData,
                                          name: object.name, rssi: object.rssi.map { Int16(clamping: $0) })
        } catch {
            actions.append(.log(LifecycleEvent(.malformedReply, "ignoring \(object.path): \(error)", address: object.address,
                                               reason: "bad-address", warning: true)))
            return nil
        }
        let resolution = resolver.resolve(observation, now: now)
        registry.record(resolution, observation: observation, now: now)
        let id = resolution.identity.stableID
        guard devices[id] != nil else { return nil }
        return id
    }

    /// Reacts to Connected / ServicesResolved changes on one of the device's paths.
    mutating func linkChanges(id: String, path: String, was previous: Sighting?, now: Duration) -> [FleetAction] {
        guard var device = devices[id], let sighting = device.sightings[path] else { return [] }
        var actions: [FleetAction] = []
        let wasConnected = previous?.connected ?? false
        if sighting.connected && !wasConnected {
            // A link we did not ask for (adoption after a restart, or BlueZ reconnecting) counts as ours when
            // nothing else holds the device; twins are sorted out by dropTwins.
            if device.linkPath == nil || device.linkPath == path {
                if device.phase != .connecting && !device.phase.hasLink {
                    actions += linkEstablished(&device, path: path, now: now, adopted: true)
                }
            }
        } else if !sighting.connected && wasConnected && device.linkPath == path {
            actions += linkLost(&device, now: now, failure: nil)
        }
        if sighting.connected, sighting.servicesResolved, device.linkPath == path, device.phase == .connected {
            actions += beginSetUp(&device, now: now)
        }
        devices[id] = device
        return actions
    }

    /// Keeps one link per identity: a connected stale twin is disconnected (once).
    mutating func dropTwins(id: String, now: Duration) -> [FleetAction] {
        guard var device = devices[id] else { return [] }
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
            actions.append(.log(LifecycleEvent(.twinDropped, "disconnecting stale twin \(sighting.address) of \(id); keeping \(keep)",
                                               device: id, address: sighting.address, adapter: adapterName(sighting.adapter), reason: "stale-twin")))
        }
        devices[id] = device
        return actions
    }

    func adapterName(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }
}
