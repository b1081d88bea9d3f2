import FleetPlatform
import Policy

/// bluetoothd's D-Bus API as fleetd uses it: the object tree, its change events, discovery, links and GATT.
/// Every call has a bounded time, and every failure is a `BlueZError` with BlueZ's name and message.
/// It speaks only the documented API, so it works the same against the simulator and real bluetoothd.
public final class BlueZClient: Sendable {
    public let bus: DBusConnection
    /// Time allowed for calls that BlueZ answers at once (properties, discovery, GATT).
    public let callTimeout: Duration

    public init(bus: DBusConnection, callTimeout: Duration = .seconds(10)) {
        self.bus = bus
        self.callTimeout = callTimeout
    }

    // MARK: Object tree

    /// Every signal from bluetoothd in arrival order (one match rule, so object and property changes never
    /// overtake each other), plus bluetoothd leaving and reappearing on the bus, in batches: each element is
    /// what one read turn of the D-Bus thread brought, already classified there, so a flood costs one hand-off
    /// per batch rather than two per signal.
    public func eventBatches() async throws(BlueZError) -> AsyncStream<[BlueZEvent]> {
        let rules = [
            DBusMatchRule(sender: BlueZName.service),
            DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: BlueZName.service),
        ]
        do {
            return try await bus.signalBatches(matching: rules) { message in
                if message.member == "NameOwnerChanged", message.interface == "org.freedesktop.DBus" {
                    guard message.body.count == 3, case .string(let newOwner) = message.body[2] else { return nil }
                    return newOwner.isEmpty ? .serviceLost : .serviceAppeared
                }
                return BlueZEvent.from(message)
            }
        } catch {
            throw BlueZError(error, operation: "subscribe", path: "/")
        }
    }

    /// `eventBatches()` one event at a time, for consumers that are not on the hot path.
    public func events() async throws(BlueZError) -> AsyncStream<BlueZEvent> {
        let batches = try await eventBatches()
        let (stream, continuation) = AsyncStream<BlueZEvent>.makeStream()
        let task = Task {
            for await batch in batches {
                for event in batch { continuation.yield(event) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// GetManagedObjects, read into typed adapters, devices and characteristics.
    public func objects() async throws(BlueZError) -> BlueZTree {
        let body: [DBusValue]
        do {
            body = try await bus.call(destination: BlueZName.service, path: "/", interface: BlueZName.objectManager,
                                      member: "GetManagedObjects", timeout: callTimeout, expecting: "a{oa{sa{sv}}}")
        } catch {
            throw BlueZError(error, operation: "GetManagedObjects", path: "/")
        }
        var tree = BlueZTree()
        for entry in body[0].dictEntries ?? [] {
            guard case .objectPath(let path) = entry.key, let interfaces = entry.value.stringKeyed else { continue }
            tree.apply(.interfacesAdded(path: path, interfaces: interfaces.mapValues { $0.stringKeyed ?? [:] }))
        }
        return tree
    }

    // MARK: Adapter

    /// SetDiscoveryFilter: LE only, the given service UUIDs, and every advert reported when identity rules
    /// need each manufacturer-data change (DuplicateData).
    public func setDiscoveryFilter(adapter: String, uuids: [String], duplicateData: Bool) async throws(BlueZError) {
        var filter: [String: DBusValue] = ["Transport": .string("le"), "DuplicateData": .boolean(duplicateData)]
        if !uuids.isEmpty { filter["UUIDs"] = .strings(uuids) }
        try await invoke("SetDiscoveryFilter", adapter, BlueZName.adapter, "SetDiscoveryFilter", [.vardict(filter)])
    }

    public func startDiscovery(adapter: String) async throws(BlueZError) {
        try await invoke("StartDiscovery", adapter, BlueZName.adapter, "StartDiscovery", [])
    }

    public func removeDevice(adapter: String, device: String) async throws(BlueZError) {
        try await invoke("RemoveDevice", adapter, BlueZName.adapter, "RemoveDevice", [.objectPath(device)])
    }

    // MARK: Device

    /// Device1.Connect, bounded by `timeout` (the policy's connect timeout; BlueZ's own can be far longer).
    public func connect(device: String, timeout: Duration) async throws(BlueZError) {
        try await invoke("Connect", device, BlueZName.device, "Connect", [], timeout: timeout)
    }

    public func disconnect(device: String) async throws(BlueZError) {
        try await invoke("Disconnect", device, BlueZName.device, "Disconnect", [])
    }

    // MARK: GATT

    /// One ReadValue at `offset`.
    public func read(characteristic: String, offset: Int = 0) async throws(BlueZError) -> [UInt8] {
        var options: [String: DBusValue] = [:]
        if offset > 0 { options["offset"] = .uint16(UInt16(clamping: offset)) }
        let body: [DBusValue]
        do {
            body = try await bus.call(destination: BlueZName.service, path: characteristic, interface: BlueZName.characteristic,
                                      member: "ReadValue", arguments: [.vardict(options)], timeout: callTimeout, expecting: "ay")
        } catch {
            throw BlueZError(error, operation: "ReadValue", path: characteristic)
        }
        return body[0].bytes ?? []
    }

    /// Reads a value that may be longer than one ATT PDU: offset reads until a chunk is shorter than a
    /// full read response (ATT_MTU − 1 bytes), up to the 512-byte attribute maximum.
    public func readLong(characteristic: String, mtu: Int?) async throws(BlueZError) -> [UInt8] {
        let full = max((mtu ?? 23) - 1, 1)
        var value = try await read(characteristic: characteristic)
        var chunk = value.count
        while chunk == full, value.count < 512 {
            let next: [UInt8]
            do {
                next = try await read(characteristic: characteristic, offset: value.count)
            } catch where error.name == "org.bluez.Error.InvalidOffset" {
                break
            }
            value += next
            chunk = next.count
        }
        return value
    }

    /// WriteValue as a request (acknowledged) or a command (no response). A command must fit one PDU
    /// (ATT_MTU − 3 bytes); a longer request is left to BlueZ's long write.
    public func write(characteristic: String, value: [UInt8], withResponse: Bool, mtu: Int?) async throws(BlueZError) {
        if !withResponse, let mtu, value.count > mtu - 3 {
            throw BlueZError(operation: "WriteValue", path: characteristic, name: "org.bluez.Error.InvalidValueLength",
                             message: "\(value.count) bytes do not fit one write command (MTU \(mtu) allows \(mtu - 3))")
        }
        try await invoke("WriteValue", characteristic, BlueZName.characteristic, "WriteValue",
                         [.bytes(value), .vardict(["type": .string(withResponse ? "request" : "command")])])
    }

    public func startNotify(characteristic: String) async throws(BlueZError) {
        try await invoke("StartNotify", characteristic, BlueZName.characteristic, "StartNotify", [])
    }

    private func invoke(_ operation: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue],
                        timeout: Duration? = nil) async throws(BlueZError) {
        do {
            _ = try await bus.call(destination: BlueZName.service, path: path, interface: interface, member: member,
                                   arguments: arguments, timeout: timeout ?? callTimeout)
        } catch {
            throw BlueZError(error, operation: operation, path: path)
        }
    }
}
