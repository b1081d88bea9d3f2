import Dispatch

/// Handles Unix signals that do not stop the daemon (SIGHUP's reload), one at a time, until shutdown.
public struct SignalService: Service {
    private let caught: CaughtSignals
    private let handler: @Sendable (Int32) async -> Void

    /// Handles the signals `caught` has been keeping since it was made (make it first thing in `main`).
    public init(_ caught: CaughtSignals, handler: @escaping @Sendable (Int32) async -> Void) {
        self.caught = caught
        self.handler = handler
    }

    /// Catches `signals` from the moment the service runs.
    public init(_ signals: [Int32], handler: @escaping @Sendable (Int32) async -> Void) {
        self.init(CaughtSignals(signals), handler: handler)
    }

    public func run() async throws {
        let caught = self.caught
        let handler = self.handler
        try await cancelWhenGracefulShutdown {
            for await number in caught.stream { await handler(number) }
        }
        withExtendedLifetime(caught) {}
    }
}

/// Signals caught from the moment this is made: their default action (SIGHUP's is to end the process) is off at
/// once, and each one that arrives is kept until a ``SignalService`` handles it. A daemon makes it before its
/// start-up, so a reload asked for while it is still starting is applied when it is up instead of killing it.
public final class CaughtSignals: @unchecked Sendable {
    // @unchecked: both are set once in init; the dispatch sources are only kept alive, never touched again.
    let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    public init(_ signals: [Int32]) {
        (stream, sources) = UnixSignals.stream(signals)
    }
}
