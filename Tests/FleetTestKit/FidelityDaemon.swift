import FleetCLI
import FleetProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// fleetd as the fidelity suite runs it: the built binary on a given bus (a private one with the simulator,
/// or the guest's system bus with real bluetoothd), driven through its control socket and fleetctl, with
/// its log kept in a file for assertions. Both backends use this same type, so every assertion is the same.
public final class FidelityDaemon: FleetControlClient, @unchecked Sendable {
    // @unchecked: `process` and `restarts` are changed only by the one scenario task that owns this value.
    public let directory: String
    /// nil: the system bus.
    public let busAddress: String?
    public let configPath: String
    public var socketPath: String { directory + "/fleetd.sock" }
    /// The SQLite store (the fleet's state and the outbox).
    public var storePath: String { directory + "/fleetd.db" }
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
        var arguments = ["--config", configPath, "--store", storePath, "--socket", socketPath,
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
}
