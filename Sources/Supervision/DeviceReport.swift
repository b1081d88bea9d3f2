/// What BlueZ reports of one Device1 object (one address under one adapter), as the state machine takes it.
/// The driver reads it from the BlueZ client's copy of the object, so the machine never sees a D-Bus type.
public struct DeviceReport: Sendable, Hashable {
    public var path: String
    /// The adapter's object path (`/org/bluez/hci0`).
    public var adapter: String
    public var address: String
    /// BlueZ's `AddressType`: `public` or `random`.
    public var addressType: String
    /// The name to show: BlueZ's alias, else the advertised name.
    public var name: String?
    public var rssi: Int?
    /// Company ID → the bytes after it, as advertised.
    public var manufacturerData: [UInt16: [UInt8]]
    /// Service UUID (lowercase) → bytes, as advertised.
    public var serviceData: [String: [UInt8]]
    public var connected: Bool
    public var servicesResolved: Bool

    public init(path: String, adapter: String, address: String, addressType: String, name: String? = nil, rssi: Int? = nil,
                manufacturerData: [UInt16: [UInt8]] = [:], serviceData: [String: [UInt8]] = [:], connected: Bool = false,
                servicesResolved: Bool = false) {
        self.path = path
        self.adapter = adapter
        self.address = address
        self.addressType = addressType
        self.name = name
        self.rssi = rssi
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.connected = connected
        self.servicesResolved = servicesResolved
    }
}
