/// Handles Unix signals that do not stop the daemon (SIGHUP's reload), one at a time, until shutdown.
public struct SignalService: Service {
    private let signals: [Int32]
    private let handler: @Sendable (Int32) async -> Void

    public init(_ signals: [Int32], handler: @escaping @Sendable (Int32) async -> Void) {
        self.signals = signals
        self.handler = handler
    }

    public func run() async throws {
        let (stream, sources) = UnixSignals.stream(signals)
        defer { withExtendedLifetime(sources) {} }
        let handler = self.handler
        try await cancelWhenGracefulShutdown {
            for await number in stream { await handler(number) }
        }
    }
}
