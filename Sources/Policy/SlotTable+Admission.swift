extension SlotTable {
    /// Whether `device` of `policyClass` may connect through this adapter now, and if a link must go first,
    /// which one.
    ///
    /// Order of checks: already linked → a connect in flight (one per adapter) → a free slot → an
    /// opportunistic requester waits (it never evicts) → the victim: among links of a strictly lower class that
    /// are older than their class's minimum hold time, the lowest class, then the least recent activity, then
    /// the weakest RSSI (unknown counts as weakest), then the smallest id so the choice is reproducible.
    public func admit(device: String, policyClass: PolicyClass, now: Duration) -> AdmissionDecision {
        let who = "\(device) (\(policyClass))"
        if links[device] != nil {
            return .wait(AdmissionReason(.alreadyLinked, "\(who) already holds a link on \(adapter)"))
        }
        if let pending = connectInFlight {
            return .wait(AdmissionReason(
                .connectInFlight,
                "\(who) waits: \(adapter) is already connecting \(pending.device) (one connect per adapter; BlueZ answers a second with InProgress)"
            ))
        }
        if hasFreeSlot {
            return .takeFreeSlot(AdmissionReason(.freeSlot, "admit \(who) into a free slot on \(adapter) (\(occupied + 1) of \(capacity) used)"))
        }
        let full = "\(adapter) is full (\(occupied) of \(capacity))"
        if policyClass == .opportunistic {
            return .wait(AdmissionReason(.fullOpportunisticNeverEvicts, "\(who) waits: \(full) and opportunistic devices only take free slots"))
        }
        let lower = links.values.filter { policyClass.mayEvict($0.policyClass) }
        if lower.isEmpty {
            return .wait(AdmissionReason(.fullNoLowerClass, "\(who) waits: \(full) and holds no link of a class below \(policyClass)"))
        }
        let evictable = lower.filter { now - $0.linkedAt >= holdTime(of: $0) }
        guard let victim = evictable.min(by: Self.evictsFirst) else {
            let firstFree = lower.map { $0.linkedAt + holdTime(of: $0) }.min()
            let wait = firstFree.map { " the first is free to evict in \(($0 - now).humanDescription)" } ?? ""
            return .wait(AdmissionReason(
                .fullHeldByHysteresis,
                "\(who) waits: \(full); its lower-class links are all younger than their minimum hold time;\(wait)",
                retryAt: firstFree
            ))
        }
        let idle = (now - victim.lastActivity).humanDescription
        return .evict(victim: victim.device, AdmissionReason(
            .evictLowerClass,
            "evicted \(victim.device) (\(victim.policyClass), idle \(idle)) to admit \(who) on \(adapter)"
        ))
    }

    private func holdTime(of link: Link) -> Duration {
        configuration[link.policyClass].minimumHoldTime
    }

    /// Whether `a` should be evicted before `b`.
    static func evictsFirst(_ a: Link, _ b: Link) -> Bool {
        if a.policyClass != b.policyClass { return a.policyClass < b.policyClass }
        if a.lastActivity != b.lastActivity { return a.lastActivity < b.lastActivity }
        let rssiA = a.rssi ?? Int.min
        let rssiB = b.rssi ?? Int.min
        if rssiA != rssiB { return rssiA < rssiB }
        return a.device < b.device
    }
}
