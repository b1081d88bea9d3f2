/// Waits for a condition that an asynchronous event will make true, up to a deadline. The condition is
/// re-checked after each yield, and once more when the deadline has passed (a test process stalled past it by a
/// loaded machine still sees an event that came in time). The deadline turns a missed event into a failure instead
/// of a hang; it only bounds a failing run, so it is generous: 30 s, as every wait for a positive event here.
public func waitUntil(_ what: String, timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestKitError("timed out after \(timeout) waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(2))
    }
}
