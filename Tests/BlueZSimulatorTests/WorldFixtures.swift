@testable import BlueZSimulator
import FleetPlatform

/// Small worlds for the pure-model tests, and readers of the effects they produce.
enum Fixture {
    static let strap = BluetoothAddress("A0:9E:1A:00:00:01")!
    static let strapPath = "/org/bluez/hci0/dev_A0_9E_1A_00_00_01"

    static func strapSpec(label: String = "strap", address: BluetoothAddress = strap) -> PeripheralSpec {
        PeripheralSpec(label: label, address: address, name: "Polar H10", manufacturerData: [0x006B: [0x0A, 0x01]],
                       uuids: ["0000180d-0000-1000-8000-00805f9b34fb"], txPower: 0, rssi: -60, rssiJitter: 0,
                       advertisingInterval: .seconds(1), profile: GattProfile(services: [GattProfile.heartRate, GattProfile.glucose]), mtu: 23)
    }

    /// A world with the given devices, discovery running for client ":1.9", and every device seen once.
    static func discovering(_ specs: [PeripheralSpec] = [strapSpec()], capacity: Int = 5, cache: GattCache = .yes,
                            linkUpOrder: LinkUpOrder = .signalled) throws -> (SimulatorWorld, [BusEffect]) {
        var world = SimulatorWorld(configuration: WorldConfiguration(capacity: capacity, gattCache: cache, attRoundTrip: .milliseconds(10),
                                                                     linkUpOrder: linkUpOrder))
        for spec in specs { try world.addPeripheral(spec) }
        var effects = try world.startDiscovery(adapter: 0, sender: ":1.9")
        effects += world.advance(to: .seconds(1))
        return (world, effects)
    }

    /// Connects and runs time until the link is up; returns the effects of the whole exchange.
    static func connect(_ world: inout SimulatorWorld, _ path: String = strapPath, token: ReplyToken = 1) -> [BusEffect] {
        var effects = world.connect(path: path, token: token)
        effects += world.advance(to: world.now + .seconds(1))
        return effects
    }
}

extension Array where Element == BusEffect {
    var addedPaths: [String] { compactMap { if case .addObject(let p, _) = $0 { p } else { nil } } }
    var removedPaths: [String] { compactMap { if case .removeObject(let p) = $0 { p } else { nil } } }

    func reply(_ token: ReplyToken) -> ReplyResult? {
        for case .reply(token, let result) in self { return result }
        return nil
    }

    /// Names of changed (or invalidated) properties of one object and interface, in emission order.
    func changes(_ path: String, _ interface: BlueZInterface) -> [(String, DBusValue?)] {
        var out: [(String, DBusValue?)] = []
        for case .changeProperties(path, interface, let changed, let invalidated, _) in self {
            out += changed.keys.sorted().map { ($0, changed[$0]) }
            out += invalidated.map { ($0, nil) }
        }
        return out
    }

    /// A compact trace of device-level events for ordering assertions.
    func trace(_ path: String) -> [String] {
        compactMap { effect in
            switch effect {
            case .addObject(let p, _) where p.hasPrefix(path + "/"): "gatt+"
            case .removeObject(let p) where p.hasPrefix(path + "/"): "gatt-"
            case .changeProperties(path, .device, let changed, _, _):
                changed.keys.sorted().map { "\($0)=\(changed[$0]?.bool.map { "\($0)" } ?? "?")" }.joined(separator: ",")
            case .reply(let t, .success): "reply\(t)"
            case .reply(let t, .failure(let e)): "reply\(t):\(e.message)"
            default: nil
            }
        }.reduce(into: [String]()) { out, item in if !(item == "gatt+" && out.last == "gatt+") && !(item == "gatt-" && out.last == "gatt-") { out.append(item) } }
    }
}
