/// A simulated BLE peripheral as it is on the air: what it advertises, how often, whether it rotates its
/// address, and the GATT database it serves once connected.
public struct PeripheralSpec: Sendable, Hashable {
    /// The scenario's name for it (used by scripted faults); defaults to the address.
    public var label: String
    public var address: BluetoothAddress
    public var addressType: AddressType
    public var name: String?
    /// Company identifier → bytes after it, as BlueZ's `ManufacturerData` a{qv}.
    public var manufacturerData: [UInt16: [UInt8]]
    /// 128-bit UUID → bytes, as BlueZ's `ServiceData` a{sv}.
    public var serviceData: [String: [UInt8]]
    /// Advertised service UUIDs (128-bit form).
    public var uuids: [String]
    public var txPower: Int16?
    /// Mean received signal strength; each advert jitters around it.
    public var rssi: Int16
    public var rssiJitter: Int16
    public var advertisingInterval: Duration
    /// When set, the device moves to a new resolvable private address this often.
    public var rotationInterval: Duration?
    public var connectable: Bool
    /// Whether it goes on advertising while it has a link. A single-link peripheral (most sensors and straps)
    /// stops once connected: the controller leaves the advertising state when it enters the connection. One
    /// that accepts several centrals goes on. Default true, this simulator's behaviour before the key existed.
    public var advertisesWhileLinked = true
    public var profile: GattProfile
    /// The ATT MTU that the exchange with this device settles on (BlueZ's `MTU` property).
    public var mtu: UInt16
    /// IO capability, passkey and what its characteristics require (defaults: none of it).
    public var security = PeripheralSecurity()
    /// The only adapter (index) in radio range; nil: every adapter hears it. Large benchmark fleets spread
    /// over rooms use it, so 10 000 devices are 10 000 Device1 objects rather than one per adapter each.
    public var heardBy: Int?
    /// A stored-record glucose meter's memory and RACP (`records=` and its keys); nil: the profile's periodic notifications.
    public var records: StoredRecordsSpec?

    public init(label: String? = nil, address: BluetoothAddress, addressType: AddressType = .public, name: String? = nil,
                manufacturerData: [UInt16: [UInt8]] = [:], serviceData: [String: [UInt8]] = [:], uuids: [String] = [],
                txPower: Int16? = nil, rssi: Int16 = -60, rssiJitter: Int16 = 3, advertisingInterval: Duration = .seconds(1),
                rotationInterval: Duration? = nil, connectable: Bool = true, profile: GattProfile = .empty, mtu: UInt16 = 247) {
        self.label = label ?? address.description
        self.address = address
        self.addressType = addressType
        self.name = name
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.uuids = uuids
        self.txPower = txPower
        self.rssi = rssi
        self.rssiJitter = rssiJitter
        self.advertisingInterval = advertisingInterval
        self.rotationInterval = rotationInterval
        self.connectable = connectable
        self.profile = profile
        self.mtu = mtu
    }
}

/// How a device answers Connect, settable per device as a fault.
public enum ConnectBehaviour: Sendable, Hashable {
    /// Connects after the usual latency, subject to the adapter's connection pool.
    case normal
    /// Never completes and never answers: the client's own timeout must fire (a Disconnect cancels it).
    case neverComplete
    /// Answers org.bluez.Error.InProgress "In Progress" at once.
    case inProgress
    /// Answers with this error after the usual latency.
    case fail(BlueZError)

    /// Parses `normal`, `never-complete`, `in-progress`, `fail [NAME [MESSAGE]]`.
    public init?(words: [String]) {
        switch words.first {
        case "normal": self = .normal
        case "never-complete": self = .neverComplete
        case "in-progress": self = .inProgress
        case "fail":
            let name = words.count > 1 && !words[1].isEmpty ? words[1] : "org.bluez.Error.Failed"
            let message = words.count > 2 ? words[2...].joined(separator: " ") : BlueZError.leConnectionAbortByLocal
            self = .fail(BlueZError(name: name, message: message.isEmpty ? BlueZError.leConnectionAbortByLocal : message))
        default: return nil
        }
    }
}
