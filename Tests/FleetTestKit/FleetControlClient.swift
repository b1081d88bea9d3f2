import FleetCLI
import FleetProtocol
import Foundation

/// A running fleetd as a test talks to it: varlink calls, the device list, waits on the Watch stream and
/// fleetctl, all on its control socket. FleetHarness (simulator on a private bus) and FidelityDaemon
/// (either backend) are both one.
public protocol FleetControlClient: Sendable {
    var socketPath: String { get }
    /// fleetd's log so far, for failure messages.
    func log() -> String
}

extension FleetControlClient {
    public func logTail(_ lines: Int = 40) -> String { log().split(separator: "\n").suffix(lines).joined(separator: "\n") }

    /// Runs the built fleetctl against this fleetd.
    public func fleetctl(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> (code: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        let env = environment, socket = socketPath
        return try await offPool {
            try ChildProcess.run(BuildProducts.path("fleetctl"), ["--socket", socket] + arguments, environment: env, timeout: timeout)
        }
    }

    /// One varlink call to fleetd.
    public func call(_ method: FleetInterface.Method, _ parameters: [String: JSONValue] = [:]) async throws -> [String: JSONValue] {
        try await offPool { try self.callBlocking(method, parameters) }
    }

    func callBlocking(_ method: FleetInterface.Method, _ parameters: [String: JSONValue] = [:]) throws -> [String: JSONValue] {
        try VarlinkConnection(path: socketPath).call(method, parameters, timeout: .seconds(60))
    }

    /// Every device as ListDevices reports it, keyed by id.
    public func devices() async throws -> [String: [String: JSONValue]] {
        try await offPool { try self.devicesBlocking() }
    }

    func devicesBlocking() throws -> [String: [String: JSONValue]] {
        var out: [String: [String: JSONValue]] = [:]
        for entry in try callBlocking(.listDevices)["devices"]?.arrayValue ?? [] {
            if let object = entry.objectValue, let id = object["id"]?.stringValue { out[id] = object }
        }
        return out
    }

    public func state(_ id: String) async throws -> String? { try await devices()[id]?["state"]?.stringValue }

    /// Waits until `condition` holds for fleetd's device list. It is re-checked whenever fleetd publishes an
    /// event on its Watch stream (and at least every 200 ms, in case the decisive change was not an event).
    public func waitFor(_ what: String, timeout: Duration = .seconds(30),
                        _ condition: @escaping @Sendable ([String: [String: JSONValue]]) -> Bool) async throws {
        try await offPool { try self.waitForBlocking(what, timeout: timeout, condition) }
    }

    func waitForBlocking(_ what: String, timeout: Duration, _ condition: ([String: [String: JSONValue]]) -> Bool) throws {
        let watch = try openWatch(device: nil)
        let deadline = ContinuousClock.now + timeout
        var last: [String: [String: JSONValue]] = [:]
        while ContinuousClock.now < deadline {
            last = try devicesBlocking()
            if condition(last) { return }
            _ = try? watch.receive(timeout: .milliseconds(200))
        }
        // Once more after the deadline: a stall of the test process in the last wait must not fail a condition that holds.
        last = try devicesBlocking()
        if condition(last) { return }
        throw TestKitError("timed out after \(timeout) waiting for \(what); devices: \(Self.states(last))\n--- fleetd log (tail) ---\n\(logTail())")
    }

    /// Checks that `condition` holds throughout `window` (a bounded observation: "this never happens").
    public func holds(_ what: String, for window: Duration,
                      _ condition: @escaping @Sendable ([String: [String: JSONValue]]) -> Bool) async throws {
        try await offPool {
            let watch = try self.openWatch(device: nil)
            let deadline = ContinuousClock.now + window
            while ContinuousClock.now < deadline {
                let now = try self.devicesBlocking()
                guard condition(now) else { throw TestKitError("\(what) stopped holding; devices: \(Self.states(now))") }
                _ = try? watch.receive(timeout: .milliseconds(200))
            }
        }
    }

    /// Collects Watch events (of one device, or all) until `condition` holds for the list so far.
    public func watch(device: String? = nil, timeout: Duration = .seconds(30),
                      until condition: @escaping @Sendable ([[String: JSONValue]]) -> Bool) async throws -> [[String: JSONValue]] {
        try await offPool { try self.watchBlocking(device: device, timeout: timeout, until: condition) }
    }

    func watchBlocking(device: String?, timeout: Duration, until condition: ([[String: JSONValue]]) -> Bool) throws -> [[String: JSONValue]] {
        let watch = try openWatch(device: device)
        let deadline = ContinuousClock.now + timeout
        var events: [[String: JSONValue]] = []
        while ContinuousClock.now < deadline {
            guard let reply = try? watch.receive(timeout: .milliseconds(200)) else { continue }
            events.append(reply.untypedParameters["event"]?.objectValue ?? reply.untypedParameters)
            if condition(events) { return events }
        }
        // After the deadline, what fleetd already sent is read before giving up: a stall of the test process must not
        // fail a watch whose events wait on the socket. Fresh short timeouts (an expired one reads nothing), and a
        // bound, as fleetd may go on sending.
        let drained = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < drained, let reply = try? watch.receive(timeout: .milliseconds(500)) {
            events.append(reply.untypedParameters["event"]?.objectValue ?? reply.untypedParameters)
            if condition(events) { return events }
        }
        throw TestKitError("timed out after \(timeout) watching \(device ?? "all devices"); got \(events.count) events\n--- fleetd log (tail) ---\n\(logTail())")
    }

    private func openWatch(device: String?) throws -> VarlinkConnection {
        let watch = try VarlinkConnection(path: socketPath)
        try watch.send(FleetRequest.watch(device: device).call())
        return watch
    }

    private static func states(_ devices: [String: [String: JSONValue]]) -> [String: String] {
        devices.mapValues { $0["state"]?.stringValue ?? "?" }
    }
}
