@testable import Supervision
import Identity
import Policy

/// The test fleet's fixed facts: adapter paths, characteristic UUIDs, the identity rule (company 0x0059,
/// serial in payload bytes 2..<8) and machines built from them.
enum FleetFixture {
    static let hci0 = AdapterID(name: "hci0")
    static let hci1 = AdapterID(name: "hci1")
    static let heartRate = "00002a37-0000-1000-8000-00805f9b34fb"
    static let battery = "00002a19-0000-1000-8000-00805f9b34fb"
    static let company: UInt16 = 0x0059

    static func rules() throws -> [IdentityRule] {
        [.manufacturerData(try ManufacturerDataRule(companyID: company, byteRange: 2..<8))]
    }

    /// Settings with a small pool, so pool-full cases need only a few devices.
    static func settings(capacity: Int = 5, adapters: [String] = [], policy: PolicyConfiguration = PolicyConfiguration()) -> FleetStateMachine.Settings {
        FleetStateMachine.Settings(policy: policy, defaultCapacity: capacity, adapters: adapters)
    }

    /// Normal devices back off by at least `floor` (no jitter below it), so a test can let time pass
    /// between a failure and its retry.
    static func slowRetries(floor: Duration = .seconds(10)) -> PolicyConfiguration {
        var policy = PolicyConfiguration()
        policy.normal.backoff.base = floor
        policy.normal.backoff.floor = floor
        return policy
    }

    static func machine(_ wanted: [WantedDevice], settings: FleetStateMachine.Settings = settings(), seed: UInt64 = 0x5EED) throws -> FleetStateMachine {
        try FleetStateMachine(settings: settings, rules: rules(), wanted: wanted, seed: seed)
    }

    /// A Connect error reply as BlueZ 5.66 sends it.
    static func connectError(_ path: DevicePath, _ name: String, _ message: String = "") -> BlueZError {
        BlueZError(operation: "Connect", path: path.rawValue, name: name, message: message)
    }

    static func abortByLocal(_ path: DevicePath) -> BlueZError {
        connectError(path, "org.bluez.Error.Failed", "le-connection-abort-by-local")
    }

    /// No reply within the connect timeout (the driver's bounded call gave up).
    static func connectTimeout(_ path: DevicePath) -> BlueZError {
        BlueZError(operation: "Connect", path: path.rawValue, name: "org.freedesktop.DBus.Error.NoReply", message: "timed out", timedOut: true)
    }
}

/// One physical peripheral of the test fleet: it advertises `serial` under company 0x0059, from whichever
/// address it currently uses.
struct Peripheral: Sendable {
    var serial: [UInt8]
    var name: String?

    /// A peripheral whose serial and addresses derive from `number`, so fixtures never collide.
    init(_ number: UInt8, name: String? = nil) {
        serial = [0x0A, 0x1B, 0x2C, 0x3D, 0x4E, number]
        self.name = name
    }

    /// The fleet identity id the machine must give it.
    var id: DeviceID {
        guard let key = IdentityKey(serial) else { return DeviceID("invalid-serial") }
        return DeviceID(FleetIdentity.manufacturer(companyID: FleetFixture.company, key: key).stableID)
    }

    func wanted(_ policyClass: PolicyClass = .normal, subscribe: [String] = [FleetFixture.heartRate],
                read: [String] = [FleetFixture.battery]) -> WantedDevice {
        WantedDevice(id: id, name: name, policyClass: policyClass, subscribe: subscribe, readOnConnect: read)
    }

    /// The `rotation`-th resolvable private address of this peripheral (top bits 01).
    func address(_ rotation: UInt8 = 0) -> String {
        let bytes: [UInt8] = [0x40 | (rotation & 0x3F), 0x11, 0x22, 0x33, serial[5], 0x60 &+ rotation]
        return bytes.map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined(separator: ":")
    }

    /// BlueZ's object path for `address` under `adapter`.
    func path(_ rotation: UInt8 = 0, adapter: AdapterID = FleetFixture.hci0) -> DevicePath {
        DevicePath("/org/bluez/\(adapter.name)/dev_" + address(rotation).replacingColons(), adapter: adapter)
    }

    /// What BlueZ reports of this peripheral's Device1 object at one of its addresses: with an RSSI, an advert
    /// (`heard`); without, what the object holds.
    func object(_ rotation: UInt8 = 0, adapter: AdapterID = FleetFixture.hci0, rssi: Int? = -60) -> DeviceReport {
        DeviceReport(path: path(rotation, adapter: adapter), address: address(rotation), addressType: "random",
                     name: name, rssi: rssi, manufacturerData: [FleetFixture.company: serial], heard: rssi != nil)
    }
}

extension String {
    fileprivate func replacingColons() -> String { String(map { $0 == ":" ? "_" : $0 }) }
}
