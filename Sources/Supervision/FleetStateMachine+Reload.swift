import Identity
import Policy

/// Taking a new configuration without a restart (SIGHUP, `fleetctl reload`).
extension FleetStateMachine {
    /// Replaces identity rules and the configured device set. Links stay up; a configured device that is
    /// no longer listed stops being wanted (and is disconnected), a new one starts competing for a slot.
    public mutating func reload(rules: [IdentityRule], wanted: [WantedDevice], previouslyConfigured: Set<DeviceID>,
                                now: Duration) throws(IdentityError) -> (actions: [FleetAction], summary: String) {
        try resolver.replaceRules(rules)
        var actions: [FleetAction] = []
        var added = 0, changed = 0, removed = 0
        let listed = Set(wanted.map(\.id))
        for entry in wanted {
            if var device = devices[entry.id] {
                if device.wanted != entry {
                    if device.wanted.policyClass != entry.policyClass {
                        device.reconnect = ReconnectState(policyClass: entry.policyClass, configuration: settings.policy)
                    }
                    device.wanted = entry
                    if device.displayName == nil { device.displayName = entry.name }
                    devices[entry.id] = device
                    changed += 1
                }
            } else {
                devices[entry.id] = FleetDevice(wanted: entry, isWanted: true, configuration: settings.policy)
                added += 1
            }
        }
        for id in previouslyConfigured.subtracting(listed) {
            // The only refusal is an unknown id: a device forgotten meanwhile has nothing left to disconnect.
            guard let outcome = try? operatorDisconnect(id, now: now) else { continue }
            actions += outcome.actions
            removed += 1
        }
        // Paths resolved under the old rules may belong to other identities now.
        for (path, id) in owners where !(devices[id]?.phase.hasLink ?? false) { owners.removeValue(forKey: path) }
        actions.append(.persist)
        actions += pump(now: now)
        return (actions, "reloaded: \(added) added, \(changed) changed, \(removed) no longer configured, \(rules.count) identity rule(s)")
    }
}
