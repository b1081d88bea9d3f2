import Synchronization

/// A long-running part of the daemon (the bus, the supervisor, the control server, …), in the shape of
/// swift-service-lifecycle's `Service`. A `ServiceGroup` starts services in order and stops them in reverse.
///
/// Graceful shutdown is distinct from cancellation: on graceful shutdown `gracefulShutdown()` returns inside
/// `run()` and the service finishes its work in order (flush, say goodbye, close); on cancellation it is
/// abandoned at once.
public protocol Service: Sendable {
    /// Brings the service up. The group starts the next service only once this returns, so a service can
    /// rely on those before it (the control socket is listening before the supervisor sends READY=1).
    func start() async throws
    /// Runs until graceful shutdown or cancellation, then stops the service; the group waits for it to
    /// return before shutting down the service before it.
    func run() async throws
}

extension Service {
    public func start() async throws {}
}

/// The graceful-shutdown request of the service running in the current task (a task-local, as in
/// swift-service-lifecycle). Fired once; waiters before and after the firing all return.
public final class GracefulShutdown: Sendable {
    @TaskLocal static var current: GracefulShutdown?

    private let state = Mutex<(requested: Bool, waiters: [UInt64: CheckedContinuation<Void, Never>], next: UInt64)>((false, [:], 0))

    init() {}

    var isRequested: Bool { state.withLock { $0.requested } }

    func request() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.requested else { return [] }
            state.requested = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when shutdown is requested; throws `CancellationError` if the task is cancelled first.
    func wait() async throws {
        let id = state.withLock { state -> UInt64 in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.requested || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
        if !isRequested { try Task.checkCancellation() }
    }
}

/// Waits until the group asks the current service to shut down gracefully. Throws `CancellationError` when the
/// service is cancelled instead; outside a `ServiceGroup` it waits for cancellation only.
public func gracefulShutdown() async throws {
    try await (GracefulShutdown.current ?? GracefulShutdown()).wait()
}

/// Runs `operation` until it returns or graceful shutdown is requested, whichever comes first; on shutdown
/// the operation is cancelled (a loop of sleeps or a stream ends) and this returns normally.
public func cancelWhenGracefulShutdown(_ operation: @escaping @Sendable () async throws -> Void) async throws {
    let shutdown = GracefulShutdown.current ?? GracefulShutdown()
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await operation() }
        group.addTask { try await shutdown.wait() }
        defer { group.cancelAll() }
        try await group.next()
    }
}
