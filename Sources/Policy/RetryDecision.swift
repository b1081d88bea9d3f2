/// What to do after a failure, as decided by ``BlueZErrorClassifier``.
public enum RetryDecision: String, Sendable, Hashable, CaseIterable {
    /// Try again after an exponential, jittered delay (``Backoff``); counts against the retry budget.
    case retryWithBackoff
    /// A transient D-Bus hiccup: try again after a short delay without advancing the backoff.
    case retrySoon
    /// BlueZ holds stale state for the device (a stuck `InProgress`): call Disconnect first, RemoveDevice if
    /// that did not help, then retry with backoff.
    case clearStaleStateThenRetry
    /// The adapter (or bluetoothd) is not available: pause until it returns. No attempt is burnt.
    case waitForAdapter
    /// Retrying cannot help without an operator (not supported, not permitted, authentication).
    case giveUp
    /// The goal is already reached (for example `AlreadyConnected`): treat as success.
    case alreadyDone
}

/// The verdict on one failure: the decision, a stable reason code for logs (`FLEET_REASON`), and a sentence.
public struct ErrorClassification: Sendable, Hashable {
    public let failure: ConnectFailure
    public let decision: RetryDecision
    /// A short stable code: the BlueZ message (`le-connection-abort-by-local`), the D-Bus error's last
    /// component (`InProgress`), `hci-0x08`, or `unknown`.
    public let code: String
    /// False when the failure matched no row of the table; the decision is then the safe default
    /// (`retryWithBackoff`) and the caller should log the failure as unknown.
    public let isKnown: Bool
    /// The adapter said it cannot hold more links; the caller should tell the adapter's ``SlotTable``
    /// (``SlotTable/reportLimitReached(now:)``).
    public let signalsCapacityLimit: Bool
    /// Why this decision, for people.
    public let explanation: String
    /// The stale state is a connect BlueZ still runs for a client that is gone: a killed fleetd's (`Failed
    /// "Operation already in progress"`). Cancelling it is fleetd's housekeeping after its own crash, not
    /// something the device did: the first clear in a row costs no attempt (``ReconnectState``).
    public var isLeftoverConnect = false
}
