import FleetCLI
import FleetProtocol
import Foundation

/// One fidelity scenario: the peripherals it wants, fleetd's configuration, and the steps with their
/// expected outcomes. The same value runs on both backends; only `FidelityBackend` calls differ.
public struct FidelityScenario: Sendable {
    public var name: String
    /// The peripherals fleetd is configured to want (the others stay on the air, unwanted).
    public var wanted: [FidelityPeripheral]
    /// Labels of peripherals that are off the air when the scenario starts.
    public var offAirAtStart: Set<String>
    /// fleetd's adapters, by index: hci0 alone, or hci0 and `secondCentral` for scenarios that hold two
    /// links at once (btvirt links work only while both controllers hold the same number of links:
    /// docs/bluez-fidelity.md).
    public var centrals: [Int]
    /// Each adapter's pool (`[adapters] capacity`); nil keeps fleetd's default.
    public var capacity: Int?
    /// What the peripherals' characteristics need and how their side answers pairing (`.plain`: nothing).
    public var peripheralSetup: FidelityPeripheralSetup
    /// The configuration after the common part (adapters, identity rule).
    public var configuration: String
    public var steps: @Sendable (FidelityRun) async throws -> Void

    /// fleetd's second adapter when a scenario has two (the controller after the peripherals').
    public static let secondCentral = 5

    public init(name: String, wanted: [FidelityPeripheral], offAirAtStart: Set<String> = [], centrals: [Int] = [0],
                capacity: Int? = nil, peripheralSetup: FidelityPeripheralSetup = .plain, configuration: String, steps: @escaping @Sendable (FidelityRun) async throws -> Void) {
        self.name = name
        self.wanted = wanted
        self.offAirAtStart = offAirAtStart
        self.centrals = centrals
        self.capacity = capacity
        self.peripheralSetup = peripheralSetup
        self.configuration = configuration
        self.steps = steps
    }

    /// fleetd's whole configuration: its adapters only (in the guest the other controllers are the
    /// peripherals), the manufacturer-data identity rule every scenario's devices are named by, then the
    /// scenario's part.
    public var fleetdConfiguration: String {
        """
        [adapters]
        use = \(centrals.map { "hci\($0)" }.joined(separator: " "))
        \(capacity.map { "capacity = \($0)" } ?? "")

        [identity "fidelity"]
        manufacturer = 0xffff
        bytes = 2..<6

        """ + configuration
    }

    /// A `[device]` section wanting `peripheral`; `extra` lines go into the section.
    public static func wanting(_ peripheral: FidelityPeripheral, policyClass: String = "critical", subscribe: String? = "2a37",
                               extra: String = "") -> String {
        "[device \"\(peripheral.id)\"]\nclass = \(policyClass)\n" + (subscribe.map { "subscribe = \($0)\n" } ?? "") + extra + "\n"
    }
}

/// One scenario running on one backend: its fleetd and the deadlines scaled to the backend's speed.
public struct FidelityRun: Sendable {
    public let backend: any FidelityBackend
    public let fleet: FidelityDaemon

    /// `seconds` on the simulator, longer on a slower backend.
    public func deadline(_ seconds: Int) -> Duration { .seconds(seconds * backend.patience) }

    public func state(_ id: String) async throws -> String? { try await fleet.devices()[id]?["state"]?.stringValue }

    public func waitReady(_ peripherals: [FidelityPeripheral], within seconds: Int = 30) async throws {
        let ids = peripherals.map(\.id)
        try await fleet.waitFor("\(ids.joined(separator: ", ")) ready", timeout: deadline(seconds)) { devices in
            ids.allSatisfy { devices[$0]?["state"]?.stringValue == "ready" }
        }
    }

    /// Notification events in Watch events, optionally of one characteristic (a short UUID like 2a37).
    public static func notifications(_ events: [[String: JSONValue]], characteristic: String? = nil) -> [[String: JSONValue]] {
        events.filter { event in
            guard let uuid = event["characteristic"]?.stringValue else { return false }
            return characteristic.map { uuid.lowercased().contains($0) } ?? true
        }
    }

    /// Runs fleetctl and fails the scenario unless it exits 0; returns its stdout, trimmed.
    @discardableResult
    public func fleetctl(_ arguments: [String]) async throws -> String {
        let result = try await fleet.fleetctl(arguments)
        try check(result.code == 0, "fleetctl \(arguments.joined(separator: " ")) exited \(result.code): \(result.stderr)\(result.stdout)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `fleetctl read`'s hex: its first line (a standard characteristic's decoded reading follows on the next).
    public func read(_ device: String, _ characteristic: String) async throws -> String {
        String(try await fleetctl(["read", device, characteristic]).split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
    }
}

/// How one scenario ended on one backend.
public struct FidelityResult: Sendable {
    public var scenario: String
    public var backend: String
    public var failure: String?
    public var seconds: Double
    /// How many times fleetd gave up waiting for a link to become ready (`setup-timeout`) and reconnected.
    /// A scenario may pass after such a recovery; the count says how often the backend needed one (on the
    /// rig: the bonded-peripheral ATT race, docs/bluez-fidelity.md).
    public var setUpTimeouts = 0
    public var passed: Bool { failure == nil }

    /// The summary line the runner prints: `PASS name (backend, 3.2 s)` or `FAIL name (…): why`, with
    /// `, N set-up timeout(s)` inside the parentheses when fleetd had to recover from one.
    public var line: String {
        let timing = String(format: "%.1f s", seconds) + (setUpTimeouts > 0 ? ", \(setUpTimeouts) set-up timeout(s)" : "")
        guard let failure else { return "PASS \(scenario) (\(backend), \(timing))" }
        return "FAIL \(scenario) (\(backend), \(timing)): \(failure)"
    }
}

extension FidelityScenario {
    /// Runs the scenario on `backend`: the world set up, fleetd started, the steps, the world torn down.
    public func run(on backend: any FidelityBackend) async -> FidelityResult {
        let start = ContinuousClock.now
        var failure: String?
        var fleet: FidelityDaemon?
        do {
            let directory = try await backend.begin(self)
            let daemon = try FidelityDaemon(directory: directory, busAddress: backend.fleetdBusAddress, configuration: fleetdConfiguration)
            fleet = daemon
            try await daemon.start(readyTimeout: .seconds(30 * backend.patience))
            try await steps(FidelityRun(backend: backend, fleet: daemon))
        } catch {
            failure = "\(error)"
            if let fleet, !"\(error)".contains("--- fleetd log") { failure? += "\n--- fleetd log (tail) ---\n\(fleet.logTail())" }
        }
        fleet?.stop()
        let setUpTimeouts = (fleet?.log() ?? "").components(separatedBy: " did not become ready within ").count - 1
        await backend.end(self, failed: failure != nil)
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return FidelityResult(scenario: name, backend: backend.name, failure: failure, seconds: seconds, setUpTimeouts: setUpTimeouts)
    }
}
