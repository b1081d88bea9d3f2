/// fleetd's command line, parsed by a pure function so tests can inspect the result.
public struct DaemonArguments: Sendable, Equatable {
    public var configPath = "/etc/fleetd/fleetd.conf"
    /// An explicit D-Bus address; nil means the system bus (`DBUS_SYSTEM_BUS_ADDRESS` or the default socket).
    public var busAddress: String?
    public var logTarget: String?
    public var logLevel: String?
    /// Deprecated: the JSON snapshot of an older fleetd to import once (see `FleetConfiguration.snapshotPath`).
    public var snapshotPath: String?
    public var storePath: String?
    public var outboxPath: String?
    public var socketPath: String?
    /// `--check-config PATH`: parse the file, report, exit (0 valid, 3 invalid).
    public var checkConfig: String?
    public var showHelp = false
    public var showVersion = false

    public init() {}

    /// A command-line mistake, with the exit code fleetd uses for it (2, as for bad usage).
    public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var exitCode: Int32 { 2 }
        public var description: String { message }
    }

    public static func parse(_ arguments: [String]) throws(UsageError) -> DaemonArguments {
        var result = DaemonArguments()
        var index = 0
        func value(_ option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                throw UsageError(message: "\(option) needs a value")
            }
            return arguments[index]
        }
        while index < arguments.count {
            var argument = arguments[index]
            var inline: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                inline = String(argument[argument.index(after: eq)...])
                argument = String(argument[..<eq])
            }
            func take() throws(UsageError) -> String {
                if let inline { return inline }
                return try value(argument)
            }
            switch argument {
            case "--config", "-c": result.configPath = try take()
            case "--bus": result.busAddress = try take()
            case "--log-target":
                let target = try take()
                guard ["auto", "journal", "stderr"].contains(target) else {
                    throw UsageError(message: "--log-target must be auto, journal or stderr, not '\(target)'")
                }
                result.logTarget = target
            case "--log-level": result.logLevel = try take()
            case "--snapshot": result.snapshotPath = try take()
            case "--store":
                let path = try take()
                guard path.hasPrefix("/") else { throw UsageError(message: "--store needs an absolute path, not '\(path)'") }
                result.storePath = path
            case "--outbox":
                let path = try take()
                guard path.hasPrefix("/") else { throw UsageError(message: "--outbox needs an absolute path, not '\(path)'") }
                result.outboxPath = path
            case "--socket": result.socketPath = try take()
            case "--check-config": result.checkConfig = try take()
            case "--help", "-h": result.showHelp = true
            case "--version": result.showVersion = true
            default: throw UsageError(message: "unknown option '\(arguments[index])' (see fleetd --help)")
            }
            index += 1
        }
        return result
    }

    public static let help = """
    Usage: fleetd [OPTIONS]

    Keeps a fleet of Bluetooth LE peripherals connected through BlueZ (see fleetd(8)).

    Options:
      -c, --config PATH        configuration file (default /etc/fleetd/fleetd.conf; absent = built-in defaults)
          --bus ADDRESS        D-Bus address of bluetoothd's bus (default: the system bus, or $DBUS_SYSTEM_BUS_ADDRESS)
          --log-target TARGET  auto (journald under systemd, else stderr), journal or stderr
          --log-level LEVEL    trace, debug, info, notice, warning, error or critical
          --store PATH         SQLite store of the fleet's state and the outbox (overrides [daemon] store;
                               default /var/lib/fleetd/fleetd.db)
          --outbox PATH        keep the outbox in a file of its own (overrides [outbox] path; default: the store)
          --snapshot PATH      deprecated: an older fleetd's JSON snapshot, imported once into the store (which
                               goes beside it unless --store or [daemon] store says otherwise)
          --socket PATH        control socket (overrides [daemon] control-socket)
          --check-config PATH  check a configuration file, print what it configures or its first error, and exit
          --version            print the version and exit
      -h, --help               print this help and exit

    Signals: SIGTERM/SIGINT stop gracefully (state and outbox flushed, links left up as configured); SIGHUP reloads
    the configuration. Exit codes: 0 clean stop, 1 runtime failure, 2 bad usage, 3 bad configuration.
    """
}
