/// How one wanted device pairs, from its configuration section: `pairing = none | just-works | passkey`
/// (the passkey given as `passkey =` or in a `passkey-file =`), `numeric-comparison = allow | refuse` and
/// `re-pair = auto | manual`.
public struct PairingPolicy: Sendable, Hashable {
    /// The `pairing =` key.
    public enum Method: Sendable, Hashable {
        /// fleetd never pairs it, and its agent refuses every request for it.
        case none
        /// Pairing without a passkey (an unauthenticated key), confirmed by fleetd's agent when asked.
        case justWorks
        /// The device shows (or has printed on it) a passkey, which fleetd types.
        case passkey(PasskeySource)
    }

    public var method: Method
    /// Whether RequestConfirmation (LE Secure Connections numeric comparison, which a headless gateway
    /// cannot really compare) is accepted for this device.
    public var numericComparison: Permission
    /// What a stale bond leads to: `auto` removes the bond and pairs again; `manual` marks the device
    /// needs-pairing and waits for `fleetctl pair`.
    public var rePair: RePair

    public init(method: Method = .none, numericComparison: Permission = .refuse, rePair: RePair = .manual) {
        self.method = method
        self.numericComparison = numericComparison
        self.rePair = rePair
    }

    /// Whether fleetd pairs this device at all.
    public var pairs: Bool { method != .none }

    /// Whether this device needs a keyboard-capable agent (it types a passkey).
    public var needsPasskeyEntry: Bool { if case .passkey = method { true } else { false } }
}

/// Where a device's passkey comes from.
public enum PasskeySource: Sendable, Hashable {
    /// `passkey = 123456` in the configuration.
    case value(Passkey)
    /// `passkey-file = /etc/fleetd/meter.passkey`: read when asked, refused when others may read it.
    case file(path: String)
}

/// `allow` or `refuse`.
public enum Permission: String, Sendable, Hashable, CaseIterable {
    case allow
    case refuse
}

/// The `re-pair =` key.
public enum RePair: String, Sendable, Hashable, CaseIterable {
    case auto
    case manual
}
