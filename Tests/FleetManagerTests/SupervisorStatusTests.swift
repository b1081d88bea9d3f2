@testable import FleetManager
import FleetPlatform
import FleetProtocol
import FleetTestKit
import Foundation
import Supervision
import Synchronization
import Testing

/// Issue 18: a Status call was answered on the supervisor's actor, so it waited behind every batch of events
/// queued there (p99 of tens of milliseconds while links dropped). Status now reads what the actor publishes
/// (`StatusBoard`) at the end of each batch and after every other change.
@Suite("Status is answered from the supervisor's publication", .serialized)
struct SupervisorStatusTests {
    /// The supervisor running in-process on the simulator (one adapter, no device), its event loop started.
    func running(_ handler: any LogHandler = RecordingLogHandler()) async throws -> (FleetHarness, FleetSupervisor, SupervisorControlBackend) {
        let harness = try await FleetHarness(scenario: "adapters 1\n", configuration: "", startFleetd: false)
        let machine = try FleetStateMachine(settings: FleetStateMachine.Settings(), rules: [], wanted: [], seed: 1)
        let client = BlueZClient(bus: try DBusConnection(address: harness.bus.address))
        let supervisor = FleetSupervisor(machine: machine, client: client, logger: Logger(label: "test", handler: handler),
                                         store: nil, clock: ManualSupervisorClock())
        try await supervisor.start()
        return (harness, supervisor, SupervisorControlBackend(supervisor: supervisor, version: "test", reloader: { "" }))
    }

    // Holding the actor blocks one thread of the cooperative pool; the Status call needs another.
    @Test("Status answers while the supervisor's actor is busy", .enabled(if: ProcessInfo.processInfo.activeProcessorCount >= 2))
    func answersWhileActorBusy() async throws {
        // The supervisor's reload logs its summary from inside the actor (the one record logged from that file):
        // the gate holds the actor there.
        let gate = GateLogHandler { $0.file.hasSuffix("FleetSupervisor+Operator.swift") }
        let (harness, supervisor, backend) = try await running(gate)
        defer { gate.open(); harness.stop() }
        let reload = Task { try await supervisor.reload(rules: [], wanted: [], previouslyConfigured: []) }
        try await waitUntil("the supervisor held inside reload") { gate.isHolding }
        let answer = Mutex<StatusInfo?>(nil)
        let status = Task {
            let info = try await backend.status()
            answer.withLock { $0 = info }
        }
        try await waitUntil("a Status answer while the actor is held", timeout: .seconds(30)) { answer.withLock { $0 } != nil }
        let info = try #require(answer.withLock { $0 })
        #expect(info.daemon.state == .running)
        #expect(info.adapters.map(\.name) == ["hci0"])
        #expect(info.adapters.first?.powered == true)
        gate.open()
        _ = try await reload.value
        try await status.value
        await supervisor.stop()
    }

    @Test("a batch of events is in the next Status once the supervisor has handled it")
    func batchPublishedAtItsEnd() async throws {
        let (harness, supervisor, backend) = try await running()
        defer { harness.stop() }
        _ = try await harness.sim("PowerAdapter", [.string("hci0"), .boolean(false)])
        try await waitUntil("hci0 off in the supervisor") { await supervisor.state.adapters[AdapterID(name: "hci0")]?.powered == false }
        #expect(try await backend.status().adapters.first?.powered == false)
        await supervisor.stop()
    }

    @Test("an operator command's change is in the Status asked after it returns")
    func operatorChangePublished() async throws {
        let (harness, supervisor, backend) = try await running()
        defer { harness.stop() }
        #expect(try await backend.status().counts.wanted == 0)
        _ = try await backend.connect("addr-C8B21E000010")
        #expect(try await backend.status().counts.wanted == 1)
        await supervisor.stop()
        #expect(try await backend.status().daemon.state == .stopping)
    }
}

/// A log handler that holds the thread logging the first record `holds` picks until `open()`: a way to keep an
/// actor busy (it logs from inside) for as long as a test needs.
final class GateLogHandler: LogHandler, Sendable {
    private let holds: @Sendable (LogRecord) -> Bool
    private let state = Mutex((holding: false, opened: false))
    private let opened = DispatchSemaphore(value: 0)

    init(holds: @escaping @Sendable (LogRecord) -> Bool) { self.holds = holds }

    func log(_ record: LogRecord) {
        guard holds(record) else { return }
        let waits = state.withLock { state in
            guard !state.opened, !state.holding else { return false }
            state.holding = true
            return true
        }
        if waits { opened.wait() }
    }

    /// Whether a record is being held.
    var isHolding: Bool { state.withLock { $0.holding && !$0.opened } }

    /// Lets the held record go, and every later one through.
    func open() {
        let first = state.withLock { state in
            defer { state.opened = true }
            return !state.opened
        }
        if first { opened.signal() }
    }
}
