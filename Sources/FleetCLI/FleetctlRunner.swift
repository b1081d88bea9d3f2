import FleetProtocol
import FleetSystem
import FoundationEssentials

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

    /// fleetctl's version string: the release it belongs to.
    public static let version = FleetRelease.version

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
            if case .watch(_, let count, let timeout, _, let consumer) = command.subcommand {
                let acknowledger = consumer.map { ConsumerAcknowledger(consumer: $0, socketPath: command.socketPath) }
                return try watch(connection, request: request, count: count, timeout: timeout, json: command.json, acknowledger: acknowledger)
            }
            let reply = try connection.call(VarlinkConnection.encode(request))
            if command.json {
                standardOutput(try Self.asReceived(reply).prettyPrinted + "\n")
            } else {
                standardOutput(try FleetctlFormatter(colour: colour).render(command.subcommand, reply: reply))
            }
            return .success
        } catch {
            standardError("fleetctl: \(DisplayText.escaped(error.description))\n")
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
        case .watch(let device, _, _, let since, let consumer): return .watch(device: device, since: since, consumer: consumer)
        case .readings(let device, let since, let limit): return .readings(device: device, since: since, limit: limit)
        case .read(let device, let characteristic): return .read(device: device, characteristic: characteristic)
        case .write(let device, let characteristic, let value, let withResponse):
            return .write(device: device, characteristic: characteristic, value: value, withResponse: withResponse)
        case .reload: return .reload
        case .metrics: return .metrics
        case .pair(let device): return .pair(device: device)
        case .unpair(let device): return .unpair(device: device)
        case .records(let device): return .records(device: device)
        }
    }

    /// A reply's parameters exactly as the daemon sent them, for `--json`.
    private static func asReceived(_ reply: VarlinkReply) throws(FleetClientError) -> JSONValue {
        do { return try reply.parameters(as: JSONValue.self) } catch { throw .malformedReply(error.description) }
    }

    private func watch(_ connection: VarlinkConnection, request: FleetRequest, count: Int?, timeout: Duration?, json: Bool,
                       acknowledger: ConsumerAcknowledger?) throws(FleetClientError) -> FleetctlExitCode {
        try connection.send(VarlinkConnection.encode(request))
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var received = 0
        let formatter = FleetctlFormatter(colour: colour)
        // Whatever ends the watch, what was printed is acknowledged (an acknowledgement that fails is reported
        // and turns a success into a failure: the consumer would see those values again).
        func finish(_ code: FleetctlExitCode) -> FleetctlExitCode {
            guard let acknowledger else { return code }
            do {
                try acknowledger.flush()
                return code
            } catch {
                standardError("fleetctl: cannot acknowledge for consumer \(DisplayText.escaped(acknowledger.consumer)): \(DisplayText.escaped(error.description))\n")
                return code == .success ? FleetctlExitCode(error) : code
            }
        }
        do throws(FleetClientError) {
            while count.map({ received < $0 }) ?? true {
                let reply: VarlinkReply
                let update: WatchUpdate?
                var wait = deadline.map { $0 - .now }
                if let acknowledger, acknowledger.hasUnacknowledged {
                    // Acknowledge when the stream pauses: wait a little, then acknowledge and wait on.
                    wait = min(wait ?? ConsumerAcknowledger.pause, ConsumerAcknowledger.pause)
                }
                do {
                    (reply, update) = try connection.receive(as: WatchUpdate.self, timeout: wait)
                } catch .timedOut {
                    if let deadline, deadline <= .now {
                        if let count {
                            standardError("fleetctl: watch timed out after \(received) of \(count) events\n")
                            return finish(.failure)
                        }
                        return finish(.success)
                    }
                    try acknowledger?.flush()
                    continue
                }
                if let error = reply.varlinkError { throw FleetClientError.remote(error) }
                guard let event = update?.event else { throw FleetClientError.malformedReply("a Watch reply without an event") }
                received += 1
                if json {
                    // The event as the daemon sent it, members it has and this fleetctl does not know included.
                    let asSent: JSONValue
                    do { asSent = try reply.parametersAsSent()["event"] ?? .null } catch { throw FleetClientError.malformedReply(error.description) }
                    standardOutput(asSent.serialized + "\n")
                } else {
                    standardOutput(formatter.render(event))
                }
                if let cursor = event.stored?.cursor, let acknowledger {
                    acknowledger.printed(cursor)
                    if acknowledger.unacknowledgedCount >= ConsumerAcknowledger.batch { try acknowledger.flush() }
                }
                if !reply.continues { break }
            }
        } catch {
            // What was printed before the failure is still acknowledged; the failure decides the exit code.
            _ = finish(.failure)
            throw error
        }
        return finish(.success)
    }
}

/// `watch --consumer`: acknowledges the cursor of what fleetctl printed, on a second connection (the first is
/// busy with the stream), when the stream pauses, every `batch` values, and when the watch ends.
final class ConsumerAcknowledger {
    let consumer: String
    let socketPath: String
    private var connection: VarlinkConnection?
    private var printed: Int64?
    private var acknowledged: Int64?
    private(set) var unacknowledgedCount = 0

    static let pause: Duration = .milliseconds(200)
    static let batch = 256

    init(consumer: String, socketPath: String) {
        self.consumer = consumer
        self.socketPath = socketPath
    }

    var hasUnacknowledged: Bool { unacknowledgedCount > 0 }

    func printed(_ cursor: Int64) {
        printed = max(printed ?? cursor, cursor)
        unacknowledgedCount += 1
    }

    func flush() throws(FleetClientError) {
        guard let printed, printed != acknowledged else { return }
        if connection == nil { connection = try VarlinkConnection(path: socketPath) }
        _ = try connection!.call(.acknowledge(consumer: consumer, cursor: printed), replying: AcknowledgeOutcome.self)
        acknowledged = printed
        unacknowledgedCount = 0
    }
}
