/// Timer fires. Only the timer a device currently holds counts; any other id is stale and dropped.
extension FleetStateMachine {
    public mutating func timerFired(_ timer: TimerID, now: Duration) -> [FleetAction] {
        guard var device = devices[timer.device], device.timer == timer else { return [] }
        unsaved.insert(device: timer.device)
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
            actions += pairingDeadlinePassed(&device)
            if device.phase == .connected || device.phase == .resolving, let path = device.linkPath {
                device.connectToken = nil
                actions.append(.event(LifecycleEvent(.setUpFailed, "\(device.id) did not become ready within \(settings.setUpTimeout); reconnecting",
                                                     device: device.id, address: device.address, adapter: device.adapter,
                                                     reason: "set-up-timeout", warning: true)))
                abandonLink(&device, path: path, into: &actions)
            }
        case .disconnectDeadline:
            if device.phase == .disconnecting, let path = device.linkPath {
                // BlueZ never confirmed the disconnect: write the link off and clear the object's state (with
                // Disconnect again for a bonded device: RemoveDevice would delete its keys).
                if let sighting = device.sightings[path] { actions += clearStuckState(device, sighting: sighting) }
                actions += linkLost(&device, now: now, failure: nil)
            }
        }
        devices[timer.device] = device
        return actions + pump(now: now)
    }
}
