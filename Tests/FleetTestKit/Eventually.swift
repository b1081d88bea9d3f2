/// Waits for a condition that an asynchronous event will make true, up to a deadline. The condition is
/// re-checked after each yield; the deadline turns a missed event into a failure instead of a hang.
public func waitUntil(_ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestKitError("timed out after \(timeout) waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(2))
    }
}
