import FleetPlatform
import Supervision

/// BlueZ events in, through the tree copy and the state machine.
extension FleetSupervisor {
    func handle(_ event: BlueZEvent) async {
        guard !stopping else { return }
        if case .malformed(let what) = event {
            logger.warning("malformed BlueZ signal: \(what)", id: FleetMessageID.malformedReply.rawValue, metadata: ["reason": "malformed-signal"])
            return
        }
        if case .serviceAppeared = event {
            logger.notice("bluetoothd appeared on the bus; reading its objects")
            do { try await reconcile() } catch { logger.error("cannot read BlueZ's objects: \(error)") }
            return
        }
        let changes = tree.apply(event)
        reportProblems()
        let now = now()
        for change in changes {
            switch change {
            case .adapterAdded(let adapter):
                perform(machine.adapterAppeared(path: adapter.path, powered: adapter.powered, now: now))
            case .adapterChanged(let adapter):
                perform(machine.adapterPowered(path: adapter.path, adapter.powered, now: now))
            case .adapterRemoved(let path):
                perform(machine.adapterRemoved(path: path, now: now))
            case .deviceAdded(let device):
                perform(machine.deviceObserved(device.report, now: now))
            case .deviceChanged(let device, _):
                perform(machine.deviceObserved(device.report, now: now))
            case .deviceRemoved(let device):
                perform(machine.deviceRemoved(path: device.path, now: now))
            case .value(let characteristic, let bytes):
                notification(characteristic, bytes)
            case .characteristicAdded, .characteristicRemoved, .notifying:
                break
            }
        }
    }

    /// A Value change on a subscribed characteristic of a fleet device: numbered and kept.
    func notification(_ characteristic: CharacteristicObject, _ bytes: [UInt8]) {
        guard let id = machine.owners[characteristic.device], let device = machine.devices[id],
              device.linkPath == characteristic.device, device.wanted.subscribe.contains(characteristic.uuid) else { return }
        feed.publish(device: device.id, kind: .notification(characteristic: characteristic.uuid, value: bytes),
                     text: "notification (\(bytes.count) bytes)")
    }
}

extension String {
    var leftPad2: String { count >= 2 ? self : String(repeating: "0", count: 2 - count) + self }
    /// `2a37` for a Bluetooth-base UUID, the full text otherwise.
    var shortUUID: String {
        if hasPrefix("0000"), hasSuffix("-0000-1000-8000-00805f9b34fb") { return String(dropFirst(4).prefix(4)) }
        return self
    }
}
