import FleetProtocol
import Supervision
import Synchronization

/// What `Status` reports of the supervisor's own state, published by the actor and read without entering it.
///
/// A Status call that entered the actor waited behind every batch of BlueZ's events queued there, and behind
/// the cooperative pool's queue a second time to get onto the actor (issue 18: p99 tens of milliseconds while
/// 200 links dropped). The actor publishes here instead, once at the end of each batch of events or
/// reconciliation and after every other change it makes (a timer, a reply, an operator command, start-up and
/// stopping), and Status reads the last publication. So an answer is at most one batch behind the events the
/// supervisor has taken, never half-way through a batch, and never older than a change the caller itself made
/// through the control socket (that call returns after its publication).
public final class StatusBoard: Sendable {
    /// One publication.
    public struct Entry: Sendable, Equatable {
        public var counts: FleetStateMachine.Counts
        /// Sorted by adapter id.
        public var adapters: [AdapterInfo]
        public var state: DaemonState

        public init(counts: FleetStateMachine.Counts, adapters: [AdapterInfo], state: DaemonState) {
            self.counts = counts
            self.adapters = adapters
            self.state = state
        }
    }

    private let current: Mutex<Entry>

    public init(_ entry: Entry) { current = Mutex(entry) }

    /// Replaces the publication; the actor is the one writer.
    func publish(_ entry: Entry) {
        // The old entry is released after the lock, not under it.
        let replaced = current.withLock { stored in
            defer { stored = entry }
            return stored
        }
        _ = replaced
    }

    /// The last publication.
    public var latest: Entry { current.withLock { $0 } }
}
