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
            if case .watch(let device, let count, let timeout) = command.subcommand {
                return try watch(connection, device: device, count: count, timeoutSeconds: timeout, json: command.json)
            }
            let (method, parameters) = Self.request(for: command.subcommand)
            let reply = try connection.call(method, parameters)
            if command.json {
                standardOutput(JSONValue.object(reply).prettyPrinted() + "\n")
            } else {
                standardOutput(try FleetctlFormatter(colour: colour).render(command.subcommand, reply: reply))
            }
            return .success
        } catch {
            standardError("fleetctl: \(error.description)\n")
            return FleetctlExitCode(error)
        }
    }

    /// The varlink method and parameters a subcommand sends.
    static func request(for subcommand: FleetctlSubcommand) -> (FleetInterface.Method, [String: JSONValue]) {
        switch subcommand {
        case .status: return (.status, [:])
        case .devices: return (.listDevices, [:])
        case .show(let device): return (.showDevice, ["device": .string(device)])
        case .connect(let device): return (.connect, ["device": .string(device)])
        case .disconnect(let device): return (.disconnect, ["device": .string(device)])
        case .evict(let device): return (.evict, ["device": .string(device)])
        case .forget(let device): return (.forget, ["device": .string(device)])
        case .setPolicy(let device, let policyClass): return (.setPolicy, ["device": .string(device), "policyClass": .string(policyClass)])
        case .watch(let device, _, _): return (.watch, device.map { ["device": .string($0)] } ?? [:])
        case .read(let device, let characteristic): return (.read, ["device": .string(device), "characteristic": .string(characteristic)])
        case .write(let device, let characteristic, let value, let withResponse):
            return (.write, ["device": .string(device), "characteristic": .string(characteristic),
                             "value": .string(HexBytes.encode(value)), "withResponse": .bool(withResponse)])
        case .reload: return (.reload, [:])
        case .metrics: return (.metrics, [:])
        }
    }

    private func watch(_ connection: VarlinkConnection, device: String?, count: Int?, timeoutSeconds: Double?, json: Bool) throws(FleetClientError) -> FleetctlExitCode {
        let (method, parameters) = Self.request(for: .watch(device: device, count: count, timeoutSeconds: timeoutSeconds))
        try connection.send(VarlinkCall(method: method.qualifiedName, parameters: parameters, more: true))
        let deadline = timeoutSeconds.map { ContinuousClock.now + .milliseconds(Int64($0 * 1000)) }
        var received = 0
        let formatter = FleetctlFormatter(colour: colour)
        while count.map({ received < $0 }) ?? true {
            let reply: VarlinkReply
            do {
                reply = try connection.receive(timeout: deadline.map { $0 - .now })
            } catch .timedOut {
                if let count {
                    standardError("fleetctl: watch timed out after \(received) of \(count) events\n")
                    return .failure
                }
                return .success
            }
            if let error = reply.varlinkError { throw .remote(error) }
            let eventRecord: ParameterReader
            let event: WatchEvent
            do {
                eventRecord = try ParameterReader(reply.parameters).record("event")
                event = try WatchEvent(reading: eventRecord)
            } catch {
                throw .malformedReply(error.description)
            }
            received += 1
            standardOutput(json ? JSONValue.object(eventRecord.members).serialized + "\n" : formatter.render(event))
            if !reply.continues { break }
        }
        return .success
    }
}
