import FleetPlatform
import Foundation
import Synchronization
import Testing

/// The daemon's lifecycle: services start in order, each only after the one before has started, and stop in
/// reverse, each finishing before the one before it is asked; cancellation abandons them instead.
@Suite("ServiceGroup", .serialized, .timeLimit(.minutes(1)))
struct ServiceGroupTests {
    /// What happened, in order, across all services of one test.
    final class Journal: Sendable {
        private let entries = Mutex<[String]>([])
        /// Wakes `waitUntil` at every note (the newest only: a waiter reads `all` anyway).
        private let notes: AsyncStream<Void>
        private let noted: AsyncStream<Void>.Continuation

        init() { (notes, noted) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1)) }

        func note(_ entry: String) {
            entries.withLock { $0.append(entry) }
            noted.yield()
        }

        var all: [String] { entries.withLock { $0 } }

        /// Waits, woken by each note, until `holds` is true of the journal; false if `deadline` passes first.
        /// One waiter at a time. (A loop of `Task.yield()` here held one of the 2 cooperative threads and, in a
        /// loaded `make test`, starved the services it waited for past its 10 s deadline.)
        func waitUntil(_ holds: @escaping @Sendable ([String]) -> Bool, deadline: Duration = .seconds(30)) async -> Bool {
            await withTaskGroup(of: Bool.self) { group in
                group.addTask { [notes] in
                    if holds(self.all) { return true }
                    for await _ in notes where holds(self.all) { return true }
                    return false
                }
                group.addTask {
                    try? await Task.sleep(for: deadline)
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
        }
    }

    struct StartError: Error, Equatable {}

    /// A service that notes its start, its stop and whether the stop was graceful.
    struct Recorder: Service {
        let name: String
        let journal: Journal
        var failStart = false
        var endAtOnce = false

        func start() async throws {
            // A slow start: the next service must still wait for it.
            try await Task.sleep(for: .milliseconds(5))
            if failStart { throw StartError() }
            journal.note("start \(name)")
        }

        func run() async throws {
            if endAtOnce {
                journal.note("ended \(name)")
                return
            }
            do {
                try await gracefulShutdown()
            } catch {
                journal.note("cancelled \(name)")
                throw error
            }
            // Shutting down takes a while: the service before must wait for it.
            try? await Task.sleep(for: .milliseconds(5))
            journal.note("stop \(name)")
        }
    }

    func recorders(_ journal: Journal, _ names: [String]) -> [any Service] { names.map { Recorder(name: $0, journal: journal) } }

    /// Runs the group in a task and waits (with a deadline) until every service has started.
    func started(_ group: ServiceGroup, _ journal: Journal, count: Int) async throws -> Task<Void, any Error> {
        let task = Task { try await group.run() }
        guard await journal.waitUntil({ $0.filter { $0.hasPrefix("start") }.count >= count }) else {
            task.cancel()
            throw StartError()
        }
        return task
    }

    @Test("services start in order and stop in reverse on graceful shutdown")
    func shutdownOrder() async throws {
        let journal = Journal()
        let group = ServiceGroup(services: recorders(journal, ["bus", "control", "supervisor", "watchdog"]))
        let task = try await started(group, journal, count: 4)
        group.triggerGracefulShutdown()
        try await task.value
        #expect(journal.all == ["start bus", "start control", "start supervisor", "start watchdog",
                                "stop watchdog", "stop supervisor", "stop control", "stop bus"])
    }

    @Test("a failed start stops the services already started, in reverse, and reports the error")
    func failedStart() async throws {
        let journal = Journal()
        let group = ServiceGroup(services: recorders(journal, ["bus", "control"])
                                     + [Recorder(name: "supervisor", journal: journal, failStart: true)]
                                     + recorders(journal, ["watchdog"]))
        await #expect(throws: StartError.self) { try await group.run() }
        #expect(journal.all == ["start bus", "start control", "stop control", "stop bus"])
    }

    @Test("a service that ends on its own shuts the others down in reverse, and the group reports it as a failure")
    func serviceEnds() async throws {
        let journal = Journal()
        let causes = Mutex<[ServiceGroup.ShutdownCause]>([])
        let group = ServiceGroup(services: recorders(journal, ["bus", "control"]) + [Recorder(name: "supervisor", journal: journal, endAtOnce: true)],
                                 onShutdown: { cause in causes.withLock { $0.append(cause) } })
        // Before: run() returned normally, and fleetd exited 0 when its agent noticed a lost bus first.
        await #expect(throws: ServiceGroupError.serviceFinishedUnexpectedly(index: 2)) { try await group.run() }
        #expect(journal.all == ["start bus", "start control", "start supervisor", "ended supervisor", "stop control", "stop bus"])
        #expect(causes.withLock { $0 } == [.serviceEnded(index: 2)])
    }

    @Test("cancellation is not a graceful shutdown: every service is abandoned")
    func cancellation() async throws {
        let journal = Journal()
        let group = ServiceGroup(services: recorders(journal, ["bus", "control", "supervisor"]))
        let task = try await started(group, journal, count: 3)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(Set(journal.all.filter { $0.hasPrefix("cancelled") }) == ["cancelled bus", "cancelled control", "cancelled supervisor"])
        #expect(!journal.all.contains { $0.hasPrefix("stop") })
    }

    @Test("a configured signal starts the graceful shutdown")
    func signal() async throws {
        let journal = Journal()
        let causes = Mutex<[ServiceGroup.ShutdownCause]>([])
        let group = ServiceGroup(services: recorders(journal, ["bus", "supervisor"]), gracefulShutdownSignals: [SIGUSR1],
                                 onShutdown: { cause in causes.withLock { $0.append(cause) } })
        let task = try await started(group, journal, count: 2)
        // The group installed its handler before it started the first service.
        kill(getpid(), SIGUSR1)
        // The group ends once the signal has shut it down (the suite's time limit bounds a handler that never runs).
        try await task.value
        #expect(causes.withLock { $0 } == [.signal(SIGUSR1)])
        #expect(journal.all.suffix(2) == ["stop supervisor", "stop bus"])
    }
}
