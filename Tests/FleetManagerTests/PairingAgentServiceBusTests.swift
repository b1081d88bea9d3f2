import FleetManager
import FleetPlatform
import FleetTestKit
import Foundation
import Pairing
import Testing

/// The agent's service serves bluetoothd's NameOwnerChanged for as long as fleetd's bus connection lives. When the
/// bus goes, it is often the first of fleetd's services to notice: it must fail with `BusLostError`, so that fleetd
/// says why and exits 1 (BusAbsenceTests.exitsWhenTheBusGoes saw exit 0 when the agent won that race).
@Suite struct PairingAgentServiceBusTests {
    @Test("the agent's service fails with BusLostError when the bus goes")
    func busGoneFailsTheService() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try DBusConnection(address: bus.address)
        defer { connection.close() }
        let log = RecordingLogHandler()
        let registration = AgentRegistration.plan(for: [PairingPolicy(method: .justWorks)], requestDefault: false)
        let agent = PairingAgent(tree: DBusObjectTree(connection: connection, objectManagerPath: "/io/fleetd"), registration: registration,
                                 logger: Logger(label: "agent", level: .debug, handler: log)) { _ in nil }
        let service = PairingAgentService(agent: agent, logger: Logger(label: "agent", level: .debug, handler: log))
        let run = Task { try await service.run() }

        // Proof that the service listens: a new owner of org.bluez makes it register, and any failed registration is
        // logged (this owner refuses it; one that has gone leaves NoReply). Until that is heard, the name is claimed
        // again by a new connection: a claim made before the service subscribed went unheard. A registration that
        // fails late (a loaded machine) is caught by the next round's first check.
        let heard = { log.records.contains { $0.metadata["reason"] == "agent-registration-failed" } }
        try await waitUntil("the service heard org.bluez appear", timeout: .seconds(60)) {
            if heard() { return true }
            let bluez = try DBusConnection(address: bus.address)
            defer { bluez.close() }
            bluez.setMethodCallHandler { call in
                bluez.reply(to: call, error: DBusError(.remote, name: "org.bluez.Error.Failed", "refused by the test"))
            }
            try await bluez.requestName("org.bluez")
            let deadline = ContinuousClock.now + .seconds(1)
            while ContinuousClock.now < deadline {
                if heard() { return true }
                try await Task.sleep(for: .milliseconds(2))
            }
            return heard()
        }
        bus.stop()
        let outcome = await run.result
        #expect(throws: BusLostError.self) { try outcome.get() }
    }
}
