import Dispatch
@testable import FleetPlatform
import FleetTestKit
import Synchronization
import Testing

/// Cancelling a call at each point of its way through the connection: it must end as cancelled at once, never wait
/// for a reply that is not coming or for its timeout (found in session 28's review).
@Suite("D-Bus call cancellation")
struct DBusCallCancellationTests {
    let bus: PrivateBus
    let server: DBusConnection
    let client: DBusConnection
    let tree: DBusObjectTree

    init() async throws {
        bus = try PrivateBus()
        server = try DBusConnection(address: bus.address)
        client = try DBusConnection(address: bus.address)
        tree = DBusObjectTree(connection: server)
        try await server.requestName("io.fleetd.Test")
        let spec = DBusInterfaceSpec(name: "io.fleetd.Test.Slow", methods: [
            "Never": DBusMethod { _ in try await Task.sleep(for: .seconds(3600)); return [] },
        ])
        try tree.add(path: "/io/fleetd/Test", interfaces: [(spec, [:])])
    }

    /// The I/O thread takes a queued call off the queue, then sends it and records it as pending, each under the
    /// lock. A cancellation in between found the call in neither place: its id was noted for a call not yet
    /// queued, which this one never would be again, and the call waited out its timeout.
    @Test("a call cancelled after the I/O thread took it off the queue ends as cancelled, not at its timeout")
    func cancelledBetweenQueueAndPending() async throws {
        let taskReady = DispatchSemaphore(value: 0)
        let started = Mutex<Task<DBusError.Code?, Never>?>(nil)
        let fired = Atomic<Bool>(false)
        client.onTakingOutgoingCalls {
            guard !fired.exchange(true, ordering: .relaxed) else { return }
            // On the I/O thread, between the two locks: cancel the calling task now (its handler runs here).
            _ = taskReady.wait(timeout: .now() + .seconds(10))
            started.withLock { $0 }?.cancel()
        }
        defer { client.onTakingOutgoingCalls(nil) }
        let task = Task<DBusError.Code?, Never> { [client] in
            do throws(DBusError) {
                _ = try await client.call(destination: "io.fleetd.Test", path: "/io/fleetd/Test", interface: "io.fleetd.Test.Slow",
                                          member: "Never", timeout: .seconds(20))
                return nil
            } catch {
                return error.code
            }
        }
        started.withLock { $0 = task }
        taskReady.signal()
        let clock = ContinuousClock()
        let start = clock.now
        let code = await task.value
        let hookRan = fired.load(ordering: .relaxed)
        #expect(hookRan)
        #expect(code == .cancelled, "the call ended with \(String(describing: code))")
        #expect(clock.now - start < .seconds(15), "the call waited for its timeout")
    }
}
