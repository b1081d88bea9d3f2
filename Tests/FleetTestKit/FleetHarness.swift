import FleetCLI
import FleetProtocol
import FleetPlatform
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real product on a private bus: a dbus-daemon, the BlueZ simulator with a scenario, and fleetd with a
/// configuration, each a child process. Tests drive the simulator through its test-control interface,
/// fleetd through its control socket and the fleetctl binary, and wait on events with deadlines.
public final class FleetHarness: FleetControlClient, @unchecked Sendable {
    public let bus: PrivateBus
    public let directory: String
    public let control: DBusConnection
    public internal(set) var simulator: ChildProcess?
    public private(set) var fleetd: ChildProcess?
    public let configPath: String
    public var socketPath: String { directory + "/fleetd.sock" }
    /// The SQLite store fleetd runs with (`--store`): the fleet's state and the outbox.
    public var storePath: String { directory + "/fleetd.db" }
    /// Where fleetd looks for an older fleetd's JSON snapshot to import once (`snapshot.json` beside the store).
    public var snapshotPath: String { directory + "/snapshot.json" }
    /// The outbox lives in the store.
    public var outboxPath: String { storePath }
    public var fleetdLog: String { directory + "/fleetd.log" }
    public let logTarget: String
    private var restarts = 0

    /// Starts the bus and the simulator (waiting until it owns org.bluez), then fleetd (waiting for READY=1).
    public init(scenario: String, configuration: String, simulatorArguments: [String] = [], logTarget: String = "stderr",
                startFleetd: Bool = true) async throws {
        bus = try PrivateBus()
        directory = bus.directory.path
        self.logTarget = logTarget
        control = try DBusConnection(address: bus.address)
        let scenarioPath = directory + "/test.scenario"
        try scenario.write(toFile: scenarioPath, atomically: true, encoding: .utf8)
        configPath = directory + "/fleetd.conf"
        try configuration.write(toFile: configPath, atomically: true, encoding: .utf8)
        let owners = try await control.signals(matching: DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
                                                                       member: "NameOwnerChanged", arg0: "org.bluez"))
        simulator = try ChildProcess(BuildProducts.path("bluez-sim"), ["--bus", bus.address, "--scenario", scenarioPath] + simulatorArguments,
                                     stdout: directory + "/sim.out", stderr: directory + "/sim.log")
        try await Self.first(owners, within: .seconds(20), "the simulator to own org.bluez")
        if startFleetd { try await startDaemon() }
    }

    private static func first(_ stream: AsyncStream<DBusMessage>, within timeout: Duration, _ what: String) async throws {
        let got = await withTaskGroup(of: Bool.self) { group in
            group.addTask { for await _ in stream { return true }; return false }
            group.addTask { try? await Task.sleep(for: timeout); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard got else { throw TestKitError("timed out waiting for \(what)") }
    }

    /// Starts fleetd and returns once it has sent READY=1.
    func startDaemonBlocking(readyTimeout: Duration) throws {
        let notify = try spawnDaemon()
        do {
            try notify.wait(for: "READY=1", timeout: readyTimeout)
        } catch {
            throw TestKitError("\(error)\n--- fleetd log ---\n\(log())")
        }
        readyNotifications = notify.received
    }

    /// Starts fleetd without waiting for READY=1, for a test that acts while it is still starting; wait for it
    /// with `waitForNotification("READY=1")`.
    @discardableResult
    public func spawnDaemon() throws -> NotifySocket {
        restarts += 1
        let notify = try NotifySocket(path: directory + "/notify-\(restarts)")
        notifySocket = notify
        var env = bus.environment(["NOTIFY_SOCKET": notify.path])
        for (key, value) in daemonEnvironment { env[key] = value }
        env.removeValue(forKey: "JOURNAL_STREAM")
        fleetd = try ChildProcess(BuildProducts.path("fleetd"),
                                  ["--config", configPath, "--bus", bus.address, "--store", storePath, "--socket", socketPath,
                                   "--log-target", logTarget, "--log-level", "debug"],
                                  environment: env, stdout: fleetdLog, stderr: fleetdLog)
        return notify
    }

    /// Starts fleetd and returns once it has sent READY=1.
    public func startDaemon(readyTimeout: Duration = .seconds(30)) async throws {
        try await offPool { try self.startDaemonBlocking(readyTimeout: readyTimeout) }
    }

    /// Extra environment for fleetd (e.g. WATCHDOG_USEC), applied at the next start.
    public var daemonEnvironment: [String: String] = [:]

    /// The notify socket of the running fleetd: wait on it for STATUS=, WATCHDOG=1, STOPPING=1.
    public private(set) var notifySocket: NotifySocket?

    /// Waits for a line (e.g. `WATCHDOG=1`) on fleetd's notify socket.
    public func waitForNotification(_ line: String, timeout: Duration = .seconds(30)) async throws {
        guard let socket = notifySocket else { throw TestKitError("fleetd was never started") }
        try await offPool { try socket.wait(for: line, timeout: timeout) }
    }

    /// Sends a signal to fleetd and, for SIGTERM/SIGINT, waits for it to exit; returns the exit code.
    @discardableResult
    public func signalDaemon(_ signal: Int32) async throws -> Int32? {
        guard let fleetd else { throw TestKitError("fleetd is not running") }
        try fleetd.kill(signal: signal)
        guard signal == SIGTERM || signal == SIGINT else { return nil }
        let code = try await offPool { fleetd.wait(timeout: .seconds(30)) }
        self.fleetd = nil
        return code
    }

    /// What the notify socket received up to READY=1 at the last start.
    public private(set) var readyNotifications: [String] = []

    /// Kills fleetd (SIGKILL by default: no chance to clean up, as in a crash).
    public func killDaemon(signal: Int32 = SIGKILL) async throws {
        guard let fleetd else { return }
        try await offPool {
            try fleetd.kill(signal: signal)
            if signal != SIGKILL { _ = fleetd.wait(timeout: .seconds(20)) }
        }
        self.fleetd = nil
    }

    public func log() -> String { (try? String(contentsOfFile: fleetdLog, encoding: .utf8)) ?? "" }

    // MARK: The simulator's test-control interface

    @discardableResult
    public func sim(_ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await control.call(destination: "io.fleetd.Simulator", path: "/io/fleetd/sim", interface: "io.fleetd.Simulator1",
                               member: member, arguments: arguments).body
    }

    /// How many Device1 objects the simulator reports connected.
    public func connectedDeviceCount() async throws -> Int {
        let objects = try await control.call(destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                                             member: "GetManagedObjects", expecting: "a{oa{sa{sv}}}")
        return objects.first?.dictEntries?.filter {
            $0.value.stringKeyed?["org.bluez.Device1"]?.stringKeyed?["Connected"]?.unwrapped.bool == true
        }.count ?? 0
    }

    /// The simulator's global counters (ConnectsAttempted, LinksUp, NotificationsSent, …).
    public func counters(device: String? = nil) async throws -> [String: Int64] {
        let body: [DBusValue]
        if let device { body = try await sim("DeviceCounters", [.string(device)]) } else { body = try await sim("Counters") }
        var out: [String: Int64] = [:]
        let entries: [String: DBusValue] = body.first?.stringKeyed ?? [:]
        for (key, value) in entries { out[key] = value.unwrapped.integer ?? 0 }
        return out
    }

    // The control socket's calls, waits and fleetctl: FleetControlClient.

    public func stop() {
        try? fleetd?.kill(signal: SIGKILL)
        try? simulator?.kill(signal: SIGKILL)
        control.close()
        bus.stop()
    }

    deinit { stop() }
}
