import FleetPlatform

/// Where the fidelity scenarios run: the simulator on a private bus, or real bluetoothd on btvirt
/// controllers in the QEMU guest. A scenario's steps that need the radio side of the world (a link lost,
/// an address changed, a peripheral appearing) go through this protocol; everything else a scenario
/// does is the same code on both.
public protocol FidelityBackend: AnyObject, Sendable {
    /// `sim` or `bluez`.
    var name: String { get }
    /// The bus BlueZ (or the simulator) is on, for the D-Bus-level checks.
    var bus: DBusConnection { get }
    /// The bus address to give fleetd; nil means the system bus.
    var fleetdBusAddress: String? { get }
    /// How much slower than the simulator this backend is, as a factor on every deadline.
    var patience: Int { get }

    /// Puts the scenario's world in place (every peripheral on the air but those listed as starting off it,
    /// no links, no Device1 objects left on fleetd's adapters) and returns a working directory for fleetd.
    func begin(_ scenario: FidelityScenario) async throws -> String
    /// Tears the scenario's world down again; `failed` keeps diagnostics where the backend can.
    func end(_ scenario: FidelityScenario, failed: Bool) async

    /// The peripheral's current address.
    func address(of peripheral: FidelityPeripheral) async throws -> String
    /// The link to the peripheral is lost from the peripheral's side (out of range, battery pulled).
    func dropLink(_ peripheral: FidelityPeripheral) async throws
    /// The peripheral comes back from a power cycle advertising from a new static random address, with the
    /// same manufacturer data; its link, if any, is lost on the way.
    func changeAddress(_ peripheral: FidelityPeripheral) async throws
    /// A peripheral that started off the air begins to advertise.
    func putOnAir(_ peripheral: FidelityPeripheral) async throws
    /// The peripheral forgets every bond it holds (a factory reset, or re-registered to a phone), and its
    /// link, if any, is lost on the way (as the guest's peripheral does: RemoveDevice of the central).
    func forgetBonds(_ peripheral: FidelityPeripheral) async throws
}

/// What BlueZ shows of one Device1 object under fleetd's adapter.
public struct FidelityDeviceObject: Sendable, Hashable {
    public var path: String
    public var adapter: String
    public var address: String
    public var addressType: String
    /// Company 0xffff's bytes, as hex.
    public var serial: String?
    public var connected: Bool
    public var servicesResolved: Bool
    public var rssi: Int?
    public var paired: Bool
    public var bonded: Bool
}

extension FidelityBackend {
    /// The adapters fleetd may use on both backends: hci0, and the second central of two-link scenarios.
    public var centralAdapters: [String] { ["/org/bluez/hci0", "/org/bluez/hci\(FidelityScenario.secondCentral)"] }

    /// Every Device1 object under a central adapter, from ObjectManager.
    public func centralDevices() async throws -> [FidelityDeviceObject] {
        try await managedObjects().compactMap { path, interfaces in
            guard let adapter = centralAdapters.first(where: { path.hasPrefix($0 + "/") }),
                  let device = interfaces["org.bluez.Device1"] else { return nil }
            let serial = device["ManufacturerData"]?.uint16Keyed?[0xffff]?.unwrapped.bytes.map(Hex.string)
            return FidelityDeviceObject(path: path, adapter: adapter, address: device["Address"]?.unwrapped.string ?? "?",
                                        addressType: device["AddressType"]?.unwrapped.string ?? "?", serial: serial,
                                        connected: device["Connected"]?.unwrapped.bool ?? false,
                                        servicesResolved: device["ServicesResolved"]?.unwrapped.bool ?? false,
                                        rssi: device["RSSI"]?.unwrapped.integer.map { Int($0) },
                                        paired: device["Paired"]?.unwrapped.bool ?? false, bonded: device["Bonded"]?.unwrapped.bool ?? false)
        }.sorted { $0.path < $1.path }
    }

    /// The GattCharacteristic1 object of `uuid` (lowercase 128-bit) under a device object.
    public func characteristicPath(device: String, uuid: String) async throws -> String? {
        try await managedObjects().first { path, interfaces in
            path.hasPrefix(device + "/") && interfaces["org.bluez.GattCharacteristic1"]?["UUID"]?.unwrapped.string?.lowercased() == uuid
        }?.key
    }

    /// The `Notifying` property of a characteristic object (false when absent).
    public func notifying(characteristic: String) async throws -> Bool {
        try await managedObjects()[characteristic]?["org.bluez.GattCharacteristic1"]?["Notifying"]?.unwrapped.bool ?? false
    }

    /// ReadValue straight on BlueZ's object, at an offset (what fleetctl cannot ask for).
    public func readValue(characteristic: String, offset: UInt16) async throws -> [UInt8] {
        let body = try await bus.call(destination: "org.bluez", path: characteristic, interface: "org.bluez.GattCharacteristic1",
                                      member: "ReadValue", arguments: [.vardict(offset == 0 ? [:] : ["offset": .uint16(offset)])],
                                      expecting: "ay")
        return body.first?.bytes ?? []
    }

    /// GetManagedObjects of org.bluez, as path → interface → property → value.
    public func managedObjects() async throws -> [String: [String: [String: DBusValue]]] {
        let body = try await bus.call(destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                                      member: "GetManagedObjects", expecting: "a{oa{sa{sv}}}")
        var out: [String: [String: [String: DBusValue]]] = [:]
        for entry in body.first?.dictEntries ?? [] {
            guard let path = entry.key.string else { continue }
            var interfaces: [String: [String: DBusValue]] = [:]
            for (name, properties) in entry.value.stringKeyed ?? [:] { interfaces[name] = properties.stringKeyed ?? [:] }
            out[path] = interfaces
        }
        return out
    }
}

/// Lowercase hex of bytes, for comparing values with what fleetctl prints.
enum Hex {
    static func string(_ bytes: [UInt8]) -> String {
        bytes.map { let s = String($0, radix: 16); return s.count == 1 ? "0" + s : s }.joined()
    }
}
