import Supervision

extension DeviceObject {
    /// The object as the state machine's input: the driver's translation of the BlueZ client's value.
    var report: DeviceReport {
        DeviceReport(path: path, adapter: adapter, address: address, addressType: addressType, name: alias ?? name, rssi: rssi,
                     manufacturerData: manufacturerData, serviceData: serviceData, connected: connected,
                     servicesResolved: servicesResolved)
    }
}
