import FleetProtocol

/// A parsed fleetctl command line: what to run and how to talk to the daemon. Produced by `FleetctlParser`.
public struct FleetctlCommand: Sendable, Equatable {
    /// Path of the daemon's control socket (from `--socket`, `FLEETCTL_SOCKET`, or the default).
    public var socketPath: String
    /// Print replies as JSON instead of tables.
    public var json: Bool
    public var subcommand: FleetctlSubcommand

    public init(socketPath: String = FleetInterface.defaultSocketPath, json: Bool = false, subcommand: FleetctlSubcommand) {
        self.socketPath = socketPath
        self.json = json
        self.subcommand = subcommand
    }
}

/// One fleetctl subcommand with its arguments.
public enum FleetctlSubcommand: Sendable, Equatable {
    case status
    /// `idsOnly` (`-q`) prints just identity ids, one a line (used by bash completion).
    case devices(idsOnly: Bool)
    case show(device: String)
    case connect(device: String)
    case disconnect(device: String)
    case evict(device: String)
    case forget(device: String)
    case setPolicy(device: String, policyClass: String)
    /// Ends after `count` events or `timeout`, whichever comes first; both nil streams until interrupted.
    /// `since` (a cursor) or `consumer` (a name) make it the durable stream of stored values; with `consumer`,
    /// fleetctl acknowledges what it printed.
    case watch(device: String?, count: Int?, timeout: Duration?, since: Int64? = nil, consumer: String? = nil)
    /// One device's stored values: after cursor `since`, or the newest; at most `limit`.
    case readings(device: String, since: Int64?, limit: Int?)
    case read(device: String, characteristic: String)
    case write(device: String, characteristic: String, value: [UInt8], withResponse: Bool)
    case reload
    case metrics
    case pair(device: String)
    case unpair(device: String)
    /// What fleetd keeps of DEVICE's stored records (its RACP syncs).
    case records(device: String)
}

/// What the command line asks for: a command, or help/version text that needs no daemon.
public enum FleetctlInvocation: Sendable, Equatable {
    case run(FleetctlCommand)
    /// Print this help text and exit 0.
    case help(String)
    case version
}

/// A command line fleetctl cannot make sense of; exits with `FleetctlExitCode.usage`.
public struct FleetctlUsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The command whose usage should be shown, nil for the top level.
    public var command: String?
    public var exitCode: FleetctlExitCode { .usage }

    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    public var description: String {
        "fleetctl: \(message)\nTry 'fleetctl \(command.map { $0 + " " } ?? "")--help'."
    }
}
