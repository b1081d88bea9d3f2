import FleetPlatform
import Supervision

/// BlueZ's D-Bus names (the API of bluetoothd 5.66, doc/*-api.txt).
enum BlueZName {
    static let service = "org.bluez"
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let gattService = "org.bluez.GattService1"
    static let characteristic = "org.bluez.GattCharacteristic1"
    static let properties = "org.freedesktop.DBus.Properties"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
}

/// An adapter (`/org/bluez/hciN`) as read from its Adapter1 properties.
public struct AdapterObject: Sendable, Hashable {
    public var path: String
    public var address: String
    public var powered: Bool
    public var discovering: Bool

    public var id: AdapterID { AdapterID(objectPath: path) }
}

/// A Device1 object: one address as BlueZ sees it under one adapter. Only what fleetd reads of it is kept
/// (not UUIDs nor Paired): the tree holds one per object BlueZ has, 25 000 in FleetBench (issue 18).
public struct DeviceObject: Sendable, Hashable {
    /// Its object path, with the adapter it is under. A `let`: `DeviceObjectTable` files the object by it.
    public let devicePath: DevicePath
    public var address: String
    public var addressType: String
    public var name: String?
    public var alias: String?
    public var rssi: Int?
    public var connected: Bool
    public var servicesResolved: Bool
    public var bonded: Bool
    /// Company ID → the bytes after it, as BlueZ's a{qv} ManufacturerData.
    public var manufacturerData: [UInt16: [UInt8]]
    /// Service UUID → bytes, as BlueZ's a{sv} ServiceData.
    public var serviceData: [String: [UInt8]]

    public var path: String { devicePath.rawValue }

    /// The object as the state machine's input: what it holds, not news from the peripheral.
    public var report: DeviceReport { report(heard: false) }

    /// The object as the state machine's input; `heard` when the signal that brought it carried an advert.
    public func report(heard: Bool) -> DeviceReport {
        DeviceReport(path: devicePath, address: address, addressType: addressType, name: alias ?? name, rssi: rssi,
                     manufacturerData: manufacturerData, serviceData: serviceData, bonded: bonded, heard: heard)
    }

    /// How far its link is, as the state machine takes it.
    public var linkState: LinkState { connected ? (servicesResolved ? .resolved : .up) : .down }

    /// Whether the property carries link state; every other one is news of what the device advertises or is.
    static func isLinkProperty(_ name: String) -> Bool {
        switch name {
        case "Connected", "ServicesResolved": true
        default: false
        }
    }

    /// Whether BlueZ changes the property only on an advert (5.66 device.c: device_set_rssi_with_delta,
    /// device_set_manufacturer_data, device_set_service_data, device_set_tx_power).
    static func isAdvertProperty(_ name: String) -> Bool {
        switch name {
        case "RSSI", "ManufacturerData", "ServiceData", "TxPower": true
        default: false
        }
    }
}

/// A GattCharacteristic1 object under a device.
public struct CharacteristicObject: Sendable, Hashable {
    public var path: String
    public var uuid: String
    public var device: String
    public var flags: [String]
    public var notifying: Bool
    public var mtu: Int?
}

/// A property BlueZ sent with a type other than the documented one; reported, never trapped on.
public struct MalformedProperty: Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var interface: String
    public var property: String
    public var got: String
    public var description: String { "\(interface).\(property) on \(path) has type '\(got)', not the documented one" }
}

/// Where a reader finds properties: an object's whole set (InterfacesAdded, GetManagedObjects) or what a
/// PropertiesChanged carries.
protocol BlueZPropertySource {
    subscript(name: String) -> DBusValue? { get }
}

extension Dictionary: BlueZPropertySource where Key == String, Value == DBusValue {}

extension PropertyChanges: BlueZPropertySource {}

/// Reading BlueZ properties into typed objects. Missing optional properties are nil; a property with the wrong
/// type is skipped and reported through `problems`.
struct BlueZPropertyReader<Properties: BlueZPropertySource> {
    let path: String
    let interface: String
    let properties: Properties
    var problems: [MalformedProperty] = []

    mutating func string(_ key: String) -> String? { read(key) { $0.string } }
    mutating func bool(_ key: String) -> Bool? { read(key) { $0.bool } }
    mutating func int(_ key: String) -> Int? { read(key) { $0.integer.map(Int.init) } }
    mutating func strings(_ key: String) -> [String]? { read(key) { $0.stringArray } }
    mutating func bytes(_ key: String) -> [UInt8]? { read(key) { $0.bytes } }

    mutating func manufacturerData(_ key: String) -> [UInt16: [UInt8]]? {
        read(key) { value in
            guard let dict = value.uint16Keyed else { return nil }
            var out: [UInt16: [UInt8]] = [:]
            for (company, bytes) in dict {
                guard let b = bytes.bytes else { return nil }
                out[company] = b
            }
            return out
        }
    }

    mutating func serviceData(_ key: String) -> [String: [UInt8]]? {
        read(key) { value in
            guard let dict = value.stringKeyed else { return nil }
            var out: [String: [UInt8]] = [:]
            for (uuid, bytes) in dict {
                guard let b = bytes.bytes else { return nil }
                out[uuid.lowercased()] = b
            }
            return out
        }
    }

    private mutating func read<T>(_ key: String, _ convert: (DBusValue) -> T?) -> T? {
        guard let raw = properties[key] else { return nil }
        if let value = convert(raw.unwrapped) { return value }
        problems.append(MalformedProperty(path: path, interface: interface, property: key, got: raw.unwrapped.type.description))
        return nil
    }
}

extension AdapterObject {
    static func read(path: String, _ properties: [String: DBusValue], problems: inout [MalformedProperty]) -> AdapterObject {
        var r = BlueZPropertyReader(path: path, interface: BlueZName.adapter, properties: properties)
        let adapter = AdapterObject(path: path, address: r.string("Address") ?? "", powered: r.bool("Powered") ?? false,
                                    discovering: r.bool("Discovering") ?? false)
        problems += r.problems
        return adapter
    }

    mutating func apply(_ changed: PropertyChanges, problems: inout [MalformedProperty]) {
        var r = BlueZPropertyReader(path: path, interface: BlueZName.adapter, properties: changed)
        if let v = r.bool("Powered") { powered = v }
        if let v = r.bool("Discovering") { discovering = v }
        if let v = r.string("Address") { address = v }
        problems += r.problems
    }
}

extension DeviceObject {
    static func read(path: String, _ properties: [String: DBusValue], problems: inout [MalformedProperty]) -> DeviceObject? {
        var r = BlueZPropertyReader(path: path, interface: BlueZName.device, properties: properties)
        defer { problems += r.problems }
        guard let address = r.string("Address") else { return nil }
        let adapter = AdapterID(objectPath: r.string("Adapter") ?? BlueZPath.parent(of: path))
        return DeviceObject(
            devicePath: DevicePath(path, adapter: adapter), address: address, addressType: r.string("AddressType") ?? "public",
            name: r.string("Name"), alias: r.string("Alias"), rssi: r.int("RSSI"), connected: r.bool("Connected") ?? false,
            servicesResolved: r.bool("ServicesResolved") ?? false, bonded: r.bool("Bonded") ?? false,
            manufacturerData: r.manufacturerData("ManufacturerData") ?? [:], serviceData: r.serviceData("ServiceData") ?? [:])
    }

    /// Applies a PropertiesChanged. Walks what changed (one property, usually RSSI) rather than looking up
    /// each property fleetd keeps: an advert then costs one lookup, not ten (issue 18).
    mutating func apply(_ changed: PropertyChanges, invalidated: [String], problems: inout [MalformedProperty]) {
        var r = BlueZPropertyReader(path: path, interface: BlueZName.device, properties: changed)
        for (key, _) in changed {
            switch key {
            case "Name": if let v = r.string(key) { name = v }
            case "Alias": if let v = r.string(key) { alias = v }
            case "RSSI": if let v = r.int(key) { rssi = v }
            case "ManufacturerData": if let v = r.manufacturerData(key) { manufacturerData = v }
            case "ServiceData": if let v = r.serviceData(key) { serviceData = v }
            case "Connected": if let v = r.bool(key) { connected = v }
            case "ServicesResolved": if let v = r.bool(key) { servicesResolved = v }
            case "Bonded": if let v = r.bool(key) { bonded = v }
            case "Address": if let v = r.string(key) { address = v }
            case "AddressType": if let v = r.string(key) { addressType = v }
            default: break
            }
        }
        if invalidated.contains("RSSI") { rssi = nil }
        problems += r.problems
    }
}

extension CharacteristicObject {
    static func read(path: String, _ properties: [String: DBusValue], problems: inout [MalformedProperty]) -> CharacteristicObject? {
        var r = BlueZPropertyReader(path: path, interface: BlueZName.characteristic, properties: properties)
        defer { problems += r.problems }
        guard let uuid = r.string("UUID") else { return nil }
        return CharacteristicObject(path: path, uuid: uuid.lowercased(), device: BlueZPath.device(ofGATTObject: path), flags: r.strings("Flags") ?? [],
                                    notifying: r.bool("Notifying") ?? false, mtu: r.int("MTU"))
    }
}
