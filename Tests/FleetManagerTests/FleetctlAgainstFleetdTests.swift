import FleetCLI
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// The built fleetctl against a running fleetd on the simulator: every subcommand, as a table and as JSON.
@Suite("fleetctl against fleetd", .serialized)
struct FleetctlAgainstFleetdTests {
    static let scenario = """
    adapters 1
    capacity 3
    device s1 address=A0:00:00:00:00:01 name="Strap 1" profile=heart-rate,battery interval=0.5
    device g1 address=C8:B2:1E:00:00:10 name="Glucose" profile=glucose,battery,control-point interval=1 mtu=23
    """
    static let config = """
    [adapters]
    capacity = 3
    [device "addr-A00000000001"]
    name = Bed 1 strap
    class = critical
    subscribe = 2a37
    [device "addr-C8B21E000010"]
    name = Glucose meter
    read = 2a18
    """
    static let strap = "addr-A00000000001", glucose = "addr-C8B21E000010"

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("status, devices, show, read, write, evict, connect, disconnect, set-policy, forget, reload, metrics, watch")
    func everySubcommand() async throws {
        let h = try await FleetHarness(scenario: Self.scenario, configuration: Self.config)
        defer { h.stop() }
        try await h.waitFor("both ready", SupervisorScenarioTests.allReady([Self.strap, Self.glucose]))

        let status = try await h.fleetctl(["status"])
        #expect(status.code == 0 && status.stdout.contains("hci0") && status.stdout.contains("2/3"), "\(status)")
        let statusJSON = try json(try await h.fleetctl(["--json", "status"]).stdout)
        #expect((statusJSON["counts"] as? [String: Any])?["ready"] as? Int == 2)

        let list = try await h.fleetctl(["devices"])
        #expect(list.stdout.contains("Bed 1 strap") && list.stdout.contains("ready"))
        let listJSON = try json(try await h.fleetctl(["list", "--json"]).stdout)
        #expect((listJSON["devices"] as? [[String: Any]])?.count == 2)

        // A device by display name, by address and by unique prefix.
        let shown = try await h.fleetctl(["show", "Glucose meter"])
        #expect(shown.code == 0 && shown.stdout.contains(Self.glucose), "\(shown)")
        #expect(try await h.fleetctl(["show", "A0:00:00:00:00:01"]).stdout.contains(Self.strap))
        let detail = try json(try await h.fleetctl(["--json", "show", "addr-C8B2"]).stdout)
        let characteristics = (detail["detail"] as? [String: Any])?["characteristics"] as? [[String: Any]] ?? detail["characteristics"] as? [[String: Any]] ?? []
        #expect(characteristics.contains { ($0["uuid"] as? String)?.hasPrefix("00002a18") == true })

        // A record longer than the 23-byte MTU comes back whole through offset reads.
        let read = try await h.fleetctl(["read", Self.glucose, "2a18"])
        #expect(read.code == 0 && read.stdout.filter(\.isHexDigit).count > 2 * 20, "\(read)")
        let readJSON = try json(try await h.fleetctl(["--json", "read", Self.glucose, "2a18"]).stdout)
        #expect(readJSON["value"] != nil)
        let controlPoint = try await h.fleetctl(["show", "--json", Self.glucose])
        #expect(controlPoint.code == 0)
        let written = try await h.fleetctl(["write", Self.glucose, "2a52", "0101"])
        #expect(written.code == 0 || written.stderr.contains("org.bluez.Error"), "write either succeeds or names BlueZ's error: \(written)")

        let unknown = try await h.fleetctl(["show", "no-such-device"])
        #expect(unknown.code == 3, "not found has its own exit code")

        let evicted = try await h.fleetctl(["evict", Self.glucose])
        #expect(evicted.code == 0, "\(evicted)")
        try await h.waitFor("glucose evicted") { $0[Self.glucose]?["state"]?.stringValue == "evicted" }
        let connected = try await h.fleetctl(["--json", "connect", Self.glucose])
        #expect(connected.code == 0, "\(connected)")
        try await h.waitFor("glucose back after connect") { $0[Self.glucose]?["state"]?.stringValue == "ready" }

        let policy = try await h.fleetctl(["set-policy", Self.glucose, "critical"])
        #expect(policy.code == 0, "\(policy)")
        #expect(try await h.fleetctl(["set-policy", Self.glucose, "vip"]).code != 0)

        let disconnected = try await h.fleetctl(["disconnect", Self.glucose])
        #expect(disconnected.code == 0)
        try await h.waitFor("glucose idle") { $0[Self.glucose]?["state"]?.stringValue == "idle" }

        let watched = try await h.fleetctl(["watch", "--json", "--count", "3", Self.strap], timeout: .seconds(20))
        #expect(watched.code == 0 && watched.stdout.split(separator: "\n").count == 3, "\(watched)")

        let metrics = try await h.fleetctl(["metrics"])
        #expect(metrics.stdout.contains("fleetd_devices{state=\"ready\"} 1") && metrics.stdout.contains("fleetd_notifications_received_total"))

        let reloaded = try await h.fleetctl(["reload"])
        #expect(reloaded.code == 0 && reloaded.stdout.contains("reloaded"), "\(reloaded)")

        let forgotten = try await h.fleetctl(["--json", "forget", Self.glucose])
        #expect(forgotten.code == 0)
        #expect(try await h.devices()[Self.glucose] == nil)
    }

    @Test("connect reads an id in its canonical spelling, and an id that is also a prefix of known ids is ambiguous (issue 14 point 5)")
    func connectCanonicalisesIDs() async throws {
        let config = Self.config + "\n[identity \"scales\"]\nmanufacturer = 0x006b\nbytes = 2..<4\n[device \"mfr-006b-0a01\"]\nname = Scale 1\n[device \"mfr-006b-0a02\"]\nname = Scale 2\n"
        let h = try await FleetHarness(scenario: Self.scenario, configuration: config)
        defer { h.stop() }
        try await h.waitFor("both ready", SupervisorScenarioTests.allReady([Self.strap, Self.glucose]))

        let lower = try await h.fleetctl(["--json", "connect", "addr-c8b21e000010"])
        #expect(lower.code == 0, "\(lower)")
        #expect(try json(lower.stdout)["device"] as? String == Self.glucose, "\(lower.stdout)")
        let ambiguous = try await h.fleetctl(["connect", "mfr-006b-0a"])
        #expect(ambiguous.code == 3, "\(ambiguous)")
        #expect(ambiguous.stderr.contains("mfr-006b-0a01") && ambiguous.stderr.contains("mfr-006b-0a02"), "\(ambiguous.stderr)")
        let shouted = try await h.fleetctl(["--json", "connect", "mfr-006B-0A03"])
        #expect(shouted.code == 0, "\(shouted)")
        #expect(try json(shouted.stdout)["device"] as? String == "mfr-006b-0a03", "\(shouted.stdout)")
        let ids = Set(try await h.devices().keys)
        #expect(ids == [Self.strap, Self.glucose, "mfr-006b-0a01", "mfr-006b-0a02", "mfr-006b-0a03"], "no phantom device: \(ids)")
    }
}
