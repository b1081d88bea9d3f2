import Foundation
import Synchronization
import Testing

/// `@Test(.offCooperativePool)`: the test's body runs on a thread of its own instead of one of Swift concurrency's
/// cooperative threads, of which this machine has two. A synchronous, CPU-bound test (a decoder fed every flag
/// combination, a fuzz loop) holds its cooperative thread until it returns; two at once stop every other test's
/// continuations, and the in-process servers of the socket tests then answer nothing for seconds (a sampled run of
/// the suite showed both threads inside CatalogFuzzTests while `fleetctl watch` timed out waiting for its event).
/// The body keeps its task (and so Swift Testing's task-locals: `#expect` is still attributed to the test); only
/// its executor changes, through a task executor preference (SE-0417).
public struct OffCooperativePool: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // The suite's own scope has no case to run; each test case gets a thread below it.
        guard testCase != nil else { return try await function() }
        // One such case at a time: thirty-five fuzz cases on threads of their own would share the two cores with the
        // cooperative threads thirty-seven ways, which starves the socket tests almost as surely as blocking them.
        await OffPoolTurns.shared.take()
        let executor = DedicatedThreadExecutor(name: "test \(test.name)")
        do {
            try await withTaskExecutorPreference(executor) { try await function() }
        } catch {
            executor.finish()
            await OffPoolTurns.shared.give()
            throw error
        }
        executor.finish()
        await OffPoolTurns.shared.give()
    }
}

/// Whether the caller runs on a thread of an ``OffCooperativePool`` test (Foundation's `Thread.current.name`
/// does not say: it named this thread after a pool thread when tried).
public func onATestThreadOfItsOwn() -> Bool {
    let thread = pthread_self()
    return dedicatedThreads.withLock { $0.contains(thread) }
}

private let dedicatedThreads = Mutex<Set<pthread_t>>([])

extension Trait where Self == OffCooperativePool {
    /// Runs each test case on a thread of its own (see ``OffCooperativePool``).
    public static var offCooperativePool: Self { OffCooperativePool() }
}

/// Turns for off-pool test cases, one at a time, waited for by suspending (never by blocking a thread).
actor OffPoolTurns {
    static let shared = OffPoolTurns()
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the turn to the next waiter, if any, else frees it.
    func give() {
        if waiting.isEmpty { taken = false } else { waiting.removeFirst().resume() }
    }
}

/// A task executor with one thread that runs its jobs in order, until `finish` and the last job.
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `finished` are only touched under `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        let thread = pthread_self()
        dedicatedThreads.withLock { _ = $0.insert(thread) }
        defer { dedicatedThreads.withLock { _ = $0.remove(thread) } }
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
