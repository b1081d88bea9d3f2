import GATTProfiles
import Supervision
import Synchronization

/// The devices configured with `profile = none`, whose values every consumer passes through raw: published by the
/// supervisor when its wanted set changes (start, reload) so that readers on other threads (the MQTT forwarder's
/// pump) need not enter the actor for each page they decode.
public final class RawProfileDevices: Sendable {
    private let devices = Mutex<Set<String>>([])

    public init() {}

    public var current: Set<String> { devices.withLock { $0 } }

    func publish(from machine: FleetStateMachine) {
        let raw = Set(machine.devices.values.filter { !$0.wanted.standardProfiles }.map(\.id.rawValue))
        devices.withLock { $0 = raw }
    }

    /// A fresh decoder for one consumer of values (a Watch, a Readings page, a Read, the MQTT forwarder).
    public func decoder() -> ObservationDecoder { ObservationDecoder(rawDevices: current) }
}
