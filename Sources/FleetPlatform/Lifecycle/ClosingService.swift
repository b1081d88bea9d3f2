/// A part that runs on its own once opened (a bus connection, a listening socket): starting it is a no-op,
/// stopping it, on graceful shutdown or cancellation alike, is `close`.
public struct ClosingService: Service {
    private let close: @Sendable () async -> Void

    public init(close: @escaping @Sendable () async -> Void) {
        self.close = close
    }

    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            await close()
            throw error
        }
        await close()
    }
}
