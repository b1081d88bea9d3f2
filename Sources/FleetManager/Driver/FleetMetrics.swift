import Synchronization

/// Counters the driver keeps for Prometheus: connect attempts and failures by error class, evictions by
/// reason, reconnect latency.
public final class FleetMetrics: Sendable {
    struct State {
        var attempts: [String: UInt64] = [:]
        var failures: [String: UInt64] = [:]
        var evictions: [String: UInt64] = [:]
        var latencyBuckets: [Double: UInt64] = [:]
        var latencySum: Double = 0
        var latencyCount: UInt64 = 0
        var stateWriteFailures: UInt64 = 0
        var stateWriteFailing = false
        /// RACP syncs by how they ended (docs/records.md), records they received, sequence resets they found.
        var recordSyncs: [String: UInt64] = [:]
        var recordsReceived: UInt64 = 0
        var sequenceResets: UInt64 = 0
    }

    static let buckets: [Double] = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]
    let state = Mutex(State())
    /// BlueZ signals the supervisor has handled (adverts, property and object changes, notifications): the
    /// denominator of fleetd's CPU per event. An atomic, not the mutex: it is bumped once per delivered batch.
    let bluezEvents = Atomic<UInt64>(0)

    public init() {}

    func handled(bluezEvents count: Int) { bluezEvents.add(UInt64(count), ordering: .relaxed) }
    func attempt(_ policyClass: String) { state.withLock { $0.attempts[policyClass, default: 0] += 1 } }
    func failure(_ errorClass: String) { state.withLock { $0.failures[errorClass, default: 0] += 1 } }
    func eviction(_ reason: String) { state.withLock { $0.evictions[reason, default: 0] += 1 } }
    func stateWriteFailed() {
        state.withLock {
            $0.stateWriteFailures += 1
            $0.stateWriteFailing = true
        }
    }
    var stateWriteFailing: Bool {
        get { state.withLock { $0.stateWriteFailing } }
        set { state.withLock { $0.stateWriteFailing = newValue } }
    }
    func recordSync(result: String, received: Int, sequenceReset: Bool) {
        state.withLock {
            $0.recordSyncs[result, default: 0] += 1
            $0.recordsReceived += UInt64(received)
            if sequenceReset { $0.sequenceResets += 1 }
        }
    }
    func reconnected(after seconds: Double) {
        state.withLock { state in
            for bucket in Self.buckets where seconds <= bucket { state.latencyBuckets[bucket, default: 0] += 1 }
            state.latencySum += seconds
            state.latencyCount += 1
        }
    }
}
