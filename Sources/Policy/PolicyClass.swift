/// How much a device matters when slots are scarce and how hard fleetd tries to keep it linked.
///
/// - `critical`: medical devices. Reconnect forever; never evicted to admit a device of a lower or equal class.
/// - `normal`: reconnect with backoff; give up after a configurable retry budget and report it.
/// - `opportunistic`: connect only into a free slot; the first to be evicted; never evicts anyone.
///
/// The order (`opportunistic < normal < critical`) is the eviction order: the lowest class goes first.
public enum PolicyClass: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    case opportunistic
    case normal
    case critical

    public var description: String { rawValue }

    private var rank: Int {
        switch self {
        case .opportunistic: 0
        case .normal: 1
        case .critical: 2
        }
    }

    public static func < (lhs: PolicyClass, rhs: PolicyClass) -> Bool {
        lhs.rank < rhs.rank
    }

    /// Whether a device of this class may evict a link of class `victim`.
    /// Only a strictly higher class evicts, so two devices of one class never push each other out (no flapping),
    /// and an opportunistic device, being the lowest, never evicts anyone.
    public func mayEvict(_ victim: PolicyClass) -> Bool {
        self > victim
    }
}
