import FleetPlatform
import Supervision

/// BlueZ events in, through the tree copy and the state machine.
extension FleetSupervisor {
    /// One read turn's worth of events: one actor hop for the lot, and admission (a scan of the fleet) once at
    /// its end rather than after each event. A re-read of the tree suspends the actor, so admission is not
    /// held across it.
    func handle(_ batch: [BlueZEvent]) async {
        guard !stopping else { return }
        metrics.handled(bluezEvents: batch.count)
        machine.deferAdmission()
        for event in batch {
            if case .serviceAppeared = event {
                admit()
                await handle(event)
                machine.deferAdmission()
            } else {
                await handle(event)
            }
        }
        admit()
    }

    private func admit() {
        let actions = machine.resumeAdmission(now: now())
        if !stopping { perform(actions) }
    }

    func handle(_ event: BlueZEvent) async {
        guard !stopping else { return }
        if case .malformed(let what) = event {
            logger.warning("malformed BlueZ signal: \(what)", id: FleetMessageID.malformedReply.rawValue, metadata: ["reason": "malformed-signal"])
            return
        }
        if case .serviceAppeared = event {
            logger.notice("bluetoothd appeared on the bus; reading its objects")
            bluezOnBus = true
            do { try await reconcile() } catch { logger.error("cannot read BlueZ's objects: \(error)") }
            updateStatus()
            return
        }
        if case .serviceLost = event {
            bluezOnBus = false
            logger.warning("bluetoothd left the bus; waiting for it to return", id: FleetMessageID.waitingForBlueZ.rawValue,
                           metadata: ["reason": "service-lost"])
        }
        let changes = tree.apply(event)
        reportProblems()
        let now = now()
        for change in changes {
            switch change {
            case .tree(let change):
                perform(machine.apply(change, now: now))
            case .value(let characteristic, let bytes):
                notification(characteristic, bytes)
            }
        }
    }

    /// A Value change on a subscribed characteristic of a fleet device: numbered and kept.
    func notification(_ characteristic: CharacteristicObject, _ bytes: [UInt8]) {
        guard let path = tree.devices[characteristic.device]?.devicePath, let id = machine.owners[path], let device = machine.devices[id],
              device.linkPath == path, device.wanted.subscribe.contains(characteristic.uuid) else { return }
        feed.publish(device: device.id, kind: .notification(characteristic: characteristic.uuid, value: bytes),
                     text: "notification (\(bytes.count) bytes)")
        readings?.record(device: device.id, characteristic: characteristic.uuid, kind: .notification, value: bytes)
    }
}
