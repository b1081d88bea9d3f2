import FleetControlServer
import FleetProtocol
import FoundationEssentials
import GATTProfiles
import Supervision

/// fleetctl's API (`FleetControlBackend`) answered by the running supervisor.
public struct SupervisorControlBackend: FleetControlBackend {
    public let supervisor: FleetSupervisor
    public let version: String
    /// Re-reads the configuration (SIGHUP and `fleetctl reload` share it); returns a one-line summary.
    public let reloader: @Sendable () async throws -> String

    public init(supervisor: FleetSupervisor, version: String, reloader: @escaping @Sendable () async throws -> String) {
        self.supervisor = supervisor
        self.version = version
        self.reloader = reloader
    }

    /// Answered from the supervisor's last publication, without waiting for the actor (`StatusBoard`).
    public func status() async throws -> StatusInfo { supervisor.statusInfo(version: version) }
    public func listDevices() async throws -> [DeviceInfo] { await supervisor.deviceInfos() }
    public func showDevice(_ reference: String) async throws -> DeviceDetail { try await supervisor.showDevice(reference) }
    public func connect(_ reference: String) async throws -> ConnectOutcome { try await supervisor.connect(reference) }
    public func disconnect(_ reference: String) async throws -> DisconnectOutcome { try await supervisor.disconnect(reference) }
    public func evict(_ reference: String) async throws -> EvictOutcome { try await supervisor.evict(reference) }
    public func forget(_ reference: String) async throws -> String { try await supervisor.forget(reference) }
    public func setPolicy(_ reference: String, policyClass: String) async throws -> String {
        try await supervisor.setPolicy(reference, policyClass: policyClass)
    }

    /// Decoded with no earlier values: a one-off read has no previous value to derive from (CSC speed shows
    /// as cumulative counts only) and knows only the features this read itself is.
    public func read(_ reference: String, characteristic uuid: String) async throws -> ReadOutcome {
        let (device, characteristic) = try await supervisor.characteristic(reference, uuid)
        let value: [UInt8]
        do {
            value = try await supervisor.client.readLong(characteristic: characteristic.path, mtu: characteristic.mtu)
        } catch {
            throw FleetControlError.bluez(name: error.name, message: error.message)
        }
        var decoder = supervisor.rawProfileDevices.decoder()
        return ReadOutcome(value: value, decoded: decoder.decode(device: device.id.rawValue, characteristic: characteristic.uuid, value: value))
    }

    public func write(_ reference: String, characteristic uuid: String, value: [UInt8], withResponse: Bool) async throws {
        let (_, characteristic) = try await supervisor.characteristic(reference, uuid)
        do {
            try await supervisor.client.write(characteristic: characteristic.path, value: value, withResponse: withResponse, mtu: characteristic.mtu)
        } catch {
            throw FleetControlError.bluez(name: error.name, message: error.message)
        }
    }

    public func watch(_ reference: String?) async throws -> AsyncStream<WatchEvent> {
        var device: DeviceID?
        if let reference { device = DeviceID(try await supervisor.showDevice(reference).device.id) }
        var decoder = supervisor.rawProfileDevices.decoder()
        let entries = supervisor.feed.subscribe(device: device)
        let (stream, continuation) = AsyncStream<WatchEvent>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let task = Task {
            for await entry in entries {
                var decoded: DecodedValue?
                if case .notification(let characteristic, let value) = entry.kind {
                    decoded = decoder.decode(device: entry.device.rawValue, characteristic: characteristic, value: value)
                }
                continuation.yield(WatchEvent(sequence: Int(entry.sequence), time: entry.time, device: entry.device.rawValue,
                                              kind: WatchEvent.Kind(entry.kind), text: entry.text, decoded: decoded))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    public func reload() async throws -> String { try await reloader() }
    public func pair(_ reference: String) async throws -> PairingOutcomeReply { try await supervisor.pair(reference) }
    public func unpair(_ reference: String) async throws -> PairingOutcomeReply { try await supervisor.unpair(reference) }
    public func metrics() async throws -> String { await supervisor.prometheusText() }
}
