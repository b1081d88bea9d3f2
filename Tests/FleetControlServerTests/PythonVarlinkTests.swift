import FleetCLI
import FleetControlServer
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// An independent client: python's `varlink` package from PyPI, in a venv made from /usr/bin/python3.
@Suite struct PythonVarlinkTests {
    static let venv = "/tmp/fleetctl-varlink-venv"

    /// Creates the venv and installs varlink once; false (the test is then skipped) only if pip fails.
    static let available: Bool = {
        let python = venv + "/bin/python"
        func run(_ executable: String, _ arguments: [String]) -> Bool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
        if run(python, ["-c", "import varlink"]) { return true }
        guard run("/usr/bin/python3", ["-m", "venv", venv]) else { return false }
        return run(venv + "/bin/pip", ["install", "-q", "varlink"]) && run(python, ["-c", "import varlink"])
    }()

    static let script = #"""
    import json, sys, varlink
    address = "unix:" + sys.argv[1]
    out = {}
    with varlink.Client(address=address) as client:
        desc = client.get_interface("io.fleetd.Fleet")
        out["interface"] = desc.name
        out["methods"] = sorted(m for m in desc.members if m[0].isupper() and m in ("Status", "Watch", "Connect"))
        with client.open("io.fleetd.Fleet", namespaced=False) as fleet:
            status = fleet.Status()
            out["state"] = status["daemon"]["state"]
            out["slots"] = [a["slotsUsed"] for a in status["adapters"]]
            try:
                fleet.ShowDevice(device="nope")
            except varlink.VarlinkError as error:
                out["error"] = error.error()
            # Last on this connection: python's client cannot reuse it after leaving a stream early.
            events = []
            for reply in fleet.Watch(_more=True):
                events.append(reply["event"]["sequence"])
                if len(events) == 3:
                    break
            out["events"] = events
    print(json.dumps(out))
    """#

    @Test(.enabled(if: PythonVarlinkTests.available, "pip install varlink into \(PythonVarlinkTests.venv) failed; skipping"))
    func pythonVarlinkCallsStatusIntrospectsAndStreamsWatch() async throws {
        let backend = InMemoryBackend()
        await backend.setScriptedEvents(InMemoryBackend.lifecycleEvents(count: 5))
        let fixture = try ServerFixture(backend: backend)
        defer { fixture.stop() }
        let scriptPath = fixture.directory + "/client.py"
        try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        defer { unlink(scriptPath) }
        let path = fixture.path
        let result = try await offPool { try ChildProcess.run(Self.venv + "/bin/python", [scriptPath, path]) }
        #expect(result.code == 0, "\(result.stderr)")
        let json = try JSONValue.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(json.objectValue?["interface"] == .string("io.fleetd.Fleet"))
        #expect(json.objectValue?["methods"] == .array([.string("Connect"), .string("Status"), .string("Watch")]))
        #expect(json.objectValue?["state"] == .string("running"))
        #expect(json.objectValue?["slots"] == .array([.int(1), .int(1)]))
        #expect(json.objectValue?["events"] == .array([.int(1), .int(2), .int(3)]))
        #expect(json.objectValue?["error"] == .string("io.fleetd.Fleet.DeviceNotFound"))
    }
}
