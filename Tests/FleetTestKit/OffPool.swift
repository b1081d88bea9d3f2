import Foundation

/// Runs blocking work (waitpid, a blocking socket read) on a thread of its own and awaits it, so that it
/// never occupies one of Swift concurrency's few cooperative threads (two on this machine), which would
/// starve every other test's continuations.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
