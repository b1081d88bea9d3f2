/// A profile laid out in ATT handles the way a peripheral's database would be: each service takes a
/// handle, each characteristic a declaration and a value handle, each descriptor one more. BlueZ names
/// objects after these (`service000a/char000b/desc000d`).
struct GattTable: Sendable, Hashable {
    struct Service: Sendable, Hashable {
        var handle: UInt16
        var uuid: String
        var characteristics: [Characteristic]
    }
    struct Characteristic: Sendable, Hashable {
        /// The declaration handle, which BlueZ's object path uses.
        var handle: UInt16
        var valueHandle: UInt16
        var spec: GattCharacteristicSpec
        var descriptors: [Descriptor]
    }
    struct Descriptor: Sendable, Hashable {
        var handle: UInt16
        var uuid: String
        var value: [UInt8]
    }

    static let cccd = "00002902-0000-1000-8000-00805f9b34fb"

    var services: [Service] = []

    init(profile: GattProfile) {
        var next: UInt16 = 0x000a
        for spec in profile.services {
            var service = Service(handle: next, uuid: spec.uuid, characteristics: [])
            next += 1
            for chrc in spec.characteristics {
                var c = Characteristic(handle: next, valueHandle: next + 1, spec: chrc, descriptors: [])
                next += 2
                var descriptors = chrc.descriptors
                if chrc.canNotify && !descriptors.contains(where: { $0.uuid == Self.cccd }) {
                    descriptors.insert(GattDescriptorSpec(uuid: Self.cccd, value: [0x00, 0x00]), at: 0)
                }
                for d in descriptors {
                    c.descriptors.append(Descriptor(handle: next, uuid: d.uuid, value: d.value))
                    next += 1
                }
                service.characteristics.append(c)
            }
            services.append(service)
        }
    }

    func characteristic(_ handle: UInt16) -> Characteristic? {
        for s in services { if let c = s.characteristics.first(where: { $0.handle == handle }) { return c } }
        return nil
    }

    func descriptor(_ handle: UInt16) -> (Characteristic, Descriptor)? {
        for s in services {
            for c in s.characteristics { if let d = c.descriptors.first(where: { $0.handle == handle }) { return (c, d) } }
        }
        return nil
    }

    /// Every characteristic, for walking notify state.
    var allCharacteristics: [Characteristic] { services.flatMap(\.characteristics) }
}

/// An object path of the simulator's BlueZ tree taken apart: adapter, device, and GATT element.
struct BlueZPath: Sendable, Hashable {
    enum Element: Sendable, Hashable {
        case device
        case service(UInt16)
        case characteristic(service: UInt16, UInt16)
        case descriptor(service: UInt16, characteristic: UInt16, UInt16)
    }
    var adapter: Int
    var address: BluetoothAddress
    var element: Element

    static func adapterPath(_ index: Int) -> String { "/org/bluez/hci\(index)" }
    static func devicePath(adapter: Int, address: BluetoothAddress) -> String { adapterPath(adapter) + "/" + address.pathComponent }
    static func servicePath(_ device: String, _ handle: UInt16) -> String { device + "/service" + hex4(handle) }
    static func characteristicPath(_ service: String, _ handle: UInt16) -> String { service + "/char" + hex4(handle) }
    static func descriptorPath(_ chrc: String, _ handle: UInt16) -> String { chrc + "/desc" + hex4(handle) }

    static func hex4(_ value: UInt16) -> String {
        let digits = Array("0123456789abcdef")
        return String([12, 8, 4, 0].map { digits[Int((value >> UInt16($0)) & 0xF)] })
    }

    /// Parses `/org/bluez/hciN/dev_…[/serviceXXXX[/charYYYY[/descZZZZ]]]`; nil for anything else.
    init?(_ path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 5, parts[0].isEmpty, parts[1] == "org", parts[2] == "bluez", parts[3].hasPrefix("hci"),
              let adapter = Int(parts[3].dropFirst(3)), parts[4].hasPrefix("dev_") else { return nil }
        let addressText = parts[4].dropFirst(4).replacingOccurrences(of: "_", with: ":")
        guard let address = BluetoothAddress(addressText) else { return nil }
        func handle(_ part: Substring, _ prefix: String) -> UInt16? {
            guard part.hasPrefix(prefix), part.count == prefix.count + 4 else { return nil }
            return UInt16(part.dropFirst(prefix.count), radix: 16)
        }
        self.adapter = adapter
        self.address = address
        switch parts.count {
        case 5: element = .device
        case 6:
            guard let s = handle(parts[5], "service") else { return nil }
            element = .service(s)
        case 7:
            guard let s = handle(parts[5], "service"), let c = handle(parts[6], "char") else { return nil }
            element = .characteristic(service: s, c)
        case 8:
            guard let s = handle(parts[5], "service"), let c = handle(parts[6], "char"), let d = handle(parts[7], "desc") else { return nil }
            element = .descriptor(service: s, characteristic: c, d)
        default: return nil
        }
    }
}
