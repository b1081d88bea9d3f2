import FleetTestKit
import Foundation
import Testing

/// A device offering standard services, configured with no `subscribe` or `read`: fleetd arms its profiles itself,
/// `fleetctl show` says what its Device Information said, and `readings` prints readings; the same device with
/// `profile = none` is delivered raw.
@Suite("standard profiles against fleetd", .serialized)
struct StandardProfileFleetdTests {
    static let scenario = """
    adapters 1
    device c1 address=C8:B2:1E:00:00:21 name="Cuff 1" profile=blood-pressure,device-information notify-every=0.2 interval=0.2
    device c2 address=C8:B2:1E:00:00:22 name="Cuff 2" profile=blood-pressure,device-information notify-every=0.2 interval=0.2
    """
    static let config = """
    [device "addr-C8B21E000021"]
    name = Cuff 1
    [device "addr-C8B21E000022"]
    name = Cuff 2
    profile = none
    subscribe = 2a35
    """
    static let standard = "addr-C8B21E000021", raw = "addr-C8B21E000022"

    static func readings(_ h: FleetHarness, _ device: String) async throws -> [[String: Any]] {
        let out = try await h.fleetctl(["--json", "readings", device]).stdout
        let page = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        return page?["readings"] as? [[String: Any]] ?? []
    }

    @Test("armed by itself, Device Information in show, decoded readings; profile = none stays raw")
    func armedByItselfAndDecoded() async throws {
        let h = try await FleetHarness(scenario: Self.scenario, configuration: Self.config)
        defer { h.stop() }
        try await h.waitFor("both ready", SupervisorScenarioTests.allReady([Self.standard, Self.raw]))
        try await waitUntil("blood-pressure measurements of both cuffs stored", timeout: .seconds(30)) {
            let standard = try await Self.readings(h, Self.standard), raw = try await Self.readings(h, Self.raw)
            return standard.contains { ($0["characteristic"] as? String)?.hasPrefix("00002a35") == true }
                && raw.contains { ($0["characteristic"] as? String)?.hasPrefix("00002a35") == true }
        }
        // The simulator's Device Information (docs/simulator.md): read once per link because nothing was configured.
        let shown = try await h.fleetctl(["show", Self.standard]).stdout
        for line in ["manufacturer:", "fleetd simulator", "model:", "SIM-1", "serial:", "0001", "firmware:", "1.0.0"] {
            #expect(shown.contains(line), "show lacks \(line): \(shown)")
        }
        #expect(!(try await h.fleetctl(["show", Self.raw]).stdout.contains("manufacturer:")), "profile = none reads nothing of its own")

        // BLS §3.1: the cuff's first reading is 110/70 mmHg (the simulator's ground truth #0).
        let table = try await h.fleetctl(["readings", Self.standard]).stdout
        #expect(table.contains("READING") && table.contains("mmHg"), "\(table)")
        let decoded = try await Self.readings(h, Self.standard).filter { ($0["characteristic"] as? String)?.hasPrefix("00002a35") == true }
        #expect(decoded.allSatisfy { $0["observations"] != nil }, "\(decoded.prefix(2))")
        let raw = try await Self.readings(h, Self.raw)
        #expect(!raw.isEmpty && raw.allSatisfy { $0["observations"] == nil && $0["decodeError"] == nil }, "\(raw.prefix(2))")
    }
}
