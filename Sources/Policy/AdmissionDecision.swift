/// The answer of ``SlotTable/admit(device:policyClass:now:)``: take a free slot, wait, or evict a victim first.
public enum AdmissionDecision: Sendable, Hashable {
    case takeFreeSlot(AdmissionReason)
    case wait(AdmissionReason)
    /// Disconnect `victim` (then ``SlotTable/linkDown(device:)``), and the requester may take its slot.
    case evict(victim: String, AdmissionReason)

    public var reason: AdmissionReason {
        switch self {
        case let .takeFreeSlot(reason), let .wait(reason), let .evict(_, reason): reason
        }
    }
}

/// Why an admission decision was taken: a stable code for programs (`FLEET_REASON`) and a sentence for people.
public struct AdmissionReason: Sendable, Hashable, CustomStringConvertible {
    /// The stable reason codes, as logged in `FLEET_REASON`.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case freeSlot = "free-slot"
        case alreadyLinked = "already-linked"
        case connectInFlight = "connect-in-flight"
        /// Opportunistic devices only take free slots.
        case fullOpportunisticNeverEvicts = "full-opportunistic-never-evicts"
        /// No link of a strictly lower class to evict.
        case fullNoLowerClass = "full-no-lower-class"
        /// Lower-class links exist, but all are younger than their minimum hold time.
        case fullHeldByHysteresis = "full-held-by-hysteresis"
        case evictLowerClass = "evict-lower-class"
    }

    public let code: Code
    public let message: String
    /// When asking again could give a different answer (the earliest end of a hold time), if known.
    public let retryAt: Duration?

    public init(_ code: Code, _ message: String, retryAt: Duration? = nil) {
        self.code = code
        self.message = message
        self.retryAt = retryAt
    }

    public var description: String { message }
}

/// The result of ``SlotTable/reportLimitReached(now:)``: the capacity was lowered, and why.
public struct CapacityChange: Sendable, Hashable {
    public let adapter: String
    public let oldCapacity: Int
    public let newCapacity: Int
    public let message: String
}
