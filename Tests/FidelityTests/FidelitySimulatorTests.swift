import FleetTestKit
import Testing

/// The fidelity scenarios on the simulator, in every `make test`; `make test-bluez` runs the same
/// definitions against real bluetoothd in the guest (scripts/test-bluez, docs/bluez-fidelity.md).
@Suite("fidelity scenarios on the simulator", .serialized)
struct FidelitySimulatorTests {
    @Test("scenario", arguments: FidelityScenario.all.map(\.name))
    func scenario(_ name: String) async throws {
        let scenario = try #require(FidelityScenario.named(name))
        let result = await scenario.run(on: FidelitySimulatorBackend())
        #expect(result.passed, "\(result.line)")
    }
}
