/// Maps each observation of a peripheral to its fleet identity, using the operator's `IdentityRule`s in the
/// order documented on `IdentityRule`, and remembers addresses so repeat adverts cost a lookup.
///
/// A value type with no I/O and no clock: `now` is the observation time as a `Duration` since the daemon's
/// monotonic epoch. Copies share the (immutable) IRK key schedules, so copying is cheap and safe.
public struct IdentityResolver: Sendable {
    public private(set) var rules: [IdentityRule]
    public let cachePolicy: CachePolicy
    public private(set) var statistics = Statistics()

    private var compiled: CompiledRules
    private var addressCache: ExpiringCache<BluetoothAddress, CachedIdentity>
    /// Addresses that matched no rule: not retried against the IRKs until they lapse or the rules change.
    private var negativeCache: ExpiringCache<BluetoothAddress, Bool>

    private struct CachedIdentity: Sendable {
        var identity: FleetIdentity
        var rule: RuleMatch
    }

    /// Validates the rules (e.g. duplicate IRK labels) and sets up one AES key schedule per IRK.
    public init(rules: [IdentityRule], cachePolicy: CachePolicy = .standard) throws(IdentityError) {
        self.rules = rules
        self.cachePolicy = cachePolicy
        self.compiled = try CompiledRules(rules)
        self.addressCache = ExpiringCache(capacity: cachePolicy.capacity)
        self.negativeCache = ExpiringCache(capacity: cachePolicy.capacity)
    }

    /// Installs new rules and forgets every cached answer, since any of them may now be wrong. On error the
    /// old rules and caches stay in place.
    public mutating func replaceRules(_ rules: [IdentityRule]) throws(IdentityError) {
        compiled = try CompiledRules(rules)
        self.rules = rules
        addressCache.removeAll()
        negativeCache.removeAll()
    }

    /// The fleet identity of the device behind `observation`, seen at `now`.
    public mutating func resolve(_ observation: Observation, now: Duration) -> Resolution {
        statistics.resolutions += 1
        let address = observation.address

        for (index, rule) in compiled.manufacturer {
            if let key = rule.key(in: observation) {
                return remember(.manufacturer(companyID: rule.companyID, key: key), rule: RuleMatch(index: index, kind: .manufacturerData), address: address, now: now)
            }
        }
        for (index, rule) in compiled.service {
            if let key = rule.key(in: observation) {
                return remember(.service(uuid: rule.uuid, key: key), rule: RuleMatch(index: index, kind: .serviceData), address: address, now: now)
            }
        }
        if let cached = addressCache.refresh(address, expires: now + cachePolicy.addressLifetime, now: now) {
            statistics.cacheHits += 1
            return Resolution(identity: cached.identity, matchedRule: cached.rule, isNewAddress: false)
        }
        // Before the IRKs although documented after them: the two never apply to the same address, and an
        // identity address should not cost a negative-cache entry.
        if address.isIdentityAddress, let rule = compiled.identityAddress {
            return remember(.address(address), rule: rule, address: address, now: now)
        }
        // Refreshing the negative entry first answers "seen before?" in the same hash lookup.
        let seen = negativeCache.set(true, for: address, expires: now + cachePolicy.negativeLifetime, now: now) != nil
        if !seen, address.kind == .resolvablePrivate, let keyring = compiled.keyring {
            statistics.keyScans += 1
            if let k = keyring.firstMatch(for: address) {
                negativeCache.remove(address)
                return remember(.resolvingKey(label: keyring.keys[k].label), rule: compiled.keyRule[k], address: address, now: now)
            }
        }
        if seen { statistics.cacheHits += 1 }
        return Resolution(identity: .address(address), matchedRule: nil, isNewAddress: !seen)
    }

    /// The configured rule a resolution names.
    public func rule(for match: RuleMatch) -> IdentityRule? {
        rules.indices.contains(match.index) ? rules[match.index] : nil
    }

    private mutating func remember(_ identity: FleetIdentity, rule: RuleMatch, address: BluetoothAddress, now: Duration) -> Resolution {
        let previous = addressCache.set(
            CachedIdentity(identity: identity, rule: rule), for: address,
            expires: now + cachePolicy.addressLifetime, now: now)
        return Resolution(identity: identity, matchedRule: rule, isNewAddress: previous?.identity != identity)
    }
}

/// Rules split by kind into the evaluation order, with indices back into the configured list.
private struct CompiledRules: Sendable {
    var manufacturer: [(Int, ManufacturerDataRule)] = []
    var service: [(Int, ServiceDataRule)] = []
    var keyring: IRKKeyring?
    /// For each key in the key ring, the index of the rule that configured it.
    var keyRule: [RuleMatch] = []
    var identityAddress: RuleMatch?

    init(_ rules: [IdentityRule]) throws(IdentityError) {
        var keys: [IdentityResolvingKey] = []
        var labels: Set<String> = []
        for (index, rule) in rules.enumerated() {
            switch rule {
            case .manufacturerData(let r): manufacturer.append((index, r))
            case .serviceData(let r): service.append((index, r))
            case .identityAddress: identityAddress = identityAddress ?? RuleMatch(index: index, kind: .identityAddress)
            case .resolvingKeys(let list):
                for key in list {
                    guard labels.insert(key.label).inserted else {
                        throw IdentityError(.duplicateLabel, "IRK label '\(key.label)' is configured twice; each device needs its own label")
                    }
                    keys.append(key)
                    keyRule.append(RuleMatch(index: index, kind: .resolvingKeys))
                }
            }
        }
        keyring = keys.isEmpty ? nil : try IRKKeyring(keys: keys)
    }
}
