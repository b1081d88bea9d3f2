import FleetProtocol
import Foundation

/// Executes a parsed fleetctl command against the daemon and prints the result as a table or JSON.
///
/// Output goes through closures so tests can capture it; `colour` is decided by the caller
/// (TTY and `NO_COLOR`), keeping this type free of terminal probing.
public struct FleetctlRunner {
    public var standardOutput: (String) -> Void
    public var standardError: (String) -> Void
    public var colour: Bool

    public init(standardOutput: @escaping (String) -> Void, standardError: @escaping (String) -> Void, colour: Bool) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.colour = colour
    }

    /// fleetctl's version string.
    public static let version = "0.1.0"

    /// Runs a whole invocation from raw arguments: parse, run, and the exit code.
    public func main(arguments: [String], environment: [String: String]) -> FleetctlExitCode {
        do {
            switch try FleetctlParser.parse(arguments, environment: environment) {
            case .help(let text): standardOutput(text); return .success
            case .version: standardOutput("fleetctl \(Self.version)\n"); return .success
            case .run(let command): return run(command)
            }
        } catch {
            standardError(error.description + "\n")
            return error.exitCode
        }
    }

    /// Runs one command; errors are printed to standard error and mapped to an exit code.
    public func run(_ command: FleetctlCommand) -> FleetctlExitCode {
        do {
            let connection = try VarlinkConnection(path: command.socketPath)
            let request = Self.request(for: command.subcommand)
            if case .watch(_, let count, let timeout) = command.subcommand {
                return try watch(connection, request: request, count: count, timeout: timeout, json: command.json)
            }
            let reply = try connection.call(VarlinkConnection.encode(request))
            if command.json {
                standardOutput(try Self.asReceived(reply).prettyPrinted + "\n")
            } else {
                standardOutput(try FleetctlFormatter(colour: colour).render(command.subcommand, reply: reply))
            }
            return .success
        } catch {
            standardError("fleetctl: \(error.description)\n")
            return FleetctlExitCode(error)
        }
    }

    /// The request a subcommand sends.
    static func request(for subcommand: FleetctlSubcommand) -> FleetRequest {
        switch subcommand {
        case .status: return .status
        case .devices: return .listDevices
        case .show(let device): return .showDevice(device: device)
        case .connect(let device): return .connect(device: device)
        case .disconnect(let device): return .disconnect(device: device)
        case .evict(let device): return .evict(device: device)
        case .forget(let device): return .forget(device: device)
        case .setPolicy(let device, let policyClass): return .setPolicy(device: device, policyClass: policyClass)
        case .watch(let device, _, _): return .watch(device: device)
        case .read(let device, let characteristic): return .read(device: device, characteristic: characteristic)
        case .write(let device, let characteristic, let value, let withResponse):
            return .write(device: device, characteristic: characteristic, value: value, withResponse: withResponse)
        case .reload: return .reload
        case .metrics: return .metrics
        case .pair(let device): return .pair(device: device)
        case .unpair(let device): return .unpair(device: device)
        }
    }

    /// A reply's parameters exactly as the daemon sent them, for `--json`.
    private static func asReceived(_ reply: VarlinkReply) throws(FleetClientError) -> JSONValue {
        do { return try reply.parameters(as: JSONValue.self) } catch { throw .malformedReply(error.description) }
    }

    private func watch(_ connection: VarlinkConnection, request: FleetRequest, count: Int?, timeout: Duration?, json: Bool) throws(FleetClientError) -> FleetctlExitCode {
        try connection.send(VarlinkConnection.encode(request))
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var received = 0
        let formatter = FleetctlFormatter(colour: colour)
        while count.map({ received < $0 }) ?? true {
            let reply: VarlinkReply
            let update: WatchUpdate?
            do {
                (reply, update) = try connection.receive(as: WatchUpdate.self, timeout: deadline.map { $0 - .now })
            } catch .timedOut {
                if let count {
                    standardError("fleetctl: watch timed out after \(received) of \(count) events\n")
                    return .failure
                }
                return .success
            }
            if let error = reply.varlinkError { throw .remote(error) }
            guard let event = update?.event else { throw .malformedReply("a Watch reply without an event") }
            received += 1
            if json {
                // The event as the daemon sent it, members it has and this fleetctl does not know included.
                let asSent: JSONValue
                do { asSent = try reply.parameters(as: [String: JSONValue].self)["event"] ?? .null } catch { throw .malformedReply(error.description) }
                standardOutput(asSent.serialized + "\n")
            } else {
                standardOutput(formatter.render(event))
            }
            if !reply.continues { break }
        }
        return .success
    }
}
