import Identity
import Policy

/// Taking a new configuration without a restart (SIGHUP, `fleetctl reload`).
extension FleetStateMachine {
    /// Replaces identity rules and the configured device set. Links stay up; a configured device that is
    /// no longer listed stops being wanted (and is disconnected), a new one starts competing for a slot.
    public mutating func reload(rules: [IdentityRule], wanted: [WantedDevice], previouslyConfigured: Set<DeviceID>,
                                now: Duration) throws(IdentityError) -> (actions: [FleetAction], summary: String) {
        try resolver.replaceRules(rules)
        // Every configured device may change, and paths resolved afresh may fold differently.
        unsaved.insertEverything()
        var actions: [FleetAction] = []
        var added = 0, changed = 0, removed = 0
        let listed = Set(wanted.map(\.id))
        for entry in wanted {
            if var device = devices[entry.id] {
                device.configured = true
                if device.wanted != entry {
                    if device.wanted.policyClass != entry.policyClass {
                        changeClass(of: &device, to: entry.policyClass, now: now)
                    }
                    device.wanted = entry
                    if device.displayName == nil { device.displayName = entry.name }
                    changed += 1
                }
                devices[entry.id] = device
            } else {
                devices[entry.id] = FleetDevice(wanted: entry, isWanted: true, configured: true, configuration: settings.policy)
                added += 1
            }
        }
        for id in previouslyConfigured.subtracting(listed) {
            // The only refusal is an unknown id: a device forgotten meanwhile has nothing left to disconnect.
            guard let outcome = try? operatorDisconnect(id, now: now) else { continue }
            actions += outcome.actions
            removed += 1
        }
        // Paths resolved under the old rules may belong to other identities now: each one without a link (or a
        // connect in flight) is forgotten, owner and sighting together, and resolved afresh when BlueZ next
        // reports it (the driver re-reports its copy of the tree at once). Dropping the owner alone would leave a
        // sighting nobody owns: a connect through it whose link, services and values are never heard.
        heardBeforeReload = [:]
        for (path, id) in owners {
            guard let device = devices[id], device.linkPath != path, device.sightings[path]?.connected != true else { continue }
            owners.removeValue(forKey: path)
            if let heard = devices[id]?.sightings.removeValue(forKey: path)?.lastHeard { heardBeforeReload[path] = heard }
        }
        actions.append(.persist)
        actions += pump(now: now)
        return (actions, "reloaded: \(added) added, \(changed) changed, \(removed) no longer configured, \(rules.count) identity rule(s)")
    }
}
