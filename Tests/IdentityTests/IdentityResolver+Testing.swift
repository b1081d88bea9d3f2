import Identity

extension IdentityResolver {
    /// Resolves and returns the configured rule that matched, for tests that check which rule won.
    mutating func ruleMatching(_ observation: Observation, now: Duration) -> IdentityRule? {
        resolve(observation, now: now).matchedRule.flatMap(rule(for:))
    }
}
