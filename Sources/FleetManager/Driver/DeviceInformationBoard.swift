import GATTProfiles
import Supervision
import Synchronization

/// What each device said about itself in its Device Information service (manufacturer, model, serial, firmware,
/// hardware and software revision, System ID), as read on its last link, for `fleetctl show`. Written by the
/// link set-up off the actor, read by ShowDevice; kept in memory only (every link reads it again).
public final class DeviceInformationBoard: Sendable {
    private let entries = Mutex<[DeviceID: [String: ObservationDetail]]>([:])

    public init() {}

    /// Keeps what a read-once Device Information value decoded to; any other value is ignored.
    func record(device: DeviceID, characteristic uuid: String, value: [UInt8]) {
        guard ProfileCatalog.decoder(for: uuid)?.profile == .deviceInformation,
              case .observations(let observations)? = ProfileCatalog.decode(value, characteristic: uuid) else { return }
        let details = observations.flatMap(\.details)
        entries.withLock { entries in
            for detail in details { entries[device, default: [:]][detail.name] = detail }
        }
    }

    /// In the service's order (DIS v1.1 §3): manufacturer, model, serial, hardware, firmware, software, System ID.
    func details(of device: DeviceID) -> [ObservationDetail] {
        let known = entries.withLock { $0[device] } ?? [:]
        let order = ["manufacturer-name", "model-number", "serial-number", "hardware-revision", "firmware-revision", "software-revision",
                     "system-id", "oui", "manufacturer-identifier"]
        return order.compactMap { known[$0] } + known.filter { !order.contains($0.key) }.sorted { $0.key < $1.key }.map(\.value)
    }

    func forget(_ device: DeviceID) { entries.withLock { $0[device] = nil } }
}
