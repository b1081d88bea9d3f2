import FleetPlatform
import Policy

/// Device1.Pair and CancelPairing (doc/device-api.txt). Pair is answered by fleetd's own agent, registered
/// with AgentManager1 on the same bus connection, so BlueZ asks it for passkeys and confirmations.
extension BlueZClient {
    /// Device1.Pair, bounded by `timeout` (a passkey typed, SMP's 30 s timer); a call that outlives it fails
    /// with `timedOut`, and the caller cancels BlueZ's pairing.
    public func pair(device: String, timeout: Duration) async throws(BlueZError) {
        do {
            _ = try await bus.call(destination: BlueZName.service, path: device, interface: BlueZName.device, member: "Pair",
                                   arguments: [], timeout: timeout)
        } catch {
            throw BlueZError(error, operation: "Pair", path: device)
        }
    }

    public func cancelPairing(device: String) async throws(BlueZError) {
        do {
            _ = try await bus.call(destination: BlueZName.service, path: device, interface: BlueZName.device, member: "CancelPairing",
                                   arguments: [], timeout: callTimeout)
        } catch {
            throw BlueZError(error, operation: "CancelPairing", path: device)
        }
    }
}
