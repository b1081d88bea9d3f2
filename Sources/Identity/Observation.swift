/// What the daemon saw of one peripheral at one moment: BlueZ's Device1 properties that bear on identity.
/// The moment itself is the `now` passed to `IdentityResolver.resolve`.
public struct Observation: Hashable, Sendable {
    public var address: BluetoothAddress
    public var manufacturerData: [ManufacturerData]
    public var serviceData: [ServiceData]
    public var name: String?
    public var rssi: Int16?

    public init(
        address: BluetoothAddress, manufacturerData: [ManufacturerData] = [], serviceData: [ServiceData] = [],
        name: String? = nil, rssi: Int16? = nil
    ) {
        self.address = address
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.name = name
        self.rssi = rssi
    }

    /// From BlueZ's property forms: `Address` and `AddressType` strings, `ManufacturerData` as `a{qv}`
    /// (company id → bytes after it) and `ServiceData` as `a{sv}` (UUID string → bytes). A malformed address,
    /// address type or UUID key is a typed error.
    public init(
        bluezAddress: String, addressType: String, manufacturerData: [UInt16: [UInt8]] = [:],
        serviceData: [String: [UInt8]] = [:], name: String? = nil, rssi: Int16? = nil
    ) throws(IdentityError) {
        let address = try BluetoothAddress(bluezAddress: bluezAddress, addressType: addressType)
        var services: [ServiceData] = []
        for (uuid, value) in serviceData.sorted(by: { $0.key < $1.key }) {
            services.append(try ServiceData(uuid: uuid, value: value))
        }
        // Sorted so that a rule that could match two fields always picks the same one.
        let mfr = manufacturerData.sorted { $0.key < $1.key }.map { ManufacturerData(companyID: $0.key, value: $0.value) }
        self.init(address: address, manufacturerData: mfr, serviceData: services, name: name, rssi: rssi)
    }
}
