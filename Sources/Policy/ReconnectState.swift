/// One device's reconnect bookkeeping: its backoff, its retry budget, the transient-hiccup count, how far
/// stale-state clearing has gone, and whether it is waiting for its adapter. Feed it failures, link changes
/// and adapter returns; it answers with a ``ReconnectStep``.
///
/// Rules, per ``RetryDecision``:
/// - `retryWithBackoff`: one more failure; the delay comes from ``Backoff``. A `normal` device whose failures
///   reach its `retryBudget` gets `giveUp`.
/// - `retrySoon`: a delay in `[floor, 2 × floor]` without advancing the backoff, at most `transientLimit`
///   times in a row (9, bleak-retry-connector's `MAX_TRANSIENT_ERRORS`); beyond that it counts as a failure.
/// - `clearStaleStateThenRetry`: Disconnect the first time, RemoveDevice from the second time in a row; both
///   count as a failure, so a state that cannot be cleared still backs off. The first clear of a connect left
///   running by an earlier fleetd (``ErrorClassification/isLeftoverConnect``) is not counted.
/// - `waitForAdapter`: nothing is counted; the device waits for ``adapterReturned(now:using:)``, whose delay
///   spreads a whole adapter's devices over the class's `recoveryWindow`.
/// - `giveUp`: stop — except for `critical` devices, which are never given up: they retry at the cap and the
///   step says an operator is needed.
/// - `alreadyDone`: success.
public struct ReconnectState: Sendable, Hashable {
    public let policyClass: PolicyClass
    public let configuration: ClassConfiguration
    public private(set) var backoff: Backoff
    /// Consecutive `retrySoon` answers.
    public private(set) var transientRetries = 0
    /// Consecutive stale-state clears (1: Disconnect was tried, 2 and more: RemoveDevice was tried).
    public private(set) var staleStateClears = 0
    public private(set) var isWaitingForAdapter = false
    /// Whether the current link reached ready (services resolved, subscriptions armed): its end is a session
    /// that ended, not a failure.
    public private(set) var sessionReachedReady = false
    public private(set) var hasGivenUp = false
    public let transientLimit: Int

    public init(policyClass: PolicyClass, configuration: PolicyConfiguration = PolicyConfiguration(), transientLimit: Int = 9) {
        self.policyClass = policyClass
        self.configuration = configuration[policyClass]
        self.backoff = Backoff(configuration: self.configuration.backoff)
        self.transientLimit = max(0, transientLimit)
    }

    /// Consecutive failures counted against the budget (`FLEET_FAILURES`): failed connects and links lost
    /// before the device was ready, since the last session that reached ready.
    public var failures: Int { backoff.failures }
    /// Consecutive healthy sessions shorter than the stable time: they lengthen the delay, not the budget.
    public var shortSessions: Int { backoff.shortSessions }

    /// The first connect after fleetd starts (or the device becomes wanted): like an adapter's return, the
    /// attempt is placed at a random moment of the class's recovery window, so a daemon start with thousands of
    /// devices does not try them all in the same second.
    public func firstConnect(now: Duration, using rng: inout some RandomNumberGenerator) -> ReconnectStep {
        let delay = backoff.recoveryDelay(using: &rng)
        return ReconnectStep(action: .connect(after: delay), classification: nil, failures: failures,
                             reason: "first connect in \(delay.humanDescription)")
    }

    /// A connect attempt failed at `now`.
    public mutating func connectFailed(_ failure: ConnectFailure, now: Duration, using rng: inout some RandomNumberGenerator) -> ReconnectStep {
        decide(BlueZErrorClassifier.classify(failure), using: &rng)
    }

    /// The link came up at `now`: stale-state and transient counts are cleared; the failure count is kept until
    /// the device is ready on this link (``ready(now:)``), since a link that drops before that is a failed attempt.
    public mutating func connected(now: Duration) {
        backoff.linkUp(now: now)
        transientRetries = 0
        staleStateClears = 0
        isWaitingForAdapter = false
        hasGivenUp = false
        sessionReachedReady = false
    }

    /// The device became ready at `now` on its current link (set-up finished). From here on the link's end is
    /// a healthy session's end: a blood-pressure cuff that uploads and hangs up is working, not failing.
    public mutating func ready(now: Duration) {
        sessionReachedReady = true
        backoff.clearFailures()
    }

    /// An established link went away at `now`; `failure` is why (nil: unknown cause, treated as a plain drop).
    public mutating func linkLost(_ failure: ConnectFailure?, now: Duration, using rng: inout some RandomNumberGenerator) -> ReconnectStep {
        let classification = BlueZErrorClassifier.classify(failure ?? .local(.linkDropped(hciReason: nil)))
        let healthy = sessionReachedReady
        sessionReachedReady = false
        if healthy, classification.decision == .retryWithBackoff || classification.decision == .retrySoon {
            transientRetries = 0
            staleStateClears = 0
            let delay = backoff.sessionEnded(now: now, using: &rng)
            let why = shortSessions == 0 ? "after a stable session" : "short session \(shortSessions) in a row"
            return step(.connect(after: delay), classification,
                        "\(classification.code); session ended (\(why), not a failure), reconnect in \(delay.humanDescription)")
        }
        backoff.linkDown(now: now)
        return decide(classification, using: &rng)
    }

    /// The device's adapter is back at `now`. If the device was waiting for it, its reconnect is placed at a
    /// random moment of the class's recovery window; nil if it was not waiting (linked, or in backoff with its
    /// own timer, or given up), so the supervisor can call this for every device of the adapter.
    public mutating func adapterReturned(now: Duration, using rng: inout some RandomNumberGenerator) -> ReconnectStep? {
        guard isWaitingForAdapter else { return nil }
        isWaitingForAdapter = false
        let delay = backoff.recoveryDelay(using: &rng)
        return ReconnectStep(action: .connect(after: delay), classification: nil, failures: failures,
                             reason: "adapter back; reconnect in \(delay.humanDescription) (spread over \(configuration.backoff.recoveryWindow.humanDescription))")
    }

    /// A connect failed because the adapter had no free connection: the controller said so
    /// (`signalsCapacityLimit`), or the supervisor's capacity learning concluded it from aborted connects. That is
    /// the pool's limit, not the device's failure: nothing is counted, and the retry comes after a delay in
    /// `[floor, 2 × floor]` (the learned capacity then keeps admission off the full adapter).
    public mutating func poolFull(_ failure: ConnectFailure, using rng: inout some RandomNumberGenerator) -> ReconnectStep {
        let classification = BlueZErrorClassifier.classify(failure)
        transientRetries = 0
        staleStateClears = 0
        let floor = configuration.backoff.floor
        let delay = Duration.random(in: floor...(floor * 2), using: &rng)
        return step(.connect(after: delay), classification,
                    "\(classification.code); the adapter's pool is full (not counted), retry in \(delay.humanDescription)")
    }

    /// Takes back `count` failures that turned out not to be the device's (never below zero); a device that had
    /// spent its budget on them is no longer given up.
    public mutating func takeBack(failures count: Int) {
        let budgetSpent = configuration.retryBudget.map { failures >= $0 } ?? false
        backoff.restore(failures: failures - max(0, count))
        if budgetSpent, let budget = configuration.retryBudget, failures < budget { hasGivenUp = false }
    }

    /// The device was evicted by the pool (not a failure): it waits for a free slot, nothing is counted.
    /// Takes back a previous run's progress (from a snapshot): the failure count, and whether it gave up.
    public mutating func restore(failures: Int, hasGivenUp: Bool) {
        backoff.restore(failures: failures)
        self.hasGivenUp = hasGivenUp && policyClass != .critical
    }

    public mutating func evicted(now: Duration) {
        sessionReachedReady = false
        backoff.linkDown(now: now)
    }

    private mutating func decide(_ classification: ErrorClassification, using rng: inout some RandomNumberGenerator) -> ReconnectStep {
        let code = classification.code
        switch classification.decision {
        case .alreadyDone:
            transientRetries = 0
            staleStateClears = 0
            return step(.connected, classification, "\(code); already connected, counted as success")

        case .waitForAdapter:
            isWaitingForAdapter = true
            return step(.waitForAdapter, classification, "\(code); waiting for the adapter, no attempt burnt")

        case .retrySoon where transientRetries < transientLimit:
            transientRetries += 1
            let delay = soonDelay(using: &rng)
            return step(.connect(after: delay), classification,
                        "\(code); transient \(transientRetries) of \(transientLimit), retry in \(delay.humanDescription)")

        case .retrySoon, .retryWithBackoff:
            transientRetries = 0
            staleStateClears = 0
            return backoffStep(classification, using: &rng) { .connect(after: $0) }

        case .clearStaleStateThenRetry:
            transientRetries = 0
            staleStateClears += 1
            let firstTry = staleStateClears == 1
            if firstTry, classification.isLeftoverConnect {
                // A killed fleetd's connect that BlueZ still runs (soak seed 210: it outlived the restart by 75 s
                // on a device that never answers). Not the device's failure; a leftover that is back after the
                // Disconnect is, from the second time in a row.
                let delay = soonDelay(using: &rng)
                return step(.disconnectThenConnect(after: delay), classification,
                            "\(code); a connect left running by an earlier fleetd: disconnect, no attempt burnt, then retry in \(delay.humanDescription)")
            }
            return backoffStep(classification, using: &rng) {
                firstTry ? .disconnectThenConnect(after: $0) : .removeDeviceThenConnect(after: $0)
            }

        case .giveUp:
            transientRetries = 0
            staleStateClears = 0
            guard policyClass == .critical else {
                hasGivenUp = true
                return step(.giveUp, classification, "\(code); giving up: \(classification.explanation)")
            }
            _ = backoff.recordFailure(using: &rng)
            let delay = configuration.backoff.cap
            return step(.connect(after: delay), classification,
                        "\(code); needs an operator (\(classification.explanation)), but critical devices are never given up: retry in \(delay.humanDescription)")
        }
    }

    private mutating func backoffStep(
        _ classification: ErrorClassification,
        using rng: inout some RandomNumberGenerator,
        _ action: (Duration) -> ReconnectStep.Action
    ) -> ReconnectStep {
        let delay = backoff.recordFailure(using: &rng)
        if let budget = configuration.retryBudget, failures >= budget {
            hasGivenUp = true
            return step(.giveUp, classification, "\(classification.code); retry budget of \(budget) spent, giving up")
        }
        let verb = switch action(delay) {
        case .disconnectThenConnect: "disconnect, then retry"
        case .removeDeviceThenConnect: "remove the device, then retry"
        default: "retry"
        }
        return step(action(delay), classification, "\(classification.code); \(verb) \(failures) in \(delay.humanDescription)")
    }

    /// A retry soon, without advancing the backoff: between the class's floor and twice it.
    private func soonDelay(using rng: inout some RandomNumberGenerator) -> Duration {
        let floor = configuration.backoff.floor
        return Duration.random(in: floor...(floor * 2), using: &rng)
    }

    private func step(_ action: ReconnectStep.Action, _ classification: ErrorClassification, _ reason: String) -> ReconnectStep {
        ReconnectStep(action: action, classification: classification, failures: failures, reason: reason)
    }
}
