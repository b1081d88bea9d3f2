import FleetPlatform
import Policy
import FleetCLI
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// The control socket of the real daemon under abuse and load: garbage frames, many concurrent clients
/// during a reconnect storm, and a varlink client nobody here wrote.
@Suite("fleetd's control socket under load", .serialized)
struct ControlAgainstFleetdTests {
    static let scenario = "adapters 1\ncapacity 8\n" + SupervisorScenarioTests.straps(8)
    static let config = "[adapters]\ncapacity = 8\n" + SupervisorScenarioTests.wanted(1...8)
    static let ids = (1...8).map(SupervisorScenarioTests.id)

    @Test("20 000 malformed frames leave fleetd up, answering Status, with every device still ready")
    func garbageFrames() async throws {
        let h = try await FleetHarness(scenario: Self.scenario, configuration: Self.config)
        defer { h.stop() }
        try await h.waitFor("all ready", SupervisorScenarioTests.allReady(Self.ids))
        let socket = h.socketPath
        let closed = try await offPool { () -> Int in
            var random = SplitMix64(seed: 0xFEED)
            var connection = try VarlinkConnection(path: socket)
            var closedByServer = 0
            for i in 0..<20_000 {
                var frame: [UInt8]
                switch random.next() % 4 {
                case 0: frame = (0..<Int(random.next() % 48)).map { _ in UInt8(truncatingIfNeeded: random.next() % 255 + 1) }
                case 1: frame = Array(#"{"method":"io.fleetd.Fleet.Status","parameters":{"#.utf8)
                case 2: frame = Array(#"{"method":"io.fleetd.Fleet.ShowDevice","parameters":{"device":42}}"#.utf8)
                default: frame = Array(#"{"method":"io.fleetd.Fleet.Nope\#(i)"}"#.utf8)
                }
                do {
                    try connection.sendRaw(frame + [0])
                    _ = try connection.receive(timeout: .seconds(10))
                } catch {
                    closedByServer += 1
                    connection = try VarlinkConnection(path: socket)
                }
            }
            return closedByServer
        }
        #expect(closed > 0, "invalid JSON closes that one connection")
        let status = try await h.call(.status)
        #expect(status["daemon"]?.objectValue?["state"]?.stringValue == "running")
        #expect(try await h.devices().values.allSatisfy { $0["state"]?.stringValue == "ready" })
    }

    @Test("50 clients polling Status during a reconnect storm all get answers")
    func concurrentClientsDuringStorm() async throws {
        let h = try await FleetHarness(scenario: Self.scenario, configuration: Self.config)
        defer { h.stop() }
        try await h.waitFor("all ready", SupervisorScenarioTests.allReady(Self.ids))
        let socket = h.socketPath
        let storm = Task {
            for round in 0..<3 {
                for i in 1...8 { _ = try? await h.sim("DropLink", [.string("s\(i)")]) }
                _ = round
            }
        }
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await offPool {
                        let connection = try VarlinkConnection(path: socket)
                        var n = 0
                        for _ in 0..<20 where (try? connection.call(.status, timeout: .seconds(20)))?["counts"] != nil { n += 1 }
                        return n
                    }
                }
            }
            var total = 0
            for try await n in group { total += n }
            return total
        }
        _ = await storm.value
        #expect(answered == 50 * 20)
        try await h.waitFor("all ready again after the storm", timeout: .seconds(60), SupervisorScenarioTests.allReady(Self.ids))
    }

    static let venv = "/tmp/fleetctl-varlink-venv"
    static let pythonVarlink: Bool = {
        func run(_ executable: String, _ arguments: [String]) -> Bool {
            (try? ChildProcess.run(executable, arguments, timeout: .seconds(300)).code) == 0
        }
        if run(venv + "/bin/python", ["-c", "import varlink"]) { return true }
        return run("/usr/bin/python3", ["-m", "venv", venv]) && run(venv + "/bin/pip", ["install", "-q", "varlink"])
            && run(venv + "/bin/python", ["-c", "import varlink"])
    }()

    @Test("python's varlink package: Status, GetInterfaceDescription and a streamed Watch against fleetd",
          .enabled(if: ControlAgainstFleetdTests.pythonVarlink, "pip install varlink failed; skipping"))
    func pythonClient() async throws {
        let h = try await FleetHarness(scenario: Self.scenario, configuration: Self.config)
        defer { h.stop() }
        try await h.waitFor("all ready", SupervisorScenarioTests.allReady(Self.ids))
        let script = #"""
        import json, sys, varlink
        with varlink.Client(address="unix:" + sys.argv[1]) as client:
            description = client.get_interface("io.fleetd.Fleet")
            with client.open("io.fleetd.Fleet", namespaced=False) as fleet:
                status = fleet.Status()
                seqs = []
                for reply in fleet.Watch(_more=True):
                    seqs.append(reply["event"]["sequence"])
                    if len(seqs) == 5:
                        break
        print(json.dumps({"interface": description.name, "ready": status["counts"]["ready"], "seqs": seqs}))
        """#
        let path = h.directory + "/client.py"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await offPool { try ChildProcess.run(Self.venv + "/bin/python", [path, h.socketPath], timeout: .seconds(60)) }
        #expect(result.code == 0, "\(result.stderr)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(out["interface"] as? String == "io.fleetd.Fleet")
        #expect(out["ready"] as? Int == 8)
        let seqs = out["seqs"] as? [Int] ?? []
        #expect(seqs.count == 5 && seqs == seqs.sorted(), "a streamed Watch with increasing sequence numbers")
    }
}
