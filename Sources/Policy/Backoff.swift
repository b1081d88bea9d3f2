/// The reconnect delay of one device: exponential in the number of consecutive failures, capped, and jittered.
///
/// After the n-th consecutive failure (n ≥ 1) the delay is drawn uniformly from `[floor, ceiling(n)]`, where
/// `ceiling(n) = min(cap, base × factor^(n-1))`. With the defaults (base 1 s, factor 2, cap 60 s, floor 0.25 s):
///
/// | failure n | ceiling | delay drawn from |
/// |-----------|---------|------------------|
/// | 1         | 1 s     | 0.25 s … 1 s     |
/// | 2         | 2 s     | 0.25 s … 2 s     |
/// | 3         | 4 s     | 0.25 s … 4 s     |
/// | 4         | 8 s     | 0.25 s … 8 s     |
/// | 5         | 16 s    | 0.25 s … 16 s    |
/// | 6         | 32 s    | 0.25 s … 32 s    |
/// | 7 and on  | 60 s    | 0.25 s … 60 s    |
///
/// **Why full jitter, not decorrelated jitter.** Both spread a herd; full jitter was chosen because
/// - each delay has fixed, documented bounds that depend only on n (decorrelated jitter's range depends on the
///   previous random draw, so its bounds cannot be tabled per attempt and a test cannot check them);
/// - it spreads a herd over the whole `[floor, ceiling]` window, where decorrelated jitter keeps every delay at
///   or above `base` and so bunches the first retries of a reset adapter's devices in `[1 s, 3 s]`;
/// - it never exceeds `cap`, so "no device waits longer than its cap" holds by construction
///   (AWS Architecture Blog, "Exponential Backoff And Jitter", found full jitter does the least total work).
/// The floor (0.25 s, bleak-retry-connector's `BLEAK_TRANSIENT_BACKOFF_TIME`) keeps a retry from racing the
/// cleanup of the attempt that just failed.
///
/// **Two counts, one exponent.** `failures` counts consecutive failed attempts (a connect that failed, a link
/// that dropped before the device was ready); it is what a class's retry budget is spent from. `shortSessions`
/// counts consecutive *healthy* sessions (the device reached ready, then its link ended) that lasted less than
/// `stableAfter` (default 60 s). The delay's `n` is `failures + shortSessions`, so a device that flaps still
/// backs off to the cap, but a cuff that connects, uploads and hangs up after ten seconds never spends budget.
///
/// **Reset.** A link that stayed up for `stableAfter` resets both counts when it drops, so the next reconnect
/// starts at n = 1 again; a session that ends sooner keeps `shortSessions` counting.
///
/// Time is a `Duration` since the daemon's monotonic epoch; randomness is passed in, so a seeded generator
/// reproduces every delay.
public struct Backoff: Sendable, Hashable {
    public let configuration: BackoffConfiguration
    /// Consecutive failures since the last stable link (the `n` of the table).
    public private(set) var failures: Int = 0
    /// Consecutive healthy sessions (ready, then ended) shorter than `stableAfter`: they lengthen the delay but
    /// are not failures.
    public private(set) var shortSessions: Int = 0
    /// When the current link came up, if there is one.
    public private(set) var linkUpSince: Duration?

    public init(configuration: BackoffConfiguration = BackoffConfiguration()) {
        self.configuration = configuration
    }

    /// The largest delay that may follow the `n`-th consecutive failure (n ≥ 1; smaller n is treated as 1).
    public func ceiling(afterFailures n: Int) -> Duration {
        let cap = configuration.cap.seconds
        var seconds = configuration.base.seconds
        // The loop stops at the cap, so a device that has failed for days costs no more than seven steps;
        // a factor of 1 never grows, hence the separate exit.
        if configuration.factor > 1 {
            var step = 1
            while step < n, seconds < cap {
                seconds *= configuration.factor
                step += 1
            }
        }
        guard seconds.isFinite, seconds < cap else { return configuration.cap }
        return max(.seconds(seconds), configuration.base)
    }

    /// The documented range of the delay after the `n`-th consecutive failure.
    public func bounds(afterFailures n: Int) -> ClosedRange<Duration> {
        let ceiling = ceiling(afterFailures: n)
        switch configuration.jitter {
        case .full: return min(configuration.floor, ceiling)...ceiling
        case .none: return ceiling...ceiling
        }
    }

    /// A delay for the `n`-th consecutive failure, without changing any state.
    public func delay(afterFailures n: Int, using rng: inout some RandomNumberGenerator) -> Duration {
        Duration.random(in: bounds(afterFailures: n), using: &rng)
    }

    /// Counts one more failure and returns how long to wait before the next attempt.
    public mutating func recordFailure(using rng: inout some RandomNumberGenerator) -> Duration {
        failures += 1
        return delay(afterFailures: failures + shortSessions, using: &rng)
    }

    /// A healthy session (the device reached ready) ended at `now`: no failure is counted, and the failure count
    /// is cleared (the device worked). A session shorter than `stableAfter` adds to `shortSessions`; a stable one
    /// clears it. Returns the delay before reconnecting: the table's delay for `n = shortSessions` (at least 1).
    public mutating func sessionEnded(now: Duration, using rng: inout some RandomNumberGenerator) -> Duration {
        if isStable(now: now) { shortSessions = 0 } else { shortSessions += 1 }
        failures = 0
        linkUpSince = nil
        return delay(afterFailures: max(1, shortSessions), using: &rng)
    }

    /// The link came up at `now`.
    public mutating func linkUp(now: Duration) {
        linkUpSince = now
    }

    /// Whether the current link has been up long enough to count as stable.
    public func isStable(now: Duration) -> Bool {
        guard let linkUpSince else { return false }
        return now - linkUpSince >= configuration.stableAfter
    }

    /// The link went down at `now`. Resets the failure count if it had been stable; returns whether it had.
    @discardableResult
    public mutating func linkDown(now: Duration) -> Bool {
        let wasStable = isStable(now: now)
        if wasStable {
            failures = 0
            shortSessions = 0
        }
        linkUpSince = nil
        return wasStable
    }

    /// Forgets every failure (after a successful connect that the caller wants to count as a fresh start).
    /// Takes back the failure count of a previous run (from a snapshot).
    public mutating func restore(failures count: Int) {
        failures = max(0, count)
    }

    /// The device reached ready: the failed attempts before it no longer count against the budget.
    public mutating func clearFailures() {
        failures = 0
    }

    public mutating func reset() {
        failures = 0
        shortSessions = 0
    }

    /// How long to wait before reconnecting once a lost adapter is back: uniform in
    /// `[0, recoveryWindow]`, so the devices of a reset adapter do not all try in the same second.
    /// Does not count as a failure.
    public func recoveryDelay(using rng: inout some RandomNumberGenerator) -> Duration {
        switch configuration.jitter {
        case .full: Duration.random(in: .zero...configuration.recoveryWindow, using: &rng)
        case .none: .zero
        }
    }
}
