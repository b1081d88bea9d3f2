import Supervision

/// The order of one adapter's BlueZ calls where it matters: a Connect starts only once every Disconnect and
/// RemoveDevice asked for earlier on the same adapter has been answered.
///
/// Each action runs in its own task, so without this a connect timeout's cancelling Disconnect could reach
/// bluetoothd after the next Connect on that adapter, and the controller would have two connects pending.
/// Cancelling calls do not wait for each other nor for connects: an eviction or a set-up failure is never
/// held up behind a Connect that may take its whole timeout.
struct AdapterCallOrder {
    private var pending: [AdapterID: [UInt64: Task<Void, Never>]] = [:]
    private var nextID: UInt64 = 0

    /// An id for a cancelling call about to start on `adapter`; pass it to `started` and, once answered, `finished`.
    mutating func reserve() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// The cancelling call `id` runs as `task`; a Connect asked for after this waits for it.
    mutating func started(_ id: UInt64, on adapter: AdapterID, task: Task<Void, Never>) {
        pending[adapter, default: [:]][id] = task
    }

    /// The cancelling call `id` was answered (or failed).
    mutating func finished(_ id: UInt64, on adapter: AdapterID) {
        pending[adapter]?.removeValue(forKey: id)
        if pending[adapter]?.isEmpty == true { pending.removeValue(forKey: adapter) }
    }

    /// What a Connect on `adapter` asked for now must wait for: the cancelling calls still unanswered.
    func barrier(on adapter: AdapterID) -> [Task<Void, Never>] {
        pending[adapter].map { $0.sorted { $0.key < $1.key }.map(\.value) } ?? []
    }
}
