@testable import FleetManager
import FleetTestKit
import Foundation
import Testing

/// Issue 14, points 1 and 2: fleetd on a gateway whose bluetoothd is not up yet, and fleetd whose system bus
/// goes away under it.
@Suite("fleetd without bluetoothd, and without its bus", .serialized)
struct BusAbsenceTests {
    let scenario = "adapters 1\n" + SupervisorScenarioTests.straps(2)
    var ids: [String] { [SupervisorScenarioTests.id(1), SupervisorScenarioTests.id(2)] }

    @Test("org.bluez absent at start: READY=1 says fleetd waits, fleetctl answers, and bluetoothd is adopted when it appears")
    func waitsForBlueZ() async throws {
        let h = try await FleetHarness(scenario: scenario, configuration: SupervisorScenarioTests.wanted(1...2), startFleetd: false)
        defer { h.stop() }
        try await h.killSimulator()
        try await h.startDaemon()
        let ready = try #require(h.readyNotifications.first { $0.contains("READY=1") })
        #expect(ready.contains("STATUS=waiting for bluetoothd"), "\(ready)")
        #expect(h.log().contains("org.bluez is not on the bus"), "\(h.log())")
        let waiting = try await h.devices()
        #expect(waiting.count == 2 && waiting.values.allSatisfy { $0["state"]?.stringValue != "ready" }, "\(waiting)")
        try await h.startSimulator(arguments: [])
        try await h.waitFor("both ready once bluetoothd appeared", SupervisorScenarioTests.allReady(ids))
        try await h.waitForNotification("STATUS=2 wanted, 2 ready, 0 backing off, 0 connecting, 0 waiting for adapter, 0 failed", timeout: .seconds(30))
    }

    @Test("losing the system bus: fleetd says why and exits 1, so systemd restarts it")
    func exitsWhenTheBusGoes() async throws {
        let h = try await FleetHarness(scenario: scenario, configuration: SupervisorScenarioTests.wanted(1...2))
        defer { h.stop() }
        try await h.waitFor("ready", SupervisorScenarioTests.allReady(ids))
        let fleetd = try #require(h.fleetd)
        h.bus.stop()
        let code = try await offPool { fleetd.wait(timeout: .seconds(20)) }
        #expect(code == 1, "fleetd must not linger on a dead bus:\n\(h.log())")
        #expect(h.log().contains("lost the D-Bus system bus"))
    }

    /// The exit above ends the pings with the process; this holds the window between the loss and the exit,
    /// where the watchdog service may still ask the supervisor to ping.
    @Test("losing the system bus: the supervisor stops feeding the watchdog at once")
    func watchdogStopsWhenTheBusGoes() async throws {
        let (harness, supervisor) = try await runningSupervisorWithoutDevices()
        defer { harness.stop() }
        #expect(await supervisor.watchdogPing(), "fed while the bus is there")
        harness.bus.stop()
        try await waitUntil("the supervisor heard the bus go") { await supervisor.busLost }
        #expect(await supervisor.watchdogPing() == false, "a supervisor that cannot reach BlueZ must not feed the watchdog")
        await supervisor.stop()
    }
}
