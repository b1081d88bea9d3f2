import FleetManager
import FleetPlatform
import FleetTestKit
import Foundation
import Policy
import Supervision
import Testing

/// The supervisor's decisions run on policy time, which is monotonic: the wall clock stepping by hours (NTP on
/// a gateway without an RTC) changes neither who is evicted nor how a reconnect backs off. The supervisor runs
/// in-process on the simulator, its timers on a manual clock.
@Suite("the supervisor's clock", .serialized)
struct SupervisorClockTests {
    static let normal = "device n1 address=C0:00:00:00:00:01 name=\"Normal\" profile=heart-rate interval=0.5"
    static let critical = "device c1 address=C0:00:00:00:00:02 name=\"Critical\" profile=heart-rate interval=0.5"
    let normalID = DeviceID("addr-C00000000001")
    let criticalID = DeviceID("addr-C00000000002")

    /// fleetd's supervisor on the simulator with the normal device, one adapter of one slot, on a manual clock;
    /// returned once the normal device is ready.
    func running() async throws -> (FleetHarness, ManualSupervisorClock, FleetSupervisor) {
        let harness = try await FleetHarness(scenario: "adapters 1\n" + Self.normal, configuration: "", startFleetd: false)
        let clock = ManualSupervisorClock()
        let machine = try FleetStateMachine(
            settings: FleetStateMachine.Settings(defaultCapacity: 1), rules: [],
            wanted: [WantedDevice(id: normalID, policyClass: .normal, subscribe: ["00002a37-0000-1000-8000-00805f9b34fb"]),
                     WantedDevice(id: criticalID, policyClass: .critical)],
            seed: 7)
        let client = BlueZClient(bus: try DBusConnection(address: harness.bus.address))
        let supervisor = FleetSupervisor(machine: machine, client: client, logger: Logger(label: "test", handler: RecordingLogHandler()),
                                         store: nil, clock: clock)
        try await supervisor.start()
        try await waitUntil("the normal device ready") { await phase(supervisor, normalID) == .ready }
        return (harness, clock, supervisor)
    }

    func phase(_ supervisor: FleetSupervisor, _ id: DeviceID) async -> DevicePhase? { await supervisor.state.devices[id]?.phase }

    @Test("a link a few seconds old is not evicted when the wall clock jumps two hours ahead")
    func evictionIgnoresAWallClockStep() async throws {
        let (harness, clock, supervisor) = try await running()
        defer { harness.stop() }

        clock.advance(by: .seconds(5))
        clock.stepWall(by: 2 * 3600)
        _ = try await harness.sim("AddDevice", [.string(Self.critical)])
        try await waitUntil("the critical device seen") { await phase(supervisor, criticalID) == .discovered }
        #expect(await supervisor.state.evictions.isEmpty, "the normal link is 5 s old by policy time, under its 30 s minimum hold")
        #expect(await phase(supervisor, normalID) == .ready)

        // The hold runs out by policy time: the admission timer fires and the critical device takes the slot.
        clock.advance(by: .seconds(26))
        try await waitUntil("the normal device evicted") { await supervisor.state.evictions.count == 1 }
        #expect(await supervisor.state.evictions.first?.victim == normalID)
        try await waitUntil("the critical device ready") { await phase(supervisor, criticalID) == .ready }
        await supervisor.stop()
    }

    @Test("a quick session end keeps counting short sessions when the wall clock jumps two hours ahead")
    func backoffIgnoresAWallClockStep() async throws {
        let (harness, clock, supervisor) = try await running()
        defer { harness.stop() }

        _ = try await harness.sim("DropLink", [.string("n1")])
        try await waitUntil("backing off") { if case .backoff = await phase(supervisor, normalID) { true } else { false } }
        #expect(await supervisor.state.devices[normalID]?.reconnect.shortSessions == 1)
        #expect(await supervisor.state.devices[normalID]?.reconnect.failures == 0, "it was ready: a session ended, no failure")
        let retry = try #require(await supervisor.state.devices[normalID]?.nextRetry)
        clock.advance(by: retry - clock.now())
        try await waitUntil("ready again") { await phase(supervisor, normalID) == .ready }

        // Five seconds of link by policy time, two hours by the wall clock: not a stable link.
        clock.advance(by: .seconds(5))
        clock.stepWall(by: 2 * 3600)
        _ = try await harness.sim("DropLink", [.string("n1")])
        try await waitUntil("backing off again") { if case .backoff = await phase(supervisor, normalID) { true } else { false } }
        let device = try #require(await supervisor.state.devices[normalID])
        #expect(device.reconnect.shortSessions == 2, "a 5 s link is no stable link: the short-session count goes on")
        let delay = try #require(device.nextRetry) - clock.now()
        #expect(delay <= Backoff().ceiling(afterFailures: 2))
        await supervisor.stop()
    }
}
