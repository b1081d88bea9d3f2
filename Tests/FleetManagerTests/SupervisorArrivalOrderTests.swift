@testable import FleetManager
import FleetPlatform
import FleetTestKit
import Foundation
import Supervision
import Synchronization
import Testing

/// Found by the soak (invariant 4): fleetd's handling of bluetoothd's signals can lag behind the bus, while a
/// Connect's reply reaches the supervisor at once. A Connect refused because its adapter had just powered off
/// was counted as the device's failure before the adapter-off signal, sent ahead of the reply, was heard. A
/// reply now waits until the event loop has taken every signal delivered before it was read.
@Suite("the supervisor acts on replies in arrival order", .serialized)
struct SupervisorArrivalOrderTests {
    @Test("a reply read after a signal waits until the event loop has taken that signal, and not longer")
    func replyWaitsForEarlierSignals() async throws {
        let (harness, supervisor) = try await runningSupervisorWithoutDevices()
        defer { harness.stop() }
        let taken = await supervisor.handledArrival
        let mark = taken + 1_000
        let released = Flag()
        let waiter = Task {
            await supervisor.caughtUp(to: mark)
            released.raise()
        }
        try await waitUntil("the reply waiting") { await supervisor.arrivalWaiters.count == 1 }
        await supervisor.tookSignal(mark - 1)
        #expect(!released.isRaised, "a signal before the mark is not enough")
        #expect(await supervisor.arrivalWaiters.count == 1)
        await supervisor.tookSignal(mark)
        await waiter.value
        #expect(released.isRaised)
        // A mark the loop has already passed does not wait at all.
        await supervisor.caughtUp(to: mark)
        await supervisor.stop()
    }

    @Test("stopping releases every reply still waiting for the event loop")
    func stopReleasesWaiters() async throws {
        let (harness, supervisor) = try await runningSupervisorWithoutDevices()
        defer { harness.stop() }
        let mark = await supervisor.handledArrival + 1_000
        let waiter = Task { await supervisor.caughtUp(to: mark) }
        try await waitUntil("the reply waiting") { await supervisor.arrivalWaiters.count == 1 }
        await supervisor.stop()
        await waiter.value
        #expect(await supervisor.arrivalWaiters.isEmpty)
    }

    @Test("the event loop follows bluetoothd's signals by their arrival")
    func loopTracksArrivals() async throws {
        let (harness, supervisor) = try await runningSupervisorWithoutDevices()
        defer { harness.stop() }
        let before = await supervisor.handledArrival
        _ = try await harness.sim("PowerAdapter", [.string("hci0"), .boolean(false)])
        try await waitUntil("hci0 off in the supervisor") { await supervisor.state.adapters[AdapterID(name: "hci0")]?.powered == false }
        #expect(await supervisor.handledArrival > before)
        await supervisor.stop()
    }
}

/// A flag one task raises and another reads.
final class Flag: Sendable {
    private let value = Mutex(false)
    func raise() { value.withLock { $0 = true } }
    var isRaised: Bool { value.withLock { $0 } }
}
