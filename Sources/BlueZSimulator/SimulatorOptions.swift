/// The command line of `bluez-sim`, parsed without side effects so tests can check it.
public struct SimulatorOptions: Sendable, Hashable {
    public var busAddress: String
    public var scenarioPath: String?
    public var adapters: Int?
    public var capacity: Int?
    public var timeScale: Double = 1
    public var temporaryTimeout: Duration?
    public var gattCache: GattCache = .yes
    public var linkUpOrder: LinkUpOrder?
    public var staleBondOrder: StaleBondOrder?
    public var seed: UInt64 = 0x5eed
    public var control = true

    public static let usage = """
    usage: bluez-sim [options]
      Serves a simulated BlueZ 5.66 (org.bluez) on a D-Bus bus, plus the test-control interface
      io.fleetd.Simulator1 at /io/fleetd/sim (bus name io.fleetd.Simulator). Prints "ready" once it owns org.bluez.
    options:
      --bus ADDRESS            bus to serve (default: $DBUS_SYSTEM_BUS_ADDRESS, else the system bus socket)
      --scenario FILE          scenario file (format: docs/simulator.md); default: one adapter, no devices
      --adapters N             number of adapters hci0…hciN-1 (overrides the scenario)
      --capacity N             LE connections per adapter (default 5, overrides the scenario)
      --time-scale X           simulated seconds per real second (default 1; 0 freezes time except AdvanceTime)
      --temporary-timeout S    BlueZ TemporaryTimeout in seconds (default 30)
      --gatt-cache MODE        always | yes | no, as main.conf [GATT] Cache (default yes: GATT objects of
                               unbonded devices go with the link; 'always' keeps them)
      --link-up-order ORDER    signalled | quiet: whether a Connect's link-up sends PropertiesChanged
                               Connected=true, as bluetoothd 5.66 does on real controllers (default
                               signalled), or sets it silently, as under btvirt (overrides the scenario)
      --stale-bond-order ORDER reply-first | signals-first: for a bonded device whose peripheral lost its
                               keys, Connect fails le-connection-abort-by-local before Connected goes
                               true then false, as bluetoothd 5.66 did on the rig (default), or
                               Connected=true, br-connection-canceled, Connected=false (overrides the scenario)
      --seed N                 seed for RSSI jitter and rotated addresses
      --no-control             do not serve io.fleetd.Simulator1
      --help                   this text
    """

    /// What the command line asks for.
    public enum Command: Sendable, Hashable {
        case run(SimulatorOptions)
        case help
    }

    /// A command-line mistake, with the exit code bluez-sim uses for it (2).
    public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var exitCode: Int32 { 2 }
        public var description: String { "bluez-sim: \(message)\n\(SimulatorOptions.usage)" }
    }

    public static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Command {
        var options = SimulatorOptions(busAddress: environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket")
        var i = 0
        func value(_ flag: String) throws(UsageError) -> String {
            i += 1
            guard i < arguments.count else { throw UsageError(message: "\(flag) needs a value") }
            return arguments[i]
        }
        func number(_ flag: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
            let text = try value(flag)
            guard let n = Int(text), range.contains(n) else { throw UsageError(message: "\(flag) must be \(range.lowerBound)…\(range.upperBound), got '\(text)'") }
            return n
        }
        while i < arguments.count {
            let arg = arguments[i]
            switch arg {
            case "--help", "-h": return .help
            case "--bus": options.busAddress = try value(arg)
            case "--scenario": options.scenarioPath = try value(arg)
            case "--adapters": options.adapters = try number(arg, 1...16)
            case "--capacity": options.capacity = try number(arg, 0...64)
            case "--time-scale":
                let text = try value(arg)
                guard let x = Double(text), x >= 0, x <= 1000 else { throw UsageError(message: "--time-scale must be 0…1000, got '\(text)'") }
                options.timeScale = x
            case "--temporary-timeout": options.temporaryTimeout = .seconds(try number(arg, 1...86400))
            case "--gatt-cache":
                let text = try value(arg)
                guard let mode = GattCache(rawValue: text) else { throw UsageError(message: "--gatt-cache is always, yes or no, got '\(text)'") }
                options.gattCache = mode
            case "--link-up-order":
                let text = try value(arg)
                guard let order = LinkUpOrder(rawValue: text) else { throw UsageError(message: "--link-up-order is signalled or quiet, got '\(text)'") }
                options.linkUpOrder = order
            case "--stale-bond-order":
                let text = try value(arg)
                guard let order = StaleBondOrder(rawValue: text) else {
                    throw UsageError(message: "--stale-bond-order is reply-first or signals-first, got '\(text)'")
                }
                options.staleBondOrder = order
            case "--seed":
                let text = try value(arg)
                guard let n = UInt64(text) else { throw UsageError(message: "--seed must be a non-negative integer") }
                options.seed = n
            case "--no-control": options.control = false
            default: throw UsageError(message: "unknown option '\(arg)'")
            }
            i += 1
        }
        return .run(options)
    }

    /// The world these options and an (optional) scenario describe; explicit options win over the file.
    public func world(scenario: Scenario?) throws(ScenarioError) -> SimulatorWorld {
        var base = scenario ?? Scenario()
        if let adapters { base.adapters = adapters }
        if let capacity { base.capacity = capacity }
        if let temporaryTimeout { base.temporaryTimeout = temporaryTimeout }
        if let linkUpOrder { base.linkUpOrder = linkUpOrder }
        if let staleBondOrder { base.staleBondOrder = staleBondOrder }
        return try SimulatorWorld(scenario: base, configuration: WorldConfiguration(gattCache: gattCache, seed: seed))
    }
}
