import FleetPlatform

/// The test-control interface, `io.fleetd.Simulator1` at `/io/fleetd/sim` under the bus name
/// `io.fleetd.Simulator`, served on its own connection so that org.bluez's object tree holds only what
/// BlueZ would. Method signatures are listed in docs/simulator.md.
public final class SimulatorControl: Sendable {
    public static let busName = "io.fleetd.Simulator"
    public static let path = "/io/fleetd/sim"
    public static let interface = "io.fleetd.Simulator1"
    static let unknownDevice = "io.fleetd.Simulator.Error.UnknownDevice"
    static let invalid = "io.fleetd.Simulator.Error.InvalidArguments"

    public let connection: DBusConnection
    let tree: DBusObjectTree
    let simulator: BlueZSimulator

    public init(connection: DBusConnection, simulator: BlueZSimulator) {
        self.connection = connection
        self.simulator = simulator
        tree = DBusObjectTree(connection: connection, objectManagerPath: "/io/fleetd")
    }

    public func start() async throws {
        try tree.add(path: Self.path, interfaces: [(spec, [:])])
        try await connection.requestName(Self.busName)
    }

    private static func noDevice(_ name: String) -> DBusError { .remote(name: unknownDevice, message: "no simulated device '\(name)'") }

    /// Runs `body` on the world for the device named by the call's first argument; `body` answers nil when
    /// there is no such device, which is the UnknownDevice error.
    static func withDevice<T>(_ sim: BlueZSimulator, _ call: DBusMethodCall,
                                      _ body: (inout SimulatorWorld, String) -> (T, [BusEffect])?) throws -> T {
        let name = string(call, 0)
        return try sim.withWorld { world throws -> (T, [BusEffect]) in
            guard let result = body(&world, name) else { throw noDevice(name) }
            return result
        }
    }
    private static func string(_ call: DBusMethodCall, _ i: Int) -> String { call.arguments.count > i ? call.arguments[i].string ?? "" : "" }
    private static func seconds(_ call: DBusMethodCall, _ i: Int) throws(DBusError) -> Duration {
        guard call.arguments.count > i, case .double(let s) = call.arguments[i], s >= 0, s < 1e9 else {
            throw DBusError.remote(name: invalid, message: "expected a non-negative number of seconds")
        }
        return .milliseconds(Int64((s * 1000).rounded()))
    }

    var spec: DBusInterfaceSpec {
        let sim = simulator
        return DBusInterfaceSpec(name: Self.interface, methods: [
            "AddDevice": DBusMethod(in: "s", out: "s", immediate: { call in
                let spec: PeripheralSpec
                do throws(ScenarioError) { spec = try Scenario.parseDeviceDefinition(Self.string(call, 0)) } catch {
                    throw DBusError.remote(name: Self.invalid, message: error.description)
                }
                try sim.withWorld { world throws -> ((), [BusEffect]) in
                    do throws(ScenarioError) { try world.addPeripheral(spec) } catch { throw DBusError.remote(name: Self.invalid, message: error.message) }
                    return ((), [])
                }
                return [.string(spec.address.description)]
            }),
            "RemoveDevice": DBusMethod(in: "s", immediate: { call in
                try Self.withDevice(sim, call) { world, name in world.removePeripheral(named: name).map { ((), $0) } }
                return []
            }),
            "DropLink": DBusMethod(in: "s", immediate: { call in
                try Self.withDevice(sim, call) { world, name in world.dropLink(named: name).map { ((), $0) } }
                return []
            }),
            "SetConnectBehaviour": DBusMethod(in: "ssss", immediate: { call in
                var words = [Self.string(call, 1)]
                if words[0] == "fail" { words += [Self.string(call, 2), Self.string(call, 3)] }
                guard let behaviour = ConnectBehaviour(words: words) else {
                    throw DBusError.remote(name: Self.invalid, message: "behaviour is normal, never-complete, in-progress or fail")
                }
                try Self.withDevice(sim, call) { world, name in world.setConnectBehaviour(named: name, behaviour) ? ((), []) : nil }
                return []
            }),
            "PowerAdapter": DBusMethod(in: "sb", immediate: { call in
                let name = Self.string(call, 0)
                let on = call.arguments.count > 1 ? call.arguments[1].bool ?? true : true
                try sim.withWorld { world throws -> ((), [BusEffect]) in
                    guard let index = world.adapterIndex(path: "/org/bluez/" + name) else {
                        throw DBusError.remote(name: Self.invalid, message: "no adapter '\(name)'")
                    }
                    return ((), world.setPowered(adapter: index, on))
                }
                return []
            }),
            "RotateAddress": DBusMethod(in: "s", out: "s", immediate: { call in
                let address = try Self.withDevice(sim, call) { world, name in world.rotateAddress(of: name).map { ($0, []) } }
                return [.string(address.description)]
            }),
            "DeviceAddress": DBusMethod(in: "s", out: "s", immediate: { call in
                let address = try Self.withDevice(sim, call) { world, name in world.currentAddress(of: name).map { ($0, []) } }
                return [.string(address.description)]
            }),
            "SetResponseDelay": DBusMethod(in: "sd", immediate: { call in
                let delay = try Self.seconds(call, 1)
                try Self.withDevice(sim, call) { world, name in world.setResponseDelay(named: name, delay) ? ((), []) : nil }
                return []
            }),
            "SetAdvertiseWhileLinked": DBusMethod(in: "sb", immediate: { call in
                guard call.arguments.count > 1, case .boolean(let advertises) = call.arguments[1] else {
                    throw DBusError.remote(name: Self.invalid, message: "expected a device (empty: every device) and a boolean")
                }
                try Self.withDevice(sim, call) { world, name in world.setAdvertisesWhileLinked(named: name, advertises) ? ((), []) : nil }
                return []
            }),
            "AdvanceTime": DBusMethod(in: "d", immediate: { call in
                sim.advanceTime(by: try Self.seconds(call, 0))
                return []
            }),
            "SetTimeScale": DBusMethod(in: "d", immediate: { call in
                guard case .double(let scale)? = call.arguments.first, scale >= 0, scale <= 1000 else {
                    throw DBusError.remote(name: Self.invalid, message: "time scale must be 0…1000")
                }
                sim.setTimeScale(scale)
                return []
            }),
            "Time": DBusMethod(out: "d", immediate: { _ in
                let now = sim.now
                return [.double(Double(now.components.seconds) + Double(now.components.attoseconds) * 1e-18)]
            }),
            "Counters": DBusMethod(out: "a{sv}", immediate: { _ in
                var counters = sim.withWorld { world in (world.counters.dictionary, [BusEffect]()) }
                counters["SignalsFlooded"] = .uint64(sim.floodCount.load(ordering: .relaxed))
                return [.vardict(counters)]
            }),
            "DeviceCounters": DBusMethod(in: "s", out: "a{sv}", immediate: { call in
                let counters = try Self.withDevice(sim, call) { world, name in world.deviceCounters(of: name).map { ($0, []) } }
                return [.vardict(counters.dictionary)]
            }),
            "ResetCounters": DBusMethod(immediate: { _ in
                sim.withWorld { world in world.resetCounters(); return [] }
                sim.floodCount.store(0, ordering: .relaxed)
                return []
            }),
            "StartFlood": DBusMethod(in: "u", immediate: { call in
                guard case .uint32(let rate)? = call.arguments.first else { return [] }
                sim.startFlood(signalsPerSecond: Int(rate))
                return []
            }),
            "StopFlood": DBusMethod(immediate: { _ in
                sim.stopFlood()
                return []
            }),
        ].merging(securityMethods) { current, _ in current }.merging(recordMethods) { current, _ in current }.merging(Self.observationMethods(sim)) { listed, _ in listed })
    }
}
