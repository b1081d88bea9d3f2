import FleetPlatform
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// bluetoothd restarts, as the simulator plays them: the process is killed (SIGKILL: no goodbye, as in a
/// crash) and started again with the same scenario and arguments, so the world begins again from its start.
extension FleetHarness {
    /// Kills the simulator; org.bluez leaves the bus. Returns once the process is reaped.
    public func killSimulator() async throws {
        guard let simulator else { return }
        try await offPool { try simulator.kill(signal: SIGKILL) }
        self.simulator = nil
    }

    /// Starts the simulator again on the same scenario file with `arguments` (pass the ones the harness was
    /// made with, e.g. the time scale and seed), and returns once it owns org.bluez.
    public func startSimulator(arguments: [String], within timeout: Duration = .seconds(20)) async throws {
        let owners = try await control.signals(matching: DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
                                                                       member: "NameOwnerChanged", arg0: "org.bluez"))
        simulator = try ChildProcess(BuildProducts.path("bluez-sim"), ["--bus", bus.address, "--scenario", directory + "/test.scenario"] + arguments,
                                     stdout: directory + "/sim.out", stderr: directory + "/sim.log")
        let owned = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await message in owners where message.body.count == 3 && message.body[2].string?.isEmpty == false { return true }
                return false
            }
            group.addTask { try? await Task.sleep(for: timeout); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard owned else { throw TestKitError("the restarted simulator did not own org.bluez within \(timeout)") }
    }

    /// A bluetoothd restart: kill, then start again with the same scenario and `arguments`.
    public func restartSimulator(arguments: [String]) async throws {
        try await killSimulator()
        try await startSimulator(arguments: arguments)
    }
}
