/// The time a state-machine test runs on: a `Duration` since the daemon's monotonic epoch that moves only
/// when the test advances it, so no test ever sleeps.
struct ManualClock: Sendable {
    private(set) var now: Duration

    /// Starts well past zero, so a "time minus hold time" can never go negative by accident.
    init(start: Duration = .seconds(1_000)) {
        now = start
    }

    mutating func advance(by delta: Duration) {
        precondition(delta >= .zero, "a monotonic clock does not go back")
        now += delta
    }

    mutating func advance(to instant: Duration) {
        precondition(instant >= now, "a monotonic clock does not go back")
        now = instant
    }
}
