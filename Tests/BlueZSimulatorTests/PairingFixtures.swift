@testable import BlueZSimulator
import FleetPlatform

/// A glucose meter for the pairing tests: 2A18 (char000b, read+notify) and 2A51 (char000e, read).
extension Fixture {
    static let meter = BluetoothAddress("C0:FF:EE:00:00:01")!
    static let meterPath = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01"
    static let measurement = meterPath + "/service000a/char000b"
    static let feature = meterPath + "/service000a/char000e"
    static let agentOwner = ":1.50"
    static let agentPath = "/io/fleetd/agent"

    static func meterSpec(io: IOCapability = .displayOnly, passkey: UInt32? = 123456, secureConnections: Bool = true,
                          level: SecurityLevel = .encrypt) -> PeripheralSpec {
        var spec = PeripheralSpec(label: "meter", address: meter, name: "Meter", rssiJitter: 0, advertisingInterval: .seconds(1),
                                  profile: GattProfile(services: [GattProfile.glucose]), mtu: 247)
        spec.security = PeripheralSecurity(ioCapability: io, passkey: passkey, secureConnections: secureConnections,
                                           characteristics: ["00002a18-0000-1000-8000-00805f9b34fb": level])
        return spec
    }

    /// A world with the meter discovered on every adapter and, when `agent` is set, an agent registered.
    static func meterWorld(_ spec: PeripheralSpec = meterSpec(), adapters: Int = 1, agent: String? = "KeyboardDisplay",
                           cache: GattCache = .yes, linkUpOrder: LinkUpOrder = .quiet,
                           staleBondOrder: StaleBondOrder = .replyFirst) throws -> SimulatorWorld {
        // btvirt's (quiet) order by default: it is where a bonded link's Connected=true signal differs from an
        // unbonded one's, which these tests are about; the signalled order has its own test.
        var world = SimulatorWorld(configuration: WorldConfiguration(adapters: adapters, gattCache: cache, attRoundTrip: .milliseconds(10),
                                                                     linkUpOrder: linkUpOrder, staleBondOrder: staleBondOrder))
        try world.addPeripheral(spec)
        for a in 0..<adapters { _ = try world.startDiscovery(adapter: a, sender: ":1.9") }
        _ = world.advance(to: .seconds(1))
        if let agent { try world.registerAgent(owner: agentOwner, path: agentPath, capability: agent) }
        return world
    }

    /// Runs simulated time forward by `seconds`.
    static func run(_ world: inout SimulatorWorld, _ seconds: Double = 1) -> [BusEffect] {
        world.advance(to: world.now + .milliseconds(Int64(seconds * 1000)))
    }
}

extension Array where Element == BusEffect {
    var agentCalls: [AgentCall] { compactMap { if case .callAgent(let call) = $0 { call } else { nil } } }

    /// The trace with agent calls and pairing property changes, for ordering assertions.
    func pairingTrace(_ path: String) -> [String] {
        compactMap { effect in
            switch effect {
            case .callAgent(let call): "agent.\(call.member)"
            case .changeProperties(path, .device, let changed, _, _):
                changed.keys.sorted().map { "\($0)=\(changed[$0]?.bool.map { "\($0)" } ?? "?")" }.joined(separator: ",")
            case .reply(let t, .success) where t < 1000: "reply\(t)"
            case .reply(let t, .failure(let e)) where t < 1000: "reply\(t):\(e.name.replacingOccurrences(of: "org.bluez.Error.", with: ""))"
            default: nil
            }
        }
    }
}
