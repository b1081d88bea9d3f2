/// What one ``PolicyClass`` is allowed: its backoff, how long a connect may take, how many failures it may
/// spend, and how long a fresh link is protected from eviction.
public struct ClassConfiguration: Sendable, Hashable {
    public var backoff: BackoffConfiguration
    /// A Connect that has not completed after this long is abandoned and counts as a failed attempt.
    public var connectTimeout: Duration
    /// Failed attempts in a row after which fleetd gives up and reports it; `nil` means never give up.
    public var retryBudget: Int?
    /// A link younger than this is not evicted (hysteresis, so two devices never flap over one slot).
    public var minimumHoldTime: Duration

    public init(
        backoff: BackoffConfiguration = BackoffConfiguration(),
        connectTimeout: Duration = .seconds(30),
        retryBudget: Int? = nil,
        minimumHoldTime: Duration = .seconds(30)
    ) {
        self.backoff = backoff
        self.connectTimeout = connectTimeout
        self.retryBudget = retryBudget
        self.minimumHoldTime = minimumHoldTime
    }

    /// Checks every value; the error names the field that was wrong.
    public func validated() throws(PolicyError) -> ClassConfiguration {
        _ = try backoff.validated()
        guard connectTimeout > .zero else {
            throw PolicyError(.invalidClassConfiguration, "connectTimeout must be positive, got \(connectTimeout)")
        }
        if let retryBudget, retryBudget < 1 {
            throw PolicyError(.invalidClassConfiguration, "retryBudget must be at least 1 (or absent for forever), got \(retryBudget)")
        }
        guard minimumHoldTime >= .zero else {
            throw PolicyError(.invalidClassConfiguration, "minimumHoldTime must not be negative, got \(minimumHoldTime)")
        }
        return self
    }
}

/// The configuration of all three policy classes, looked up by class.
public struct PolicyConfiguration: Sendable, Hashable {
    public var critical: ClassConfiguration
    public var normal: ClassConfiguration
    public var opportunistic: ClassConfiguration

    /// Defaults: base 1 s, factor 2, cap 60 s, stable after 60 s, connect timeout 30 s, hold 30 s for every
    /// class; `normal` gives up after 10 failures in a row, the others never do; `critical` devices come back
    /// within 5 s of an adapter's return, the rest within 30 s.
    public init(
        critical: ClassConfiguration = ClassConfiguration(backoff: BackoffConfiguration(recoveryWindow: .seconds(5))),
        normal: ClassConfiguration = ClassConfiguration(retryBudget: 10),
        opportunistic: ClassConfiguration = ClassConfiguration()
    ) {
        self.critical = critical
        self.normal = normal
        self.opportunistic = opportunistic
    }

    public subscript(policyClass: PolicyClass) -> ClassConfiguration {
        get {
            switch policyClass {
            case .critical: critical
            case .normal: normal
            case .opportunistic: opportunistic
            }
        }
        set {
            switch policyClass {
            case .critical: critical = newValue
            case .normal: normal = newValue
            case .opportunistic: opportunistic = newValue
            }
        }
    }

    /// Checks every class; the error says which class was wrong.
    public func validated() throws(PolicyError) -> PolicyConfiguration {
        for policyClass in PolicyClass.allCases {
            do {
                _ = try self[policyClass].validated()
            } catch {
                throw PolicyError(error.code, "\(policyClass): \(error.message)")
            }
        }
        return self
    }
}
