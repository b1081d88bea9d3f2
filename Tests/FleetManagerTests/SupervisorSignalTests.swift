import FleetCLI
import FleetProtocol
import FleetManager
import FleetPlatform
import FleetStore
import FleetTestKit
import Foundation
import Testing

/// fleetd as systemd runs it: READY/STATUS/WATCHDOG/STOPPING on the notify socket, SIGTERM for a graceful
/// stop that leaves links up, SIGHUP to reload the configuration.
@Suite("fleetd signals and sd_notify", .serialized)
struct SupervisorSignalTests {
    let scenario = "adapters 1\n" + SupervisorScenarioTests.straps(2)

    @Test("READY=1 carries STATUS= counts, WATCHDOG=1 comes from the supervisor loop, metrics reach the textfile")
    func notifyAndWatchdog() async throws {
        let metrics = "/tmp/fleet-test-\(UUID().uuidString).prom"
        defer { try? FileManager.default.removeItem(atPath: metrics) }
        let config = "[daemon]\nmetrics-textfile = \(metrics)\n" + SupervisorScenarioTests.wanted(1...2)
        let h = try await FleetHarness(scenario: scenario, configuration: config, startFleetd: false)
        defer { h.stop() }
        h.daemonEnvironment = ["WATCHDOG_USEC": "500000"]
        try await h.startDaemon()
        let ready = try #require(h.readyNotifications.first { $0.contains("READY=1") })
        #expect(ready.contains("STATUS=2 wanted"), "\(ready)")
        try await h.waitForNotification("WATCHDOG=1", timeout: .seconds(30))
        try await h.waitFor("ready", SupervisorScenarioTests.allReady([SupervisorScenarioTests.id(1), SupervisorScenarioTests.id(2)]))
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        #expect(text.contains("# TYPE fleetd_devices gauge") && text.contains("fleetd_adapter_capacity{adapter=\"hci0\"}"))
        var info = stat()
        stat(metrics, &info)
        #expect(info.st_mode & 0o777 == 0o644, "node_exporter must be able to read it")
    }

    @Test("SIGTERM stops gracefully: STOPPING=1, state in the store, links left up for the next start to adopt")
    func gracefulStop() async throws {
        let h = try await FleetHarness(scenario: scenario, configuration: SupervisorScenarioTests.wanted(1...2))
        defer { h.stop() }
        let ids = [SupervisorScenarioTests.id(1), SupervisorScenarioTests.id(2)]
        try await h.waitFor("ready", SupervisorScenarioTests.allReady(ids))
        let socket = try #require(h.notifySocket)
        let code = try await h.signalDaemon(SIGTERM)
        #expect(code == 0)
        try await offPool { try socket.wait(for: "STOPPING=1", timeout: .seconds(30)) }
        // The state as the store holds it after the stop: both devices, wanted, with no failure counted.
        let store = try StateStore(path: h.storePath)
        let saved = try FleetStateStore(store: store).saved
        store.close()
        #expect(saved.devices.map(\.wanted.id.rawValue) == ids.sorted())
        #expect(saved.devices.allSatisfy { $0.isWanted && $0.failures == 0 })
        #expect(!FileManager.default.fileExists(atPath: h.snapshotPath), "no JSON snapshot is written any more")
        #expect(try await h.connectedDeviceCount() == 2, "leave-links-on-exit = yes keeps the links for the next start")
        let before = try await h.counters()
        try await h.startDaemon()
        #expect(try await h.counters()["ConnectsAttempted"] == before["ConnectsAttempted"])
        #expect(try await h.devices().values.allSatisfy { $0["state"]?.stringValue == "ready" })
    }

    @Test("SIGTERM with leave-links-on-exit = no disconnects every link before STOPPING ends the process")
    func gracefulStopDisconnecting() async throws {
        let config = "[daemon]\nleave-links-on-exit = no\n\n" + SupervisorScenarioTests.wanted(1...2)
        let h = try await FleetHarness(scenario: scenario, configuration: config)
        defer { h.stop() }
        try await h.waitFor("ready", SupervisorScenarioTests.allReady([SupervisorScenarioTests.id(1), SupervisorScenarioTests.id(2)]))
        #expect(try await h.connectedDeviceCount() == 2)
        let code = try await h.signalDaemon(SIGTERM)
        #expect(code == 0)
        #expect(try await h.connectedDeviceCount() == 0, "fleetd took its links down on the way out")
        #expect(try await h.counters()["Disconnects"] == 2)
    }

    @Test("SIGHUP reloads: a device added to the file starts competing; a broken file is refused and the old one kept")
    func reloadOnHangup() async throws {
        let h = try await FleetHarness(scenario: scenario, configuration: SupervisorScenarioTests.wanted(1...1))
        defer { h.stop() }
        try await h.waitFor("first ready", SupervisorScenarioTests.allReady([SupervisorScenarioTests.id(1)]))
        try SupervisorScenarioTests.wanted(1...2).write(toFile: h.configPath, atomically: true, encoding: .utf8)
        try await h.signalDaemon(SIGHUP)
        try await h.waitFor("second ready after reload", SupervisorScenarioTests.allReady([SupervisorScenarioTests.id(1), SupervisorScenarioTests.id(2)]))
        #expect(h.log().contains("SIGHUP: reloaded: 1 added"))

        try "[device \"addr-A00000000001\"]\nclass = vip\n".write(toFile: h.configPath, atomically: true, encoding: .utf8)
        try await h.signalDaemon(SIGHUP)
        try await h.waitFor("the rejection logged") { _ in h.log().contains("configuration rejected, keeping the old one") }
        #expect(h.log().contains("fleetd.conf:2"), "the error names the file and line")
        #expect(try await h.devices().count == 2, "the old configuration stays in force")
    }
}
