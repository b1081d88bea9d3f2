/// Timer fires. Only the timer a device currently holds counts; any other id is stale and dropped.
extension FleetStateMachine {
    public mutating func timerFired(_ timer: TimerID, now: Duration) -> [FleetAction] {
        guard var device = devices[timer.device], device.timer == timer else { return [] }
        device.timer = nil
        var actions: [FleetAction] = []
        switch timer.purpose {
        case .retry:
            if case .backoff = device.phase { device.phase = device.sightings.isEmpty ? .unknown : .discovered }
            device.nextRetry = nil
        case .holdOff:
            if case .evicted = device.phase { device.phase = device.sightings.isEmpty ? .unknown : .discovered }
            device.nextRetry = nil
        case .admission:
            break
        case .setUpDeadline:
            if device.phase == .connected || device.phase == .resolving, let path = device.linkPath {
                device.connectToken = nil
                device.phase = .disconnecting
                actions.append(.log(LifecycleEvent(.setUpFailed, "\(device.id) did not become ready within \(settings.setUpTimeout); reconnecting",
                                                   device: device.id, address: device.address, adapter: device.adapter,
                                                   reason: "set-up-timeout", warning: true)))
                actions.append(.disconnect(device: device.id, path: path))
            }
        }
        devices[timer.device] = device
        return actions + pump(now: now)
    }
}
