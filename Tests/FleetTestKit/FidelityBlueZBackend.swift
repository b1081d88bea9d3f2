import FleetPlatform
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The fidelity scenarios on real bluetoothd in the bluez-vm guest: fleetd on the system bus using hci0 (and hci5),
/// every suite peripheral served by `fidelity-peripheral.py` from its own btvirt controller (started once
/// per boot), and the radio-side actions done with btmgmt on the peripheral's controller.
public final class FidelityBlueZBackend: FidelityBackend, @unchecked Sendable {
    // @unchecked: the mutable state is touched only by the one runner task, one scenario at a time.
    public let name = "bluez"
    /// Under TCG a connect and service resolution take 5–10 s, against well under 1 s on the simulator.
    public let patience = 4
    public let bus: DBusConnection
    public let fleetdBusAddress: String? = nil
    private let work: TemporaryDirectory
    private let script: String
    private let environment: [String: String]
    /// The peripheral script now running, the setup it was started with, and its generation (each start
    /// writes to its own output files, so that one start's lines never answer the next's waits).
    private var peripheralProcess: ChildProcess?
    private var peripheralSetup = FidelityPeripheralSetup.plain
    private var generation = 0
    private let fifo: String
    private var peripheralOutput: String { work.path + "/peripheral-\(generation).out" }
    private var peripheralErrors: String { work.path + "/peripheral-\(generation).err" }
    private var addresses: [String: String] = [:]
    private var publicAddresses: [String: String] = [:]
    /// Peripheral controllers currently in LE privacy (advertising from a resolvable private address).
    private var inPrivacy: Set<Int> = []
    private let centralAddress: String
    private var directory: String?
    private var scenarioCount = 0
    /// Where to copy fleetd's log of a failed scenario (the guest's own files vanish at power-off).
    private let keepLogs: String?

    /// Prepares the peripherals; `start(_:)` runs them. `script` is fidelity-peripheral.py; `keepLogs` a
    /// host-visible directory for failure logs.
    public init(script: String, keepLogs: String?) throws {
        self.keepLogs = keepLogs
        self.script = script
        bus = try DBusConnection.system()
        work = try TemporaryDirectory(prefix: "fleet-fidelity")
        fifo = work.path + "/peripheral.fifo"
        guard mkfifo(fifo, 0o600) == 0 else { throw FidelityFailure("mkfifo \(fifo) failed") }
        let environment = ProcessInfo.processInfo.environment
        let listed = (environment["BLUEZ_VM_ADDRESSES"] ?? "").split(separator: " ").map(String.init)
        centralAddress = listed.first ?? "00:AA:01:00:00:00"
        for peripheral in FidelityPeripheral.all {
            addresses[peripheral.label] = peripheral.controller < listed.count ? listed[peripheral.controller] : peripheral.initialAddress
        }
        publicAddresses = addresses
        guard listed.count >= FidelityPeripheral.controllersNeeded else {
            throw FidelityFailure("the guest has \(listed.count) controllers; the suite needs \(FidelityPeripheral.controllersNeeded) (run --controllers)")
        }
        var env = environment
        env["FIDELITY_PERIPHERAL_FIFO"] = fifo
        self.environment = env
    }

    /// Starts the peripheral script with `setup` (the first scenario's) and waits until every GATT application
    /// and advertisement is registered with bluetoothd.
    public func start(_ setup: FidelityPeripheralSetup = .plain) async throws {
        guard peripheralProcess == nil || setup != peripheralSetup else { return }
        if let running = peripheralProcess {
            // SIGTERM: the script leaves the bus, and bluetoothd unregisters its applications, advertisements
            // and agent with it.
            try running.kill(signal: SIGTERM)
            guard try await offPool({ running.wait(timeout: .seconds(20)) }) != nil else {
                throw FidelityFailure("the peripheral script did not exit within 20 s of SIGTERM")
            }
        }
        generation += 1
        peripheralSetup = setup
        peripheralProcess = try ChildProcess("/usr/bin/python3",
                                             ["-u", script] + setup.scriptArguments + FidelityPeripheral.all.map(\.peripheralArgument),
                                             environment: environment, stdout: peripheralOutput, stderr: peripheralErrors)
        try await waitForOutput("fidelity-peripheral: ready", timeout: .seconds(90))
    }

    deinit { try? peripheralProcess?.kill(signal: SIGKILL) }

    private func output() -> String { (try? String(contentsOfFile: peripheralOutput, encoding: .utf8)) ?? "" }

    /// Waits for a line of the peripheral's stdout (it flushes every line); fails if the script exits.
    private func waitForOutput(_ line: String, timeout: Duration, occurrence: Int = 1) async throws {
        guard let process = peripheralProcess else { throw FidelityFailure("the peripheral script is not running") }
        let path = peripheralOutput, errors = peripheralErrors
        try await offPool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                if text.split(separator: "\n").filter({ $0 == line }).count >= occurrence { return }
                if text.contains("failed:") || !process.isRunning {
                    let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                    throw FidelityFailure("the peripheral script stopped: \(text)\(stderr)")
                }
                // A file written by another process has no pollable event; 50 ms granularity within the deadline.
                usleep(50_000)
            }
            throw FidelityFailure("no '\(line)' from the peripheral script within \(timeout): \(text(path))")
        }
    }

    /// One command to the peripheral script, waited for until it answers `ok`.
    private func command(_ text: String) async throws {
        // Counted before the command goes, so that a quick answer cannot be counted as an earlier one.
        let seen = output().split(separator: "\n").filter { $0 == "ok \(text)" }.count
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: fifo))
        try handle.write(contentsOf: Data((text + "\n").utf8))
        try handle.close()
        try await waitForOutput("ok \(text)", timeout: .seconds(30), occurrence: seen + 1)
    }

    /// Runs btmgmt (the guest's wrapper, which gives it the stdin it needs) and fails on a non-zero exit.
    @discardableResult
    private func btmgmt(_ arguments: [String]) async throws -> String {
        let result = try await offPool { try ChildProcess.run("btmgmt", arguments, timeout: .seconds(30)) }
        guard result.code == 0 else { throw FidelityFailure("btmgmt \(arguments.joined(separator: " ")) exited \(result.code): \(result.stdout)\(result.stderr)") }
        return result.stdout
    }

    public func begin(_ scenario: FidelityScenario) async throws -> String {
        scenarioCount += 1
        try await start(scenario.peripheralSetup)
        try await clearCentral()
        for peripheral in FidelityPeripheral.all where scenario.offAirAtStart.contains(peripheral.label) {
            try await command("advertise hci\(peripheral.controller) off")
        }
        let made = work.path + "/\(scenarioCount)-\(scenario.name)"
        try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
        directory = made
        return made
    }

    public func end(_ scenario: FidelityScenario, failed: Bool) async {
        if failed, let keepLogs, let directory {
            try? FileManager.default.createDirectory(atPath: keepLogs, withIntermediateDirectories: true)
            let target = keepLogs + "/\(scenarioCount)-\(scenario.name)-fleetd.log"
            try? FileManager.default.removeItem(atPath: target)
            try? FileManager.default.copyItem(atPath: directory + "/fleetd.log", toPath: target)
            let peripheral = keepLogs + "/\(scenarioCount)-\(scenario.name)-peripheral.out"
            try? FileManager.default.removeItem(atPath: peripheral)
            try? FileManager.default.copyItem(atPath: peripheralOutput, toPath: peripheral)
        }
        // The peripheral side's keys go too (fleetd's go with clearCentral's RemoveDevice), so that the next
        // scenario meets an unpaired peripheral.
        for peripheral in FidelityPeripheral.all where scenario.peripheralSetup.mayBond(peripheral) {
            try? await forgetBonds(peripheral)
        }
        for peripheral in FidelityPeripheral.all where scenario.offAirAtStart.contains(peripheral.label) {
            try? await command("advertise hci\(peripheral.controller) on")
        }
        await restorePublicAddresses()
        try? await clearCentral()
    }

    /// No links and no Device1 objects left on fleetd's adapters, so that each scenario starts from discovery.
    private func clearCentral() async throws {
        for device in try await centralDevices() {
            try await removeDevice(device.path, adapter: device.adapter)
        }
        try await waitUntil("the central adapters' Device1 objects removed", timeout: .seconds(30)) { try await self.centralDevices().isEmpty }
    }

    /// Adapter1.RemoveDevice (which disconnects first); a device already gone is fine.
    private func removeDevice(_ path: String, adapter: String) async throws {
        let result: Result<Void, DBusError>
        do {
            _ = try await bus.call(destination: "org.bluez", path: adapter, interface: "org.bluez.Adapter1",
                                   member: "RemoveDevice", arguments: [.objectPath(path)], timeout: .seconds(30))
            result = .success(())
        } catch {
            result = .failure(error)
        }
        if case .failure(let error) = result, error.name != "org.bluez.Error.DoesNotExist" { throw error }
    }

    /// The peripheral forgets its bonds without deleting keys under a live link: it goes off the air (so fleetd
    /// cannot reconnect meanwhile), drops the link as link-drop-rearm does, waits until its side of the link is
    /// gone, then the script's `forget hciN` (RemoveDevice of the paired objects: the keys go,
    /// device_remove_stored), and it advertises again. (This forget itself is clean; fleetd's next reconnect on
    /// the forgotten key is what faults the guest kernel, so the stale-bond scenarios stay on the simulator:
    /// docs/bluez-fidelity.md.)
    public func forgetBonds(_ peripheral: FidelityPeripheral) async throws {
        let controller = peripheral.controller
        try await command("advertise hci\(controller) off")
        if try await peripheralLinks(controller) > 0 {
            _ = try? await btmgmt(["--index", "\(controller)", "disconnect", "-t", "1", centralAddress])
            try await waitUntil("hci\(controller)'s link to fleetd's adapter gone", timeout: .seconds(30)) {
                try await self.peripheralLinks(controller) == 0
            }
        }
        try await command("forget hci\(controller)")
        try await command("advertise hci\(controller) on")
    }

    /// Connected Device1 objects under the peripheral's own adapter (its view of the centrals linked to it).
    private func peripheralLinks(_ controller: Int) async throws -> Int {
        try await managedObjects().filter { path, interfaces in
            path.hasPrefix("/org/bluez/hci\(controller)/dev_") && interfaces["org.bluez.Device1"]?["Connected"]?.unwrapped.bool == true
        }.count
    }

    public func address(of peripheral: FidelityPeripheral) async throws -> String {
        addresses[peripheral.label] ?? peripheral.initialAddress
    }

    public func dropLink(_ peripheral: FidelityPeripheral) async throws {
        // The peripheral's side ends the link (as a device going out of range does from fleetd's view: no
        // Disconnect call of fleetd's own); it advertises again at once.
        try await btmgmt(["--index", "\(peripheral.controller)", "disconnect", "-t", "1", centralAddress])
    }

    /// A power cycle into LE privacy with a fresh IRK: the controller comes back advertising from a new
    /// resolvable private address, as a phone does. (A new static address, the other way to get a new
    /// address, leaves bluetoothd 5.66's GATT server listening on the old one, so nothing would answer ATT
    /// on the new link: docs/bluez-fidelity.md.) The new address is the one hci0 discovers with the
    /// peripheral's manufacturer data.
    public func changeAddress(_ peripheral: FidelityPeripheral) async throws {
        let before = try await address(of: peripheral)
        try await powerCycle(peripheral.controller, privacy: true)
        inPrivacy.insert(peripheral.controller)
        var found: String?
        try await waitUntil("hci0 to discover \(peripheral.label) at a new address", timeout: .seconds(60)) {
            found = try await self.centralDevices().first { $0.serial == peripheral.serial && $0.address != before }?.address
            return found != nil
        }
        addresses[peripheral.label] = found
    }

    /// Powers a controller off, turns LE privacy on (a fresh IRK) or off, and powers it on again.
    private func powerCycle(_ controller: Int, privacy: Bool) async throws {
        let index = "\(controller)"
        try await btmgmt(["--index", index, "power", "off"])
        try await btmgmt(["--index", index, "privacy", privacy ? "on" : "off"])
        try await btmgmt(["--index", index, "power", "on"])
    }

    /// Controllers put into privacy by `changeAddress`, back to their public address for what follows.
    private func restorePublicAddresses() async {
        for controller in inPrivacy.sorted() {
            try? await powerCycle(controller, privacy: false)
            if let peripheral = FidelityPeripheral.all.first(where: { $0.controller == controller }) {
                addresses[peripheral.label] = publicAddresses[peripheral.label]
            }
        }
        inPrivacy.removeAll()
    }

    public func putOnAir(_ peripheral: FidelityPeripheral) async throws {
        try await command("advertise hci\(peripheral.controller) on")
    }
}

private func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
