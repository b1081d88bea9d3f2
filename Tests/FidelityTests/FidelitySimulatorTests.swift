import BlueZSimulator
import FleetTestKit
import Testing

/// The fidelity scenarios on the simulator, in every `make test`; `make test-bluez` runs the same
/// definitions against real bluetoothd in the guest (scripts/test-bluez, docs/bluez-fidelity.md).
@Suite("fidelity scenarios on the simulator", .serialized)
struct FidelitySimulatorTests {
    /// Each scenario in both of 5.66's link-up orders: real controllers' (Connected=true signalled) and
    /// btvirt's (quiet), since fleetd meets the first in the field and the second on the bluez backend.
    @Test("scenario", arguments: FidelityScenario.all.map(\.name), LinkUpOrder.allCases)
    func scenario(_ name: String, linkUpOrder: LinkUpOrder) async throws {
        let scenario = try #require(FidelityScenario.named(name))
        let result = await scenario.run(on: FidelitySimulatorBackend(linkUpOrder: linkUpOrder))
        #expect(result.passed, "\(result.line)")
    }

    /// The stale-bond scenarios also in the order the source allows (Connected=true, `br-connection-canceled`,
    /// Connected=false); the default above is the rig's (the reply `le-connection-abort-by-local` first).
    @Test("stale bond, signals first", arguments: ["pairing-stale-bond", "pairing-passkey-stale-bond"], LinkUpOrder.allCases)
    func staleBondSignalsFirst(_ name: String, linkUpOrder: LinkUpOrder) async throws {
        let scenario = try #require(FidelityScenario.named(name))
        let result = await scenario.run(on: FidelitySimulatorBackend(linkUpOrder: linkUpOrder, staleBondOrder: .signalsFirst))
        #expect(result.passed, "\(result.line)")
    }
}
