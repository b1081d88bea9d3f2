/// A binary min-heap of timed events for ``PolicySimulation``; ties keep insertion order, so a run is
/// reproducible.
struct EventQueue<Event> {
    private struct Entry {
        let time: Duration
        let sequence: Int
        let event: Event

        func precedes(_ other: Entry) -> Bool {
            time != other.time ? time < other.time : sequence < other.sequence
        }
    }

    private var heap: [Entry] = []
    private var nextSequence = 0

    var isEmpty: Bool { heap.isEmpty }

    mutating func push(_ event: Event, at time: Duration) {
        heap.append(Entry(time: time, sequence: nextSequence, event: event))
        nextSequence += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (time: Duration, event: Event)? {
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
                if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
                guard smallest != parent else { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return (first.time, first.event)
    }
}
