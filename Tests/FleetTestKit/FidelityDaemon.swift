import FleetControl
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// fleetd as the fidelity suite runs it: the built binary on a given bus (a private one with the simulator,
/// or the guest's system bus with real bluetoothd), driven through its control socket and fleetctl, with
/// its log kept in a file for assertions. Both backends use this same type, so every assertion is the same.
public final class FidelityDaemon: @unchecked Sendable {
    // @unchecked: `process` and `restarts` are changed only by the one scenario task that owns this value.
    public let directory: String
    /// nil: the system bus.
    public let busAddress: String?
    public let configPath: String
    public var socketPath: String { directory + "/fleetd.sock" }
    public var snapshotPath: String { directory + "/snapshot.json" }
    public var logPath: String { directory + "/fleetd.log" }
    private var process: ChildProcess?
    private var restarts = 0

    public init(directory: String, busAddress: String?, configuration: String) throws {
        self.directory = directory
        self.busAddress = busAddress
        configPath = directory + "/fleetd.conf"
        try configuration.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Starts fleetd and returns once it has sent READY=1 (reconciliation with BlueZ done).
    public func start(readyTimeout: Duration = .seconds(60)) async throws {
        try await offPool { try self.startBlocking(readyTimeout: readyTimeout) }
    }

    private func startBlocking(readyTimeout: Duration) throws {
        restarts += 1
        let notify = try NotifySocket(path: directory + "/notify-\(restarts)")
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        environment.removeValue(forKey: "JOURNAL_STREAM")
        if let busAddress { environment["DBUS_SYSTEM_BUS_ADDRESS"] = busAddress }
        var arguments = ["--config", configPath, "--snapshot", snapshotPath, "--socket", socketPath,
                         "--log-target", "stderr", "--log-level", "debug"]
        if let busAddress { arguments += ["--bus", busAddress] }
        process = try ChildProcess(BuildProducts.path("fleetd"), arguments, environment: environment, stdout: logPath, stderr: logPath)
        do {
            try notify.wait(for: "READY=1", timeout: readyTimeout)
        } catch {
            throw TestKitError("\(error)\n--- fleetd log (tail) ---\n\(logTail())")
        }
    }

    /// Kills fleetd: SIGKILL (a crash, no clean-up) or SIGTERM (a clean stop, waited for).
    public func kill(signal: Int32 = SIGKILL) async throws {
        guard let process else { return }
        try await offPool {
            try process.kill(signal: signal)
            if signal != SIGKILL { _ = process.wait(timeout: .seconds(20)) }
        }
        self.process = nil
    }

    public func stop() {
        try? process?.kill(signal: SIGKILL)
        process = nil
    }

    deinit { stop() }

    public func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

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

    /// One varlink call.
    public func call(_ method: FleetInterface.Method, _ parameters: [String: JSONValue] = [:]) async throws -> [String: JSONValue] {
        try await offPool { try self.callBlocking(method, parameters) }
    }

    private func callBlocking(_ method: FleetInterface.Method, _ parameters: [String: JSONValue] = [:]) throws -> [String: JSONValue] {
        try VarlinkConnection(path: socketPath).call(method, parameters, timeout: .seconds(60))
    }

    /// Every device as ListDevices reports it, keyed by id.
    public func devices() async throws -> [String: [String: JSONValue]] {
        try await offPool { try self.devicesBlocking() }
    }

    private func devicesBlocking() throws -> [String: [String: JSONValue]] {
        var out: [String: [String: JSONValue]] = [:]
        for entry in try callBlocking(.listDevices)["devices"]?.arrayValue ?? [] {
            if let object = entry.objectValue, let id = object["id"]?.stringValue { out[id] = object }
        }
        return out
    }

    /// Waits until `condition` holds for the device list, re-checking on every Watch event (and every 200 ms).
    public func waitFor(_ what: String, timeout: Duration,
                        _ condition: @escaping @Sendable ([String: [String: JSONValue]]) -> Bool) async throws {
        try await offPool { try self.waitForBlocking(what, timeout: timeout, condition) }
    }

    private func waitForBlocking(_ what: String, timeout: Duration, _ condition: ([String: [String: JSONValue]]) -> Bool) throws {
        let watch = try VarlinkConnection(path: socketPath)
        try watch.send(VarlinkCall(method: FleetInterface.Method.watch.qualifiedName, parameters: [:], more: true))
        let deadline = ContinuousClock.now + timeout
        var last: [String: [String: JSONValue]] = [:]
        while ContinuousClock.now < deadline {
            last = try devicesBlocking()
            if condition(last) { return }
            _ = try? watch.receive(timeout: .milliseconds(200))
        }
        throw FidelityFailure("timed out after \(timeout) waiting for \(what); devices: \(last.mapValues { $0["state"]?.stringValue ?? "?" })\n--- fleetd log (tail) ---\n\(logTail())")
    }

    /// Checks that `condition` holds throughout `window` (a bounded observation: "this never happens").
    public func holds(_ what: String, for window: Duration,
                      _ condition: @escaping @Sendable ([String: [String: JSONValue]]) -> Bool) async throws {
        try await offPool {
            let watch = try VarlinkConnection(path: self.socketPath)
            try watch.send(VarlinkCall(method: FleetInterface.Method.watch.qualifiedName, parameters: [:], more: true))
            let deadline = ContinuousClock.now + window
            while ContinuousClock.now < deadline {
                let now = try self.devicesBlocking()
                guard condition(now) else {
                    throw FidelityFailure("\(what) stopped holding; devices: \(now.mapValues { $0["state"]?.stringValue ?? "?" })")
                }
                _ = try? watch.receive(timeout: .milliseconds(200))
            }
        }
    }

    /// Collects Watch events (of one device, or all) until `condition` holds for the list so far.
    public func watch(device: String? = nil, timeout: Duration,
                      until condition: @escaping @Sendable ([[String: JSONValue]]) -> Bool) async throws -> [[String: JSONValue]] {
        try await offPool {
            let watch = try VarlinkConnection(path: self.socketPath)
            var parameters: [String: JSONValue] = [:]
            if let device { parameters["device"] = .string(device) }
            try watch.send(VarlinkCall(method: FleetInterface.Method.watch.qualifiedName, parameters: parameters, more: true))
            let deadline = ContinuousClock.now + timeout
            var events: [[String: JSONValue]] = []
            while ContinuousClock.now < deadline {
                guard let reply = try? watch.receive(timeout: .milliseconds(200)) else { continue }
                events.append(reply.parameters["event"]?.objectValue ?? reply.parameters)
                if condition(events) { return events }
            }
            throw FidelityFailure("timed out after \(timeout) watching \(device ?? "all devices"); got \(events.count) events\n--- fleetd log (tail) ---\n\(self.logTail())")
        }
    }
}
