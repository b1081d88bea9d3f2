/// A discrete-event model of a fleet driven only by Policy's decisions (``ReconnectState``, ``SlotTable``,
/// ``BlueZErrorClassifier``), on a manual clock: nothing sleeps and nothing reads a clock, so a seeded run is
/// reproducible and an hour of a 10 000-device fleet computes in well under a second.
///
/// The model: every device has one home adapter and wants to stay linked. A connect takes a uniformly random
/// time in `connectLatency` and fails with the configured probabilities (`le-connection-abort-by-local`, a
/// stuck `InProgress`, a D-Bus `NoReply`); an established link drops after a uniformly random lifetime of
/// mean `meanLinkLifetime` (HCI 0x08). At `resetAt` one adapter powers off for `resetDowntime`, dropping its
/// links. Each adapter runs one connect at a time; due devices queue behind it in order.
///
/// Connect timeouts are not modelled: with one connect in flight per adapter, a connect that hangs for the
/// 30 s timeout stalls every device queued behind it, which the acceptance bounds do not allow for. The
/// latency is kept short (milliseconds) because the model measures the policy's spreading, not the radio.
///
/// Documented bounds for the default parameters (checked by PolicyTests): never more than one connect in
/// flight per adapter; every device waiting for the reset adapter makes its first attempt within the cap
/// (60 s) of its return — in practice within the 30 s recovery window; and no second of the minute after the
/// return holds more than 7 % of that minute's attempts (5.3–5.7 % measured over 30 seeds, 14.7 % or more with
/// jitter switched off).
public enum PolicySimulation {
    /// What to simulate.
    public struct Parameters: Sendable, Hashable {
        public var deviceCount = 10_000
        public var adapterCount = 10
        public var capacityPerAdapter = 1_000
        public var duration: Duration = .seconds(3600)
        public var resetAt: Duration = .seconds(600)
        public var resetAdapter = 0
        public var resetDowntime: Duration = .seconds(5)
        /// Shares of critical and opportunistic devices; the rest are normal.
        public var criticalShare = 0.05
        public var opportunisticShare = 0.15
        public var connectLatency: ClosedRange<Duration> = .milliseconds(4) ... .milliseconds(8)
        public var abortProbability = 0.06
        public var inProgressProbability = 0.01
        public var noReplyProbability = 0.01
        public var meanLinkLifetime: Duration = .seconds(7200)
        public var configuration = PolicyConfiguration()

        public init() {}
    }

    /// What happened, for assertions and the benchmark.
    public struct Report: Sendable, Hashable {
        /// Connect attempts started.
        public var attempts = 0
        public var successes = 0
        public var failures = 0
        /// Failure counts by the decision they led to.
        public var decisions: [RetryDecision: Int] = [:]
        public var linkDrops = 0
        public var staleStateClears = 0
        public var gaveUp = 0
        /// The most connects ever in flight on one adapter at once (counted by the model, not by SlotTable).
        public var maxInFlightPerAdapter = 0
        /// Connects SlotTable refused to start (it must be zero).
        public var slotTableRefusals = 0
        /// Admissions that had to wait for another reason than the connect in flight.
        public var admissionWaits = 0
        /// Links the reset dropped.
        public var droppedByReset = 0
        /// Devices waiting for the reset adapter when it came back.
        public var waitingAtReturn = 0
        /// The longest time from the adapter's return to one of those devices' first attempt.
        public var maxWaitAfterReturn: Duration = .zero
        /// Waiting devices that made no attempt before the end.
        public var neverRetried = 0
        /// Attempts started on any adapter in `[return, return + cap)`, and the busiest second of them.
        public var recoveryWindowAttempts = 0
        public var busiestRecoverySecond = 0
        public var linkedAtEnd = 0
        public var events = 0

        /// The busiest second's share of the recovery window's attempts.
        public var busiestSecondShare: Double {
            recoveryWindowAttempts == 0 ? 0 : Double(busiestRecoverySecond) / Double(recoveryWindowAttempts)
        }
    }

    /// Runs the model once; the same parameters and generator state give the same report.
    public static func run(_ parameters: Parameters, using rng: inout some RandomNumberGenerator) throws(PolicyError) -> Report {
        _ = try parameters.configuration.validated()
        var engine = try SimulationEngine(parameters: parameters, rng: &rng)
        engine.run(using: &rng)
        return engine.report
    }
}
