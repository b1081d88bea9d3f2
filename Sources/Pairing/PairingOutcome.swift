import Policy

/// What to do after `Device1.Pair` answered.
public enum PairingDecision: String, Sendable, Hashable, CaseIterable {
    /// The device is paired (including `AlreadyExists`: it already was).
    case paired
    /// A timeout, a lost link, a connection that did not come up: pair again after backoff.
    case retryWithBackoff
    /// A pairing is already running for the device: wait for it, then look again.
    case retrySoon
    /// The adapter is off or gone.
    case waitForAdapter
    /// A wrong passkey or a refused confirmation: pairing again would fail the same way (and some devices
    /// lock out after repeated failures). An operator must fix the configuration or the device.
    case needsOperator

    /// The supervisor's equivalent.
    public var retryDecision: RetryDecision {
        switch self {
        case .paired: .alreadyDone
        case .retryWithBackoff: .retryWithBackoff
        case .retrySoon: .retrySoon
        case .waitForAdapter: .waitForAdapter
        case .needsOperator: .giveUp
        }
    }
}

/// The verdict on one Pair reply: the decision, a stable code for logs, and a sentence.
public struct PairingClassification: Sendable, Hashable {
    public let decision: PairingDecision
    public let code: String
    /// False for an error name fleetd does not know (classified retry-with-backoff).
    public let isKnown: Bool
    public let explanation: String
}

/// Classifies the replies of `Device1.Pair` as BlueZ 5.66 gives them (new_authentication_return and
/// pair_device in src/device.c; docs/bluez-fidelity.md, Pairing).
public enum PairingOutcome {
    /// A successful Pair.
    public static let success = PairingClassification(decision: .paired, code: "paired", isKnown: true, explanation: "paired")

    public static func classify(name: String, message: String) -> PairingClassification {
        let row: (PairingDecision, String, String)?
        switch name.trimmingBlanks {
        case "org.bluez.Error.AlreadyExists":
            row = (.paired, "already-paired", "already paired (\(message)): nothing to do")
        case "org.bluez.Error.AuthenticationFailed":
            row = (.needsOperator, "authentication-failed",
                   "the device refused the pairing: a wrong passkey, a refused confirmation, or no agent able to answer")
        case "org.bluez.Error.AuthenticationRejected":
            row = (.retryWithBackoff, "authentication-rejected",
                   "the device rejected pairing for now (busy, repeated attempts, or not in pairing mode)")
        case "org.bluez.Error.AuthenticationCanceled":
            row = (.retryWithBackoff, "authentication-canceled",
                   "the pairing was cancelled: the link dropped, the kernel's SMP timer expired, or it was cancelled")
        case "org.bluez.Error.AuthenticationTimeout":
            row = (.retryWithBackoff, "authentication-timeout", "the device did not answer the pairing in time")
        case "org.bluez.Error.ConnectionAttemptFailed":
            row = (.retryWithBackoff, "connection-attempt-failed", "the connection for the pairing could not be made")
        case "org.bluez.Error.InProgress":
            row = (.retrySoon, "in-progress", "a pairing is already under way for the device")
        case "org.bluez.Error.NotReady", "org.bluez.Error.NoSuchAdapter":
            row = (.waitForAdapter, "adapter-unavailable", "the adapter is not available")
        case "org.bluez.Error.Failed", "org.bluez.Error.DoesNotExist", "org.freedesktop.DBus.Error.UnknownObject",
             "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
            row = (.retryWithBackoff, "pair-failed", "Pair failed (\(message)); try again after backoff")
        default:
            row = nil
        }
        guard let (decision, code, explanation) = row else {
            return PairingClassification(decision: .retryWithBackoff, code: "unknown", isKnown: false,
                                         explanation: "unknown Pair error \(name): \(message); retrying with backoff as the safe default")
        }
        return PairingClassification(decision: decision, code: code, isKnown: true, explanation: explanation)
    }
}
