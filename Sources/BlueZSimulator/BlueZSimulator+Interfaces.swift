import FleetPlatform
import Synchronization

/// The method tables and property setters of BlueZ's interfaces, routed into the world model.
/// Method tables are shared by every object of an interface (handlers read the call's path); only
/// objects with writable properties get their own setters.
extension BlueZSimulator {
    func spec(for interface: BlueZInterface, path: String) -> DBusInterfaceSpec {
        switch interface {
        case .adapter: adapterSpec(path: path)
        case .device: deviceSpec(path: path)
        case .gattService: DBusInterfaceSpec(name: interface.rawValue)
        case .gattCharacteristic: characteristicSpec
        case .gattDescriptor: descriptorSpec
        case .agentManager: agentManagerSpec
        case .profileManager: Self.profileManagerSpec
        case .gattManager: Self.gattManagerSpec
        case .advertisingManager: Self.advertisingManagerSpec
        }
    }

    private func adapterIndex(_ call: DBusMethodCall) throws(DBusError) -> Int {
        guard let index = state.withLock({ $0.world.adapterIndex(path: call.path) }) else { throw BlueZError.doesNotExist.dbus }
        return index
    }

    /// The adapter a call was made on, looked up inside a world method.
    private static func adapter(_ call: DBusMethodCall, _ world: SimulatorWorld) throws(BlueZError) -> Int {
        guard let index = world.adapterIndex(path: call.path) else { throw BlueZError.doesNotExist }
        return index
    }

    /// A method the world model answers, at once or later through the reply token (Connect, ReadValue, …).
    func worldMethod(in inSignature: String? = "", out outSignature: String = "",
                             _ body: @escaping @Sendable (DBusMethodCall, inout SimulatorWorld, ReplyToken) throws(BlueZError) -> [BusEffect]) -> DBusMethod {
        // Deferred, not async: the reply must leave when the world gives it, in order with its signals.
        DBusMethod(in: inSignature, out: outSignature, deferred: { [weak self] call in
            guard let self else { return }
            self.perform(call) { (world, token) throws(BlueZError) in try body(call, &world, token) }
        })
    }

    private func adapterSpec(path: String) -> DBusInterfaceSpec {
        let methods: [String: DBusMethod] = [
            "StartDiscovery": worldMethod { call, world, token throws(BlueZError) in
                try world.startDiscovery(adapter: Self.adapter(call, world), sender: call.sender) + [.reply(token, .success([]))]
            },
            "StopDiscovery": worldMethod { call, world, token throws(BlueZError) in
                try world.stopDiscovery(adapter: Self.adapter(call, world), sender: call.sender) + [.reply(token, .success([]))]
            },
            "SetDiscoveryFilter": DBusMethod(in: "a{sv}") { [weak self] call in
                guard let self else { return [] }
                let a = try self.adapterIndex(call)
                let filter: DiscoveryFilter?
                do throws(BlueZError) { filter = try DiscoveryFilter.parse(call.arguments.first?.stringKeyed ?? [:]) } catch { throw error.dbus }
                self.withWorld { world -> [BusEffect] in world.setDiscoveryFilter(adapter: a, sender: call.sender, filter); return [] }
                return []
            },
            "GetDiscoveryFilters": DBusMethod(out: "as", immediate: { _ in [.strings(DiscoveryFilter.supportedKeys)] }),
            "RemoveDevice": worldMethod(in: "o") { call, world, token throws(BlueZError) in
                try world.removeDevice(adapter: Self.adapter(call, world), path: call.arguments.first?.string ?? "") + [.reply(token, .success([]))]
            },
            "ConnectDevice": DBusMethod(in: "a{sv}", immediate: { _ in throw BlueZError.notSupported.dbus }),
        ]
        let index = Int(path.dropFirst("/org/bluez/hci".count)) ?? 0
        let setters: [String: @Sendable (DBusValue) async throws -> Void] = [
            "Powered": { [weak self] value in
                guard let on = value.bool else { return }
                self?.withWorld { world in world.setPowered(adapter: index, on) }
            },
            "Alias": { [weak self] value in
                let alias = value.string ?? ""
                self?.withWorld { world in world.setAdapterAlias(adapter: index, alias) }
            },
            "Discoverable": { [weak self] value in self?.tree.update(path: path, interface: BlueZInterface.adapter.rawValue, ["Discoverable": value]) },
            "Pairable": { [weak self] value in self?.tree.update(path: path, interface: BlueZInterface.adapter.rawValue, ["Pairable": value]) },
        ]
        return DBusInterfaceSpec(name: BlueZInterface.adapter.rawValue, methods: methods, setters: setters,
                                 signals: [:])
    }

    private func deviceSpec(path: String) -> DBusInterfaceSpec {
        var spec = deviceMethods
        spec.setters = [
            "Trusted": { [weak self] value in self?.withWorld { world in world.setDeviceFlag(path: path, "Trusted", value.bool ?? false) } },
            "Blocked": { [weak self] value in self?.withWorld { world in world.setDeviceFlag(path: path, "Blocked", value.bool ?? false) } },
            "Alias": { [weak self] value in self?.withWorld { world in world.setDeviceAlias(path: path, value.string ?? "") } },
        ]
        return spec
    }

    var deviceMethods: DBusInterfaceSpec {
        sharedSpecs.withLock { cache in
            if let spec = cache[.device] { return spec }
            let notSupported = DBusMethod(in: "s", immediate: { _ in throw BlueZError.notSupported.dbus })
            let spec = DBusInterfaceSpec(name: BlueZInterface.device.rawValue, methods: [
                "Connect": worldMethod { call, world, token in world.connect(path: call.path, token: token) },
                "Disconnect": worldMethod { call, world, token in world.disconnect(path: call.path, token: token) },
                "ConnectProfile": notSupported,
                "DisconnectProfile": notSupported,
                "Pair": worldMethod { call, world, token in world.pair(path: call.path, sender: call.sender, token: token) },
                "CancelPairing": worldMethod { call, world, token in world.cancelPairing(path: call.path, token: token) },
            ])
            cache[.device] = spec
            return spec
        }
    }

    var characteristicSpec: DBusInterfaceSpec {
        sharedSpecs.withLock { cache in
            if let spec = cache[.gattCharacteristic] { return spec }
            let acquire = DBusMethod(in: "a{sv}", out: "hq", immediate: { _ in throw BlueZError.notSupported.dbus })
            let spec = DBusInterfaceSpec(name: BlueZInterface.gattCharacteristic.rawValue, methods: [
                "ReadValue": worldMethod(in: "a{sv}", out: "ay") { call, world, token throws(BlueZError) in
                    try world.readValue(path: call.path, options: call.arguments.first?.stringKeyed ?? [:], token: token)
                },
                "WriteValue": worldMethod(in: "aya{sv}") { call, world, token throws(BlueZError) in
                    let options = call.arguments.count > 1 ? call.arguments[1].stringKeyed ?? [:] : [:]
                    return try world.writeValue(path: call.path, value: call.arguments.first?.bytes ?? [], options: options, token: token)
                },
                "StartNotify": worldMethod { call, world, token throws(BlueZError) in
                    try world.startNotify(path: call.path, sender: call.sender, token: token)
                },
                "StopNotify": worldMethod { call, world, token throws(BlueZError) in
                    try world.stopNotify(path: call.path, sender: call.sender) + [.reply(token, .success([]))]
                },
                "AcquireWrite": acquire,
                "AcquireNotify": acquire,
            ])
            cache[.gattCharacteristic] = spec
            return spec
        }
    }

    var descriptorSpec: DBusInterfaceSpec {
        sharedSpecs.withLock { cache in
            if let spec = cache[.gattDescriptor] { return spec }
            let spec = DBusInterfaceSpec(name: BlueZInterface.gattDescriptor.rawValue, methods: [
                "ReadValue": worldMethod(in: "a{sv}", out: "ay") { call, world, token throws(BlueZError) in
                    try world.readValue(path: call.path, options: [:], token: token)
                },
                "WriteValue": worldMethod(in: "aya{sv}") { call, world, token throws(BlueZError) in
                    try world.writeValue(path: call.path, value: call.arguments.first?.bytes ?? [], options: [:], token: token)
                },
            ])
            cache[.gattDescriptor] = spec
            return spec
        }
    }

    static let profileManagerSpec = DBusInterfaceSpec(name: BlueZInterface.profileManager.rawValue, methods: [
        "RegisterProfile": DBusMethod(in: "osa{sv}", immediate: { _ in [] }),
        "UnregisterProfile": DBusMethod(in: "o", immediate: { _ in [] }),
    ])
    static let gattManagerSpec = DBusInterfaceSpec(name: BlueZInterface.gattManager.rawValue, methods: [
        "RegisterApplication": DBusMethod(in: "oa{sv}", immediate: { _ in [] }),
        "UnregisterApplication": DBusMethod(in: "o", immediate: { _ in [] }),
    ])
    static let advertisingManagerSpec = DBusInterfaceSpec(name: BlueZInterface.advertisingManager.rawValue, methods: [
        "RegisterAdvertisement": DBusMethod(in: "oa{sv}", immediate: { _ in [] }),
        "UnregisterAdvertisement": DBusMethod(in: "o", immediate: { _ in [] }),
    ])
}
