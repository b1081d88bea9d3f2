/// The shape of one policy class's reconnect delays; see ``Backoff`` for the formula and the table of delays.
public struct BackoffConfiguration: Sendable, Hashable {
    /// Which randomisation is applied to the exponential ceiling.
    public enum Jitter: Sendable, Hashable {
        /// Uniform in `[floor, ceiling]` (the default; see ``Backoff`` for why).
        case full
        /// No randomisation: the delay is the ceiling itself. Only for tests and comparisons; a fleet that
        /// loses an adapter would then reconnect in lock-step.
        case none
    }

    /// Ceiling of the first delay.
    public var base: Duration
    /// Growth of the ceiling per consecutive failure.
    public var factor: Double
    /// No delay is ever longer than this.
    public var cap: Duration
    /// No delay is shorter than this: BlueZ and the D-Bus client need a moment to finish cleaning up a failed
    /// attempt, or the retry fails the same way (bleak-retry-connector waits 0.25 s for the same reason,
    /// `BLEAK_TRANSIENT_BACKOFF_TIME`).
    public var floor: Duration
    public var jitter: Jitter
    /// A link that stayed up this long counts as stable: when it drops, the failure count starts again at zero.
    public var stableAfter: Duration
    /// After an adapter returns (powered on again, bluetoothd back), the devices that were waiting for it
    /// reconnect at a uniformly random moment within this window, so a reset adapter is not hit by all of its
    /// devices in the same second. Never longer than `cap`.
    public var recoveryWindow: Duration

    public init(
        base: Duration = .seconds(1),
        factor: Double = 2,
        cap: Duration = .seconds(60),
        floor: Duration = .milliseconds(250),
        jitter: Jitter = .full,
        stableAfter: Duration = .seconds(60),
        recoveryWindow: Duration = .seconds(30)
    ) {
        self.base = base
        self.factor = factor
        self.cap = cap
        self.floor = floor
        self.jitter = jitter
        self.stableAfter = stableAfter
        self.recoveryWindow = recoveryWindow
    }

    /// Checks the values make a backoff that terminates and stays bounded.
    public func validated() throws(PolicyError) -> BackoffConfiguration {
        guard base > .zero else { throw PolicyError(.invalidBackoff, "backoff base must be positive, got \(base)") }
        guard factor.isFinite, factor >= 1 else {
            throw PolicyError(.invalidBackoff, "backoff factor must be a finite number >= 1, got \(factor)")
        }
        guard cap >= base else { throw PolicyError(.invalidBackoff, "backoff cap \(cap) is below its base \(base)") }
        guard floor >= .zero, floor <= base else {
            throw PolicyError(.invalidBackoff, "backoff floor \(floor) must lie between 0 and the base \(base)")
        }
        guard stableAfter >= .zero else {
            throw PolicyError(.invalidBackoff, "stableAfter must not be negative, got \(stableAfter)")
        }
        guard recoveryWindow >= .zero, recoveryWindow <= cap else {
            throw PolicyError(.invalidBackoff, "recoveryWindow \(recoveryWindow) must lie between 0 and the cap \(cap)")
        }
        return self
    }
}
