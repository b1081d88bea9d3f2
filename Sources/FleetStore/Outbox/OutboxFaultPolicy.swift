/// Which failed commits retrying cannot cure (issue 41, point 5). Before, every failure was retried for ever while
/// fleetd looked healthy: once memory held `memoryLimit` readings, every new one was discarded.
///
/// - `corrupt`: at once. A damaged page stays damaged; the cure is the start-up check, which moves the file aside.
/// - `io`, `unavailable` (a file system remounted read-only, permissions changed), `constraint`, `misuse`, `other`:
///   after failing without a success for `incurableAfter`. A short burst of I/O errors (a USB disk's reset) passes.
/// - `full`, `busy`: never. Space comes back (and retention makes room: docs/state-store.md); a lock is let go.
///   Memory holds the readings meanwhile, up to its bound, counted beyond it.
public enum OutboxFaultPolicy {
    public static func isIncurable(_ kind: SQLiteError.Kind, failingFor: Duration, incurableAfter: Duration) -> Bool {
        switch kind {
        case .corrupt: true
        case .full, .busy: false
        case .io, .unavailable, .constraint, .misuse, .other: failingFor >= incurableAfter
        }
    }
}
