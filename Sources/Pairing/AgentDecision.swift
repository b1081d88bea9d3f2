/// Who may pair with the gateway, and with what: fleetd's agent's answers, decided without I/O.
///
/// | request | stranger | `none` | `just-works` | `passkey` |
/// | --- | --- | --- | --- | --- |
/// | RequestPasskey | reject | reject | reject (mismatch) | the passkey (reject if unreadable) |
/// | RequestPinCode, DisplayPinCode | reject | reject | reject | reject (LE has no PIN) |
/// | RequestConfirmation | reject | reject | per `numeric-comparison` | per `numeric-comparison` |
/// | RequestAuthorization | reject | reject | accept | reject (a downgrade to just works) |
/// | AuthorizeService | reject | reject | accept | accept |
/// | DisplayPasskey | reject | reject | accept (logged) | accept (logged) |
public enum AgentDecision {
    /// The answer to `request` about `candidate` (nil: the device is not a wanted one).
    public static func answer(_ request: AgentRequest, for candidate: PairingCandidate?) -> AgentAnswer {
        guard let candidate else { return .reject(.stranger) }
        let device = candidate.device
        if let bonded = candidate.bondedAt { return .reject(.bondedElsewhere(device: device, address: bonded)) }
        let policy = candidate.policy
        let configured: String
        switch policy.method {
        case .none: return .reject(.pairingNotConfigured(device: device))
        case .justWorks: configured = "just-works"
        case .passkey: configured = "passkey"
        }
        switch request {
        case .requestPasskey:
            guard policy.needsPasskeyEntry else { return .reject(.methodMismatch(device: device, configured: configured)) }
            switch candidate.passkey {
            case .known(let passkey): return .passkey(passkey)
            case .unavailable(let reason): return .reject(.passkeyUnavailable(device: device, reason: reason))
            case .notNeeded: return .reject(.passkeyUnavailable(device: device, reason: "no passkey was resolved"))
            }
        case .requestPinCode, .displayPinCode:
            return .reject(.pinCodeNotSupported(device: device))
        case .requestConfirmation:
            return policy.numericComparison == .allow ? .accept : .reject(.numericComparisonRefused(device: device))
        case .requestAuthorization:
            return policy.needsPasskeyEntry ? .reject(.methodMismatch(device: device, configured: configured)) : .accept
        case .authorizeService, .displayPasskey:
            return .accept
        }
    }
}
