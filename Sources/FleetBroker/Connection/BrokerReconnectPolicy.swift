import Policy

/// How long the broker link waits before its next connection attempt: a pure function of how long the outage has
/// lasted, which attempt of the outage this is, and a random draw in `0...1` (the jitter).
///
/// A broker is most often away for a restart or a failover, back within seconds; the exponential backoff alone
/// (1 s doubling to 60 s) then let a broker back after 15 s wait up to 31 s more. So the ceiling of the delay is
/// the backoff's ceiling for the attempt, but while the outage is young (`quickFor`, 2 min) at most `quickCap`
/// (1 s), and after that at most the outage's age beyond `quickFor` (so it grows without a jump to the cap). The
/// delay is drawn uniformly between the backoff's floor and that ceiling (full jitter, so a fleet of gateways
/// does not come back in lock-step). With the defaults, for any attempt:
///
/// | outage age | ceiling | delay drawn from | a broker back at that age is tried again within |
/// |---|---|---|---|
/// | 0 – 2 min | 1 s | 0.25 s … 1 s | 1 s |
/// | 2 min 10 s | 10 s | 0.25 s … 10 s | 10 s |
/// | 2 min 30 s | 30 s | 0.25 s … 30 s | 30 s |
/// | 3 min and on | 60 s (the cap) | 0.25 s … 60 s | 60 s |
///
/// The attempt still bounds the ceiling (1 s, 2 s, 4 s, … for attempts 1, 2, 3, …), which matters only for a
/// backoff whose base is below `quickCap` or for the first attempts after two minutes of flapping sessions.
public struct BrokerReconnectPolicy: Sendable, Hashable {
    /// The grown backoff: its ceiling after the n-th failed attempt, its floor, its jitter, its `stableAfter`.
    public var backoff: BackoffConfiguration
    /// How long an outage counts as young: its delays are capped at ``quickCap``.
    public var quickFor: Duration
    /// The longest delay while the outage is young.
    public var quickCap: Duration

    public init(backoff: BackoffConfiguration = BackoffConfiguration(), quickFor: Duration = .seconds(120), quickCap: Duration = .seconds(1)) {
        self.backoff = backoff
        self.quickFor = quickFor
        self.quickCap = quickCap
    }

    /// The ceiling of the delay after the `attempt`-th failed attempt (1, 2, …) of an outage `outageAge` old.
    public func ceiling(outageAge: Duration, attempt: Int) -> Duration {
        let grown = Backoff(configuration: backoff).ceiling(afterFailures: max(1, attempt))
        let allowed = outageAge < quickFor ? quickCap : max(quickCap, outageAge - quickFor)
        return min(grown, allowed)
    }

    /// The range the delay after the `attempt`-th failed attempt (1, 2, …) of an outage `outageAge` old is drawn from.
    public func bounds(outageAge: Duration, attempt: Int) -> ClosedRange<Duration> {
        let ceiling = ceiling(outageAge: outageAge, attempt: attempt)
        switch backoff.jitter {
        case .full: return min(backoff.floor, ceiling) ... ceiling
        case .none: return ceiling ... ceiling
        }
    }

    /// The delay for `draw` (0: the range's low end, 1: its high end; clamped to `0...1`).
    public func delay(outageAge: Duration, attempt: Int, draw: Double) -> Duration {
        let range = bounds(outageAge: outageAge, attempt: attempt)
        let low = range.lowerBound.wholeNanoseconds, high = range.upperBound.wholeNanoseconds
        let fraction = min(1, max(0, draw.isNaN ? 0 : draw))
        return .nanoseconds(low + Int64((Double(high - low) * fraction).rounded(.down)))
    }
}

/// The network thread's view of the current outage, for ``BrokerReconnectPolicy``: when it began and how many
/// attempts failed in it. A session that stayed up for the backoff's `stableAfter` ends the outage; a shorter one
/// (a broker that accepts and drops at once, two gateways taking one client id from each other) does not, so
/// such flapping backs off like an outage that never ended.
struct BrokerOutage: Sendable {
    let policy: BrokerReconnectPolicy
    /// When the outage began (time since the connection's epoch); nil while none is under way.
    private(set) var began: Duration?
    /// Failed attempts and lost sessions since it began.
    private(set) var attempts = 0
    private var linkUpSince: Duration?

    init(policy: BrokerReconnectPolicy) {
        self.policy = policy
    }

    /// An attempt failed, or a session was lost, at `now`: the delay before the next attempt.
    mutating func failed(now: Duration, draw: Double) -> Duration {
        let began = self.began ?? now
        self.began = began
        attempts += 1
        return policy.delay(outageAge: now - began, attempt: attempts, draw: draw)
    }

    mutating func linkUp(now: Duration) {
        linkUpSince = now
    }

    /// The session that came up at ``linkUp(now:)`` ended at `now`: a stable one ends the outage.
    mutating func linkDown(now: Duration) {
        if let linkUpSince, now - linkUpSince >= policy.backoff.stableAfter {
            began = nil
            attempts = 0
        }
        linkUpSince = nil
    }
}

extension Duration {
    /// Whole nanoseconds, clamped to `0...Int64.max`.
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole + attoseconds / 1_000_000_000
    }
}
