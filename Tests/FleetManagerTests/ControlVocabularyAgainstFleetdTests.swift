import FleetCLI
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// What fleetd says on its control socket about states and evictions, read by the same types fleetctl uses:
/// the daemon's words and the client's must be one vocabulary.
@Suite("fleetd's control vocabulary", .serialized)
struct ControlVocabularyAgainstFleetdTests {
    /// fleetctl in this process, with colour forced on as on a terminal.
    static func fleetctl(_ arguments: [String], socket: String) async throws -> (code: FleetctlExitCode, output: String) {
        try await offPool {
            final class Capture: @unchecked Sendable { var output = "" }
            let capture = Capture()
            let runner = FleetctlRunner(standardOutput: { capture.output += $0 }, standardError: { capture.output += $0 }, colour: true)
            let code = runner.main(arguments: arguments, environment: ["FLEETCTL_SOCKET": socket])
            return (code, capture.output)
        }
    }

    @Test("a device backing off is `backingOff` on every wire, and fleetctl colours it")
    func backingOff() async throws {
        let config = SupervisorScenarioTests.wanted(1...1, policyClass: "normal")
            + "\n[policy \"normal\"]\nbackoff-base = 1s\nbackoff-factor = 8\nbackoff-cap = 60s\njitter = none\n"
        let harness = try await FleetHarness(scenario: "adapters 1\n" + SupervisorScenarioTests.straps(1), configuration: config, startFleetd: false)
        defer { harness.stop() }
        try await harness.sim("SetConnectBehaviour", [.string("s1"), .string("fail"), .string(""), .string("")])
        try await harness.startDaemon()
        let id = SupervisorScenarioTests.id(1)
        let events = try await harness.watch(device: id) { events in
            events.contains { $0["kind"]?.stringValue == "lifecycle" && $0["state"]?.stringValue == DeviceState.backingOff.rawValue }
        }
        #expect(!events.contains { $0["state"]?.stringValue == "backoff" }, "the Watch stream speaks the interface's names")
        // Delays of 1 s, 8 s, then 60 s (the Watch above sees at least the third backoff, about 10 s after the start):
        // wait for the 60 s one, so the checks below see the device still backing off. It runs on fleetd's real
        // clock: with 30 s left, a stall of the test process cannot let the retry start first.
        try await harness.waitFor("a long backoff") { devices in
            devices[id]?["state"]?.stringValue == "backingOff" && (devices[id]?["nextRetryInSeconds"]?.doubleValue ?? 0) > 30
        }
        let listed = try await Self.fleetctl(["devices"], socket: harness.socketPath)
        #expect(listed.code == .success, "\(listed.output)")
        #expect(listed.output.contains("\u{1B}[33mbackingOff\u{1B}[0m"), "yellow, as the colour table says: \(listed.output)")
        let metrics = try await Self.fleetctl(["metrics"], socket: harness.socketPath)
        #expect(metrics.output.contains("fleetd_devices{state=\"backingOff\"} 1"), "\(metrics.output)")
    }

    @Test("a Connect that evicts names the evicted device's id, and says so in its note")
    func connectEvicting() async throws {
        let scenario = "adapters 1\ncapacity 1\n" + SupervisorScenarioTests.straps(2)
        // Whichever strap connects first, the normal one gets the slot within the (short) eviction hold-off once
        // the critical one lets go: with the default 60 s an early eviction of the normal strap outlasted the wait.
        let config = "[daemon]\neviction-hold-off = 5s\n[adapters]\ncapacity = 1\n" + SupervisorScenarioTests.wanted(1...1, policyClass: "normal") + "\n"
            + SupervisorScenarioTests.wanted(2...2, policyClass: "critical") + "\n[policy \"normal\"]\nmin-hold = 0s\n"
        let harness = try await FleetHarness(scenario: scenario, configuration: config)
        defer { harness.stop() }
        let normal = SupervisorScenarioTests.id(1), critical = SupervisorScenarioTests.id(2)
        try await harness.waitFor("the critical strap ready", SupervisorScenarioTests.allReady([critical]))
        _ = try await harness.call(.disconnect, ["device": .string(critical)])
        try await harness.waitFor("the normal strap takes the freed slot", SupervisorScenarioTests.allReady([normal]))

        let socket = harness.socketPath
        let outcome = try await offPool {
            try VarlinkConnection(path: socket).call(.connect(device: critical), replying: ConnectOutcome.self, timeout: .seconds(30))
        }
        #expect(outcome.device == critical)
        #expect(outcome.evicted == normal, "evicted is the identity id of the device that lost its slot: \(outcome)")
        let note = try #require(outcome.note)
        #expect(note.contains("evict") && note.contains(normal), "the note says who was evicted, in a sentence: \(note)")
        try await harness.waitFor("the normal strap evicted") { $0[normal]?["state"]?.stringValue == "evicted" }
    }
}
