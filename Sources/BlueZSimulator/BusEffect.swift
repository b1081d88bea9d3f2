import FleetPlatform

/// Token the D-Bus layer hands the world for a call whose reply may come later (Connect, ReadValue, …).
public typealias ReplyToken = UInt64

/// BlueZ's D-Bus interfaces that the world model produces objects for.
public enum BlueZInterface: String, Sendable, Hashable, CaseIterable {
    case adapter = "org.bluez.Adapter1"
    case device = "org.bluez.Device1"
    case gattService = "org.bluez.GattService1"
    case gattCharacteristic = "org.bluez.GattCharacteristic1"
    case gattDescriptor = "org.bluez.GattDescriptor1"
    case gattManager = "org.bluez.GattManager1"
    case advertisingManager = "org.bluez.LEAdvertisingManager1"
    case agentManager = "org.bluez.AgentManager1"
    case profileManager = "org.bluez.ProfileManager1"
}

/// One interface of a new object with its initial properties.
public struct InterfaceProperties: Sendable, Hashable {
    public var interface: BlueZInterface
    public var properties: [String: DBusValue]
    public init(_ interface: BlueZInterface, _ properties: [String: DBusValue]) {
        self.interface = interface
        self.properties = properties
    }
}

/// The answer to a pending call.
public enum ReplyResult: Sendable, Hashable {
    case success([DBusValue])
    case failure(BlueZError)
}

/// What the world model asks the bus layer to do, in order: the pure model's only output.
public enum BusEffect: Sendable, Hashable {
    /// Export an object (InterfacesAdded).
    case addObject(path: String, interfaces: [InterfaceProperties])
    /// Remove an object and everything below it (InterfacesRemoved, deepest first).
    case removeObject(path: String)
    /// PropertiesChanged; `always` emits even when a value is unchanged (a repeated notification).
    case changeProperties(path: String, interface: BlueZInterface, changed: [String: DBusValue], invalidated: [String], always: Bool)
    /// Answer a pending call.
    case reply(ReplyToken, ReplyResult)
    /// Change properties with no PropertiesChanged at all, where bluetoothd updates a value silently.
    case setQuietly(path: String, interface: BlueZInterface, changed: [String: DBusValue])
    /// Call a registered agent (docs/simulator.md, Pairing).
    case callAgent(AgentCall)

    static func change(_ path: String, _ interface: BlueZInterface, _ changed: [String: DBusValue], always: Bool = false) -> BusEffect {
        .changeProperties(path: path, interface: interface, changed: changed, invalidated: [], always: always)
    }
}
