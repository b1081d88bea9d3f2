/// Runs a daemon's services, in the shape of swift-service-lifecycle's `ServiceGroup`: each is started in
/// order (the next only once `start()` has returned) and runs concurrently; on graceful shutdown (a
/// configured Unix signal, `triggerGracefulShutdown()`, or any service ending on its own) they are shut down
/// in reverse order, each finishing its `run()` before the one started before it is asked. Cancelling the
/// task that runs the group cancels every service at once instead.
public final class ServiceGroup: Sendable {
    /// Why the group began to shut down.
    public enum ShutdownCause: Sendable, Equatable {
        case signal(Int32)
        case requested
        /// Service `index` returned (or threw) before it was asked to.
        case serviceEnded(index: Int)
    }

    private let services: [any Service]
    private let signals: [Int32]
    private let onShutdown: @Sendable (ShutdownCause) -> Void
    private let trigger = GracefulShutdown()

    /// `gracefulShutdownSignals` start a graceful shutdown (their default action is replaced);
    /// `onShutdown` hears why the shutdown began, before the first service is asked to stop.
    public init(services: [any Service], gracefulShutdownSignals: [Int32] = [],
                onShutdown: @escaping @Sendable (ShutdownCause) -> Void = { _ in }) {
        self.services = services
        signals = gracefulShutdownSignals
        self.onShutdown = onShutdown
    }

    public func triggerGracefulShutdown() { trigger.request() }

    /// Starts the services in order and returns once all have shut down. Throws the first error a service
    /// threw (from `start()` or `run()`), after the services already started were shut down in reverse; a service
    /// that returned on its own, before the group asked it to, is `ServiceGroupError.serviceFinishedUnexpectedly`
    /// (as in swift-service-lifecycle).
    public func run() async throws {
        let (signalStream, sources) = UnixSignals.stream(signals)
        defer { withExtendedLifetime(sources) {} }
        let shutdowns = services.map { _ in GracefulShutdown() }
        var firstError: (any Error)?
        try await withThrowingTaskGroup(of: Event.self) { group in
            group.addTask { [trigger] in
                let signal = try await cancelWhenGracefulShutdownOf(trigger) { () async -> Int32? in
                    for await number in signalStream { return number }
                    return nil
                }
                return .cause(signal.flatMap { $0 }.map(ShutdownCause.signal) ?? .requested)
            }
            var started = 0
            for (index, service) in services.enumerated() {
                do {
                    try await service.start()
                } catch {
                    firstError = error
                    break
                }
                let shutdown = shutdowns[index]
                group.addTask {
                    do {
                        try await GracefulShutdown.$current.withValue(shutdown) { try await service.run() }
                        return .ended(index, nil)
                    } catch {
                        return .ended(index, error)
                    }
                }
                started += 1
            }
            var ended = Set<Int>()
            var cause: ShutdownCause = .requested
            if firstError == nil {
                // Run until the trigger fires or a service ends on its own.
                switch try await group.next() {
                case .cause(let why)?: cause = why
                case .ended(let index, let error)?:
                    ended.insert(index)
                    // A service that returns before it was asked has stopped doing its job (a stream it served
                    // ended with its connection): the daemon must not exit 0 as if it had been told to stop.
                    firstError = error ?? ServiceGroupError.serviceFinishedUnexpectedly(index: index)
                    cause = .serviceEnded(index: index)
                case nil: break
                }
            }
            onShutdown(cause)
            for index in (0..<started).reversed() where !ended.contains(index) {
                shutdowns[index].request()
                while !ended.contains(index), let event = try await group.next() {
                    if case .ended(let other, let error) = event {
                        ended.insert(other)
                        if firstError == nil { firstError = error }
                    }
                }
            }
            group.cancelAll()
        }
        if let firstError { throw firstError }
    }

    private enum Event: Sendable {
        case cause(ShutdownCause)
        case ended(Int, (any Error)?)
    }
}

/// Runs `operation` until it returns or `shutdown` is requested; nil when the shutdown came first.
private func cancelWhenGracefulShutdownOf<T: Sendable>(_ shutdown: GracefulShutdown,
                                                       _ operation: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await shutdown.wait()
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}

/// Why a group stopped that no service's own error explains.
public enum ServiceGroupError: Error, Equatable, CustomStringConvertible {
    /// Service `index` (in the order given to the group) returned from `run()` before a shutdown asked it to.
    case serviceFinishedUnexpectedly(index: Int)

    public var description: String {
        switch self {
        case .serviceFinishedUnexpectedly(let index): "service \(index) stopped on its own"
        }
    }
}
