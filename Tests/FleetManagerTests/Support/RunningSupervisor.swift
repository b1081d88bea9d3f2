@testable import FleetManager
import FleetPlatform
import FleetTestKit
import Supervision

/// The supervisor running in-process on the simulator (one adapter, no device, no store, a manual clock), its
/// event loop started; for tests that drive the actor directly rather than through fleetd's binary.
func runningSupervisorWithoutDevices() async throws -> (FleetHarness, FleetSupervisor) {
    let harness = try await FleetHarness(scenario: "adapters 1\n", configuration: "", startFleetd: false)
    let machine = try FleetStateMachine(settings: FleetStateMachine.Settings(), rules: [], wanted: [], seed: 1)
    let client = BlueZClient(bus: try DBusConnection(address: harness.bus.address))
    let supervisor = FleetSupervisor(machine: machine, client: client, logger: Logger(label: "test", handler: RecordingLogHandler()),
                                     store: nil, clock: ManualSupervisorClock())
    try await supervisor.start()
    return (harness, supervisor)
}
