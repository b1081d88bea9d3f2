/// BlueZ's tree changes in: the one entry for everything BlueZ reports about adapters and devices.
extension FleetStateMachine {
    public mutating func apply(_ change: TreeChange, now: Duration) -> [FleetAction] {
        let ownerBefore = change.devicePath.flatMap { owners[$0] }
        let actions = switch change {
        case .adapterAppeared(let adapter, let powered): adapterAppeared(adapter, powered: powered, now: now)
        case .adapterPowered(let adapter, let powered): adapterPowered(adapter, powered, now: now)
        case .adapterRemoved(let adapter): adapterRemoved(adapter, now: now)
        case .deviceAppeared(let report, let link): deviceSeen(report, link: link, now: now)
        case .deviceUpdated(let report): deviceSeen(report, link: nil, now: now)
        case .link(let path, let up): linkChanged(path, up: up, now: now)
        case .servicesResolved(let path, let resolved): servicesResolved(path, resolved, now: now)
        case .deviceRemoved(let path): deviceRemoved(path, now: now)
        }
        noteUnsaved(change, ownerBefore: ownerBefore)
        return actions
    }
}
