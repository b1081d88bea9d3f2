import FleetControlServer
import FleetProtocol
import Pairing
import Policy
import Supervision

/// Pairing in the driver: Pair, CancelPairing and the RemoveDevice that deletes a bond run here; the machine
/// decides when. Also what the agent and fleetctl ask of the supervisor about pairing.
extension FleetSupervisor {
    func performPairing(_ action: FleetAction) {
        let client = self.client
        let logger = self.logger
        switch action {
        case .pair(let device, let path, let timeout, let token):
            let events = bluezEvents
            Task { [weak self] in
                var failure: BlueZError?
                do throws(BlueZError) { try await client.pair(device: path.rawValue, timeout: timeout) } catch { failure = error }
                // Judged after the signals bluetoothd sent before its answer (Paired, Bonded, a link lost).
                await self?.caughtUp(to: events?.lastDelivered ?? 0)
                await self?.pairDone(device: device, token: token, error: failure)
            }
        case .cancelPairing(_, let path):
            Task {
                do throws(BlueZError) { try await client.cancelPairing(device: path.rawValue) } catch {
                    logger.debug("CancelPairing of \(path) answered \(error)")
                }
            }
        case .unpair(let device, let adapter, let path):
            Task {
                do throws(BlueZError) { try await client.removeDevice(adapter: adapter.objectPath, device: path.rawValue) } catch {
                    logger.warning("removing the bond of \(device) (RemoveDevice \(path)) failed: \(error)",
                                   metadata: ["device": device.rawValue, "adapter": adapter.name, "reason": error.name])
                }
            }
        default:
            break
        }
    }

    func pairDone(device: DeviceID, token: UInt64, error: BlueZError?) {
        perform(machine.pairFinished(device: device, token: token, error: error, now: now()))
    }

    /// Takes the pairing configuration (start and reload).
    public func configurePairing(_ pairing: [DeviceID: DevicePairing]) {
        machine.configurePairing(pairing)
    }

    /// The wanted device a Device1 path is, with its pairing policy, for the agent; nil for a stranger.
    public func pairingCandidate(path: String) -> PairingCandidate? {
        machine.pairingCandidate(path: path)
    }

    public func pair(_ reference: String) throws(FleetControlError) -> PairingOutcomeReply {
        let device = try resolve(reference)
        let outcome = try pairingCommand(device.id) { (machine, now) throws(FleetStateMachine.PairingRefusal) in
            try machine.operatorPair(device.id, now: now)
        }
        perform(outcome.actions)
        return PairingOutcomeReply(device: device.id.rawValue, state: machine.devices[device.id].map { DeviceState($0.phase) } ?? .unknown,
                                   note: outcome.message)
    }

    public func unpair(_ reference: String) throws(FleetControlError) -> PairingOutcomeReply {
        let device = try resolve(reference)
        let outcome = try pairingCommand(device.id) { (machine, now) throws(FleetStateMachine.PairingRefusal) in
            try machine.operatorUnpair(device.id, now: now)
        }
        perform(outcome.actions)
        return PairingOutcomeReply(device: device.id.rawValue, state: machine.devices[device.id].map { DeviceState($0.phase) } ?? .unknown,
                                   note: outcome.message)
    }

    private func pairingCommand(_ id: DeviceID, _ command: (inout FleetStateMachine, Duration) throws(FleetStateMachine.PairingRefusal)
        -> FleetStateMachine.OperatorOutcome) throws(FleetControlError) -> FleetStateMachine.OperatorOutcome {
        do {
            return try command(&machine, now())
        } catch {
            if case .unknownDevice = error { throw .deviceNotFound(reference: id.rawValue) }
            throw .pairingRefused(device: id.rawValue, reason: error.description)
        }
    }
}
