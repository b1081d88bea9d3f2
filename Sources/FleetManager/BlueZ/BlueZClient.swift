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

    /// Every signal from bluetoothd, and bluetoothd leaving and reappearing on the bus, in arrival order (one
    /// subscription, so object changes, property changes and the name's owner never overtake each other), in
    /// batches: each element is what one batch window of the D-Bus thread gathered, already classified there, so a
    /// flood costs one hand-off per batch rather than two per signal (issue 18). Each event carries its
    /// arrival number, so that a reader can tell how far it has got (`BlueZEvents.lastDelivered`).
    public func events() async throws(BlueZError) -> BlueZEvents {
        let rules = [
            DBusMatchRule(sender: BlueZName.service),
            DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: BlueZName.service),
        ]
        do {
            let batches = try await bus.signalBatches(matching: rules) { message in
                BlueZEvent.from(message).map { BlueZSignal(event: $0, arrival: message.arrival) }
            }
            return BlueZEvents(batches: batches)
        } catch {
            throw BlueZError(error, operation: "subscribe", path: "/")
        }
    }

    /// GetManagedObjects, read into typed adapters, devices and characteristics.
    /// The tree's `readAt` is the reply's arrival: signals that arrived before it are already in the tree.
    public func objects() async throws(BlueZError) -> BlueZTree {
        let body: [DBusValue]
        let reply: DBusMessage
        do {
            reply = try await bus.call(destination: BlueZName.service, path: "/", interface: BlueZName.objectManager,
                                       member: "GetManagedObjects", timeout: callTimeout)
            body = try reply.body(signature: "a{oa{sa{sv}}}")
        } catch {
            throw BlueZError(error, operation: "GetManagedObjects", path: "/")
        }
        var tree = BlueZTree()
        for entry in body[0].dictEntries ?? [] {
            guard case .objectPath(let path) = entry.key, let interfaces = entry.value.stringKeyed else { continue }
            tree.apply(.interfacesAdded(path: path, interfaces: interfaces.mapValues { $0.stringKeyed ?? [:] }))
        }
        tree.readAt = reply.arrival
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

    public func stopNotify(characteristic: String) async throws(BlueZError) {
        try await invoke("StopNotify", characteristic, BlueZName.characteristic, "StopNotify", [])
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
