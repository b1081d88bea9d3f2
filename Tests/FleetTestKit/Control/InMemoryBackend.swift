import FleetControlServer
import FleetProtocol
import GATTProfiles
import Foundation

/// A small fleet held in memory, standing in for the supervisor so the server can be tested end to end.
public actor InMemoryBackend: FleetControlBackend {
    public static let policyClasses = ["critical", "interactive", "background"]

    public var devices: [DeviceInfo] = [
        DeviceInfo(id: "a1b2c3d4e5", displayName: "Kitchen Lamp", state: .ready, adapter: "hci0", address: "AA:BB:CC:DD:EE:01",
                   rssi: -61, lastSeenSecondsAgo: 1.5, attempt: 0, policyClass: "interactive"),
        DeviceInfo(id: "a1b2ff0011", displayName: "Hall Lamp", state: .backingOff, address: "AA:BB:CC:DD:EE:02",
                   rssi: -80, lastSeenSecondsAgo: 95, attempt: 3, failures: 2, nextRetryInSeconds: 12.5, policyClass: "background"),
        DeviceInfo(id: "c0ffee0042", displayName: "Thermometer", state: .ready, adapter: "hci1", address: "AA:BB:CC:DD:EE:03",
                   rssi: -47, lastSeenSecondsAgo: 0.2, attempt: 0, policyClass: "critical"),
    ]
    public var values: [String: [String: [UInt8]]] = ["a1b2c3d4e5": ["2a19": [0x64]], "c0ffee0042": ["2a6e": [0x0A, 0x09]]]
    public private(set) var writes: [(device: String, characteristic: String, value: [UInt8], withResponse: Bool)] = []
    public private(set) var reloads = 0
    /// Events every Watch stream starts with (then it stays open, like the daemon's).
    public var scriptedEvents: [WatchEvent] = []

    public init() {}

    public func setScriptedEvents(_ events: [WatchEvent]) { scriptedEvents = events }

    /// Renames a device, as an advert's name would (tests of how names are shown).
    public func setDisplayName(_ name: String, of id: String) {
        if let position = devices.firstIndex(where: { $0.id == id }) { devices[position].displayName = name }
    }

    public func status() async throws -> StatusInfo {
        StatusInfo(daemon: DaemonInfo(version: "0.1.0-test", uptimeSeconds: 3725, state: .running),
                   adapters: [AdapterInfo(name: "hci0", address: "00:1A:7D:DA:71:13", powered: true, slotsUsed: 1, slotsCapacity: 7),
                              AdapterInfo(name: "hci1", powered: false, slotsUsed: 1, slotsCapacity: 5)],
                   counts: DeviceCounts(wanted: devices.count, ready: devices.filter { $0.state == .ready }.count,
                                        backingOff: devices.filter { $0.state == .backingOff }.count, failed: 0))
    }

    public func listDevices() async throws -> [DeviceInfo] { devices }

    private func index(of reference: String) throws(FleetControlError) -> Int {
        let device = try DeviceReference.resolve(reference, in: devices)
        return devices.firstIndex { $0.id == device.id } ?? 0
    }

    public func showDevice(_ reference: String) async throws -> DeviceDetail {
        let device = devices[try index(of: reference)]
        return DeviceDetail(device: device, identity: "address \(device.address ?? "?")",
                            connectedForSeconds: device.state == .ready ? 60 : nil,
                            characteristics: (values[device.id] ?? [:]).keys.sorted().map { CharacteristicInfo(uuid: $0, flags: ["read", "notify"]) })
    }

    public func connect(_ reference: String) async throws -> ConnectOutcome {
        let position = try index(of: reference)
        guard devices[position].state != .ready else { return ConnectOutcome(device: devices[position].id, state: .ready) }
        devices[position].state = .connecting
        return ConnectOutcome(device: devices[position].id, state: .connecting, evicted: "c0ffee0042",
                              note: "evicted c0ffee0042 (Thermometer, class critical) from hci1 to make room")
    }

    public func disconnect(_ reference: String) async throws -> DisconnectOutcome {
        let position = try index(of: reference)
        devices[position].state = .idle
        return DisconnectOutcome(device: devices[position].id, state: .idle)
    }

    public func evict(_ reference: String) async throws -> EvictOutcome {
        let position = try index(of: reference)
        devices[position].state = .evicted
        return EvictOutcome(device: devices[position].id, holdOffSeconds: 30)
    }

    public func forget(_ reference: String) async throws -> String {
        let position = try index(of: reference)
        return devices.remove(at: position).id
    }

    public func setPolicy(_ reference: String, policyClass: String) async throws -> String {
        let position = try index(of: reference)
        guard Self.policyClasses.contains(policyClass) else { throw FleetControlError.invalidPolicyClass(policyClass, known: Self.policyClasses) }
        devices[position].policyClass = policyClass
        return devices[position].id
    }

    public func read(_ reference: String, characteristic: String) async throws -> ReadOutcome {
        let device = devices[try index(of: reference)]
        guard device.state == .ready else { throw FleetControlError.notConnected(device: device.id) }
        guard let value = values[device.id]?[characteristic] else {
            throw FleetControlError.characteristicNotFound(device: device.id, characteristic: characteristic)
        }
        // Decoded as the daemon decodes a one-off read: no earlier values.
        var decoder = ObservationDecoder()
        return ReadOutcome(value: value, decoded: decoder.decode(device: device.id, characteristic: characteristic, value: value))
    }

    public func write(_ reference: String, characteristic: String, value: [UInt8], withResponse: Bool) async throws {
        let device = devices[try index(of: reference)]
        guard device.state == .ready else { throw FleetControlError.notConnected(device: device.id) }
        guard values[device.id]?[characteristic] != nil else {
            throw FleetControlError.bluez(name: "org.bluez.Error.NotPermitted", message: "Write not permitted")
        }
        values[device.id]?[characteristic] = value
        writes.append((device.id, characteristic, value, withResponse))
    }

    public func watch(_ reference: String?) async throws -> AsyncStream<WatchEvent> {
        let device = try reference.map { reference throws(FleetControlError) in try DeviceReference.resolve(reference, in: devices).id }
        let events = scriptedEvents.filter { device == nil || $0.device == device }
        // Never finished: like the daemon's stream it lasts until the client goes away.
        let (stream, continuation) = AsyncStream.makeStream(of: WatchEvent.self)
        for event in events { continuation.yield(event) }
        return stream
    }

    public func reload() async throws -> String {
        reloads += 1
        return "configuration reloaded: 0 devices added, 0 removed"
    }

    public func metrics() async throws -> String { "# TYPE fleetd_devices_wanted gauge\nfleetd_devices_wanted \(devices.count)\n" }

    // A stand-in for the outbox: stored values with cursors 1...storedCount, named consumers and their cursors.

    /// How many values are stored (cursors 1...storedCount, all of the first device).
    public private(set) var storedCount: Int64 = 0
    /// Bytes of each stored value, so a test can size the replies of `Readings` and of a durable Watch.
    public private(set) var storedValueSize = 8
    /// Acknowledged cursors, as the outbox keeps them (never backwards).
    public private(set) var consumerCursors: [String: Int64] = [:]
    /// Every `Acknowledge` that reached the backend, in order.
    public private(set) var acknowledgements: [(consumer: String, cursor: Int64)] = []
    /// Every durable Watch that reached the backend, in order.
    public private(set) var durableWatches: [(since: Int64?, consumer: String?)] = []
    /// How many `Readings` calls were answered.
    public private(set) var readingsAnswered = 0

    public func setStored(count: Int64, valueSize: Int = 8) {
        storedCount = count
        storedValueSize = valueSize
    }

    public func setConsumerCursor(_ consumer: String, _ cursor: Int64) { consumerCursors[consumer] = cursor }

    func storedReading(_ cursor: Int64) -> StoredReadingInfo {
        StoredReadingInfo(cursor: cursor, deviceSequence: cursor, epoch: 0, characteristic: "2a19", delivery: .notification,
                          value: (0..<storedValueSize).map { UInt8(truncatingIfNeeded: Int(cursor) &+ $0) },
                          time: Date(timeIntervalSince1970: 1_700_000_000 + Double(cursor)), session: 1)
    }

    public func watchStored(_ reference: String?, since: Int64?, consumer: String?) async throws -> AsyncThrowingStream<WatchEvent, any Error> {
        durableWatches.append((since, consumer))
        let device = devices[0].id
        let start = (since ?? consumer.flatMap { consumerCursors[$0] } ?? 0) + 1
        let values = start <= storedCount ? (start...storedCount).map(storedReading) : []
        let source = ReplaySource(values: values, device: device)
        return AsyncThrowingStream(unfolding: { try await source.next() })
    }

    public func acknowledge(consumer: String, cursor: Int64) async throws -> Int64 {
        acknowledgements.append((consumer, cursor))
        guard cursor <= storedCount else { throw FleetControlError.invalidParameter("cursor") }
        let current = max(consumerCursors[consumer] ?? cursor, cursor)
        consumerCursors[consumer] = current
        return current
    }

    public func readings(_ reference: String, since: Int64?, limit: Int) async throws -> ReadingsPage {
        let device = devices[try index(of: reference)]
        let first = since.map { $0 + 1 } ?? max(1, storedCount - Int64(limit) + 1)
        let last = min(storedCount, first + Int64(limit) - 1)
        readingsAnswered += 1
        let readings = first <= last ? (first...last).map(storedReading) : []
        return ReadingsPage(device: device.id, readings: readings, next: readings.last?.cursor ?? (since ?? storedCount))
    }

    public static func lifecycleEvents(count: Int, device: String = "a1b2c3d4e5") -> [WatchEvent] {
        var events: [WatchEvent] = []
        for position in 0..<count {
            let kind: WatchEvent.Kind = position % 2 == 0
                ? .lifecycle(state: .ready)
                : .notification(characteristic: "2a19", value: [UInt8(position % 256)])
            let time = Date(timeIntervalSince1970: 1_700_000_000 + Double(position))
            events.append(WatchEvent(sequence: position + 1, time: time, device: device, kind: kind, text: "event \(position + 1)"))
        }
        return events
    }
}

/// Pulled one value at a time, as the daemon's follower is; after the last it waits for more that never come
/// (until the server cancels it when the client goes away).
private final class ReplaySource: @unchecked Sendable {
    // @unchecked: AsyncThrowingStream(unfolding:) never calls `next` concurrently.
    private let values: [StoredReadingInfo]
    private let device: String
    private var position = 0

    init(values: [StoredReadingInfo], device: String) {
        self.values = values
        self.device = device
    }

    func next() async throws -> WatchEvent? {
        guard position < values.count else {
            try await Task.sleep(for: .seconds(86_400))
            return nil
        }
        let reading = values[position]
        position += 1
        return WatchEvent(sequence: Int(reading.cursor), time: reading.time, device: device,
                          kind: .notification(characteristic: reading.characteristic, value: reading.value), text: "stored #\(reading.cursor)",
                          stored: StoredPlace(cursor: reading.cursor, deviceSequence: reading.deviceSequence, epoch: reading.epoch, session: reading.session,
                                              delivery: reading.delivery))
    }
}
