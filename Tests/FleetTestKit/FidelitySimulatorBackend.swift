import BlueZSimulator
import FleetPlatform
import Foundation

/// The fidelity scenarios on the BlueZ simulator: a fresh private bus and bluez-sim per scenario, serving
/// every suite peripheral (those off the air at start are added when the scenario puts them on).
///
/// `linkUpOrder` picks which of bluetoothd 5.66's two link-up orders the simulator plays: `signalled`
/// (real controllers: PropertiesChanged Connected=true) or `quiet` (btvirt, which the bluez backend runs
/// on: no such signal). fleetd has to work in both, so the suite runs each scenario in each.
public final class FidelitySimulatorBackend: FidelityBackend, @unchecked Sendable {
    // @unchecked: `harness` is replaced only by begin/end, which the one runner task calls in turn.
    /// `sim` for the signalled order, `sim-quiet` for the quiet one.
    public let name: String
    public let patience = 1
    public let linkUpOrder: LinkUpOrder
    /// How a stale bond's failed Connect is ordered against its Connected signals (`StaleBondOrder`).
    public let staleBondOrder: StaleBondOrder
    private var harness: FleetHarness?
    /// The running scenario's peripheral security, for peripherals it puts on the air later.
    private var setup = FidelityPeripheralSetup.plain

    public init(linkUpOrder: LinkUpOrder = .signalled, staleBondOrder: StaleBondOrder = .replyFirst) {
        self.linkUpOrder = linkUpOrder
        self.staleBondOrder = staleBondOrder
        name = (linkUpOrder == .signalled ? "sim" : "sim-\(linkUpOrder.rawValue)")
            + (staleBondOrder == .replyFirst ? "" : "-\(staleBondOrder.rawValue)")
    }

    public var bus: DBusConnection {
        guard let harness else { preconditionFailure("FidelitySimulatorBackend used outside begin/end") }
        return harness.control
    }

    public var fleetdBusAddress: String? { harness?.bus.address }

    public func begin(_ scenario: FidelityScenario) async throws -> String {
        setup = scenario.peripheralSetup
        let devices = FidelityPeripheral.all.filter { !scenario.offAirAtStart.contains($0.label) }.map { $0.simulatorDevice(setup) }
            + setup.simulatorFaults
        // Debian's bluetoothd runs with the compiled-in [GATT] Cache = always, which keeps a device's GATT
        // objects across a disconnect: the simulator is told to do the same.
        let made = try await FleetHarness(scenario: "adapters \(FidelityPeripheral.controllersNeeded)\n" + devices.joined(separator: "\n"), configuration: "",
                                          simulatorArguments: ["--gatt-cache", "always", "--link-up-order", linkUpOrder.rawValue,
                                                              "--stale-bond-order", staleBondOrder.rawValue],
                                          startFleetd: false)
        harness = made
        return made.directory
    }

    public func end(_ scenario: FidelityScenario, failed: Bool) async {
        harness?.stop()
        harness = nil
    }

    private func sim(_ member: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
        guard let harness else { throw FidelityFailure("no simulator running") }
        return try await harness.sim(member, arguments)
    }

    public func address(of peripheral: FidelityPeripheral) async throws -> String {
        try await sim("DeviceAddress", [.string(peripheral.label)]).first?.string ?? "?"
    }

    public func dropLink(_ peripheral: FidelityPeripheral) async throws {
        _ = try await sim("DropLink", [.string(peripheral.label)])
    }

    public func changeAddress(_ peripheral: FidelityPeripheral) async throws {
        // A power cycle: the link goes first, then it advertises from the new address.
        _ = try await sim("DropLink", [.string(peripheral.label)])
        _ = try await sim("RotateAddress", [.string(peripheral.label)])
    }

    public func forgetBonds(_ peripheral: FidelityPeripheral) async throws {
        // The guest's peripheral forgets by RemoveDevice of the central, which drops the link too.
        _ = try await sim("ForgetBond", [.string(peripheral.label)])
        _ = try await sim("DropLink", [.string(peripheral.label)])
    }

    public func putOnAir(_ peripheral: FidelityPeripheral) async throws {
        _ = try await sim("AddDevice", [.string(peripheral.simulatorDevice(setup))])
    }
}
