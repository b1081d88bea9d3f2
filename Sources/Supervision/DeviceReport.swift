/// What BlueZ says a Device1 object advertises: its address, name, RSSI and advertising data, as the state
/// machine takes it. Link state is not part of it: that comes as its own `TreeChange`.
public struct DeviceReport: Sendable, Hashable {
    public var path: DevicePath
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
    /// BlueZ's `Bonded`: this adapter holds keys for the device.
    public var bonded: Bool
    /// Whether this report is news from the peripheral's radio: BlueZ created the object from an advert, or an
    /// advert changed what it holds (RSSI, advertised data). Not for a report of what the object already held
    /// (the tree read again, a reload): BlueZ keeps an RSSI long after the peripheral left the address.
    public var heard: Bool

    public init(path: DevicePath, address: String, addressType: String, name: String? = nil, rssi: Int? = nil,
                manufacturerData: [UInt16: [UInt8]] = [:], serviceData: [String: [UInt8]] = [:], bonded: Bool = false,
                heard: Bool = false) {
        self.path = path
        self.address = address
        self.addressType = addressType
        self.name = name
        self.rssi = rssi
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.bonded = bonded
        self.heard = heard
    }

    public var adapter: AdapterID { path.adapter }
}
