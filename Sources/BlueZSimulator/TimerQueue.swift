/// A min-heap of timers ordered by due time, then by insertion, so equal times fire in the order set.
/// Timers are never cancelled: each carries ids (an attempt or generation) and is ignored when stale.
struct TimerQueue<Event: Sendable>: Sendable {
    private var heap: [(at: Duration, seq: UInt64, event: Event)] = []
    private var seq: UInt64 = 0

    var count: Int { heap.count }
    var earliest: Duration? { heap.first?.at }

    mutating func schedule(_ event: Event, at: Duration) {
        seq &+= 1
        heap.append((at, seq, event))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(child, parent) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest timer if it is due at or before `now`.
    mutating func popDue(_ now: Duration) -> (at: Duration, event: Event)? {
        guard let first = heap.first, first.at <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count && less(left, smallest) { smallest = left }
                if right < heap.count && less(right, smallest) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return (first.at, first.event)
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        heap[a].at < heap[b].at || (heap[a].at == heap[b].at && heap[a].seq < heap[b].seq)
    }
}
