/// The resolver's answer for one observation.
public struct Resolution: Hashable, Sendable {
    public var identity: FleetIdentity
    /// The rule that matched, or nil when none did and the device is keyed by the address it used.
    /// `IdentityResolver.rule(for:)` gives the rule itself.
    public var matchedRule: RuleMatch?
    /// True when this address had not been seen for this identity within the cache lifetime: the device
    /// has moved to a new address (or is new), so the supervisor may have a twin to drop.
    public var isNewAddress: Bool

    public init(identity: FleetIdentity, matchedRule: RuleMatch?, isNewAddress: Bool) {
        self.identity = identity
        self.matchedRule = matchedRule
        self.isNewAddress = isNewAddress
    }
}

/// Which configured rule matched: its position in `IdentityResolver.rules` and its kind. A plain value
/// rather than the rule itself, because a resolution is made per advert and a rule can hold 1 000 keys.
public struct RuleMatch: Hashable, Sendable, Codable {
    public var index: Int
    public var kind: IdentityRule.Kind

    public init(index: Int, kind: IdentityRule.Kind) {
        self.index = index
        self.kind = kind
    }
}
