/// The shipped profiles a scenario names with `profile=`.
extension GattProfile {
    /// Heart Rate (0x180D): Measurement 0x2A37 notifying every second, Body Sensor Location 0x2A38 read (chest).
    public static let heartRate = GattServiceSpec(uuid: "180d", characteristics: [
        GattCharacteristicSpec(uuid: "2a37", flags: ["notify"], value: [0x00, 72], notifyInterval: .seconds(1), pattern: .heartRate(base: 72)),
        GattCharacteristicSpec(uuid: "2a38", flags: ["read"], value: [0x01]),
    ])

    /// Battery (0x180F): Battery Level 0x2A19, read and notify.
    public static let battery = GattServiceSpec(uuid: "180f", characteristics: [
        GattCharacteristicSpec(uuid: "2a19", flags: ["read", "notify"], value: [97], notifyInterval: .seconds(10), pattern: .batteryLevel(every: 6)),
    ])

    /// Glucose-meter-like (0x1808): a 0x2A18 measurement record of 64 bytes, longer than the default
    /// 23-byte ATT MTU, so that reading it takes several ATT requests (BlueZ does them as one long read,
    /// and ReadValue's `offset` reads the tail); plus the Glucose Feature 0x2A51.
    public static let glucose = GattServiceSpec(uuid: "1808", characteristics: [
        GattCharacteristicSpec(uuid: "2a18", flags: ["read", "notify"], value: (0..<64).map { UInt8($0) }, notifyInterval: .seconds(30)),
        GattCharacteristicSpec(uuid: "2a51", flags: ["read"], value: [0x03, 0x04]),
    ])

    /// A writable control point: the Record Access Control Point 0x2A52 (write request, indicate) under a
    /// vendor service, and a write-without-response command channel.
    public static let controlPoint = GattServiceSpec(uuid: "0000fe59-0000-1000-8000-00805f9b34fb", characteristics: [
        GattCharacteristicSpec(uuid: "2a52", flags: ["write", "indicate"], value: [], notifyInterval: nil),
        GattCharacteristicSpec(uuid: "8ec90002-f315-4f60-9fb8-838830daea50", flags: ["write-without-response", "read"], value: [0x00]),
    ])

    /// A numbered stream (vendor UUIDs): characteristic f1ee7001-… notifies every 250 ms with the notification's
    /// number, 4 bytes big-endian from 0, so a test knows exactly which of the values sent arrived.
    public static let sequence = GattServiceSpec(uuid: "f1ee7000-0000-4000-8000-00805f9b34fb", characteristics: [
        GattCharacteristicSpec(uuid: sequenceCharacteristic, flags: ["notify"], value: [0, 0, 0, 0], notifyInterval: .milliseconds(250),
                               pattern: .sequence),
    ])
    public static let sequenceCharacteristic = "f1ee7001-0000-4000-8000-00805f9b34fb"

    /// The service named in a scenario, or nil for an unknown name.
    public static func service(named name: String) -> GattServiceSpec? {
        switch name {
        case "heart-rate": heartRate
        case "battery": battery
        case "glucose": glucose
        case "control-point": controlPoint
        case "sequence": sequence
        default: standardServices[name]
        }
    }

    public static let serviceNames = ["heart-rate", "battery", "glucose", "control-point", "sequence"] + standardServiceNames
}
