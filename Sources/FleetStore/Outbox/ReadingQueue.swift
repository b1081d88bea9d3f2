/// A reading waiting for its commit, with the monotonic time it was appended (the commit-delay clock starts
/// at the oldest one).
struct PendingReading: Sendable {
    var reading: Reading
    var appendedAt: Int64
}

/// A FIFO of pending readings: appends at the back, batches and overflow drops from the front, and a failed
/// batch pushed back to the front. Front removal moves an index instead of shifting the array.
struct ReadingQueue: Sendable {
    private var storage: [PendingReading] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { head == storage.count }
    var first: PendingReading? { isEmpty ? nil : storage[head] }

    mutating func append(_ element: PendingReading) { storage.append(element) }

    /// Removes and returns up to `n` readings from the front.
    mutating func popFirst(_ n: Int) -> [PendingReading] {
        let taken = Array(storage[head..<(head + min(n, count))])
        head += taken.count
        compact()
        return taken
    }

    /// Discards up to `n` readings from the front; returns how many.
    @discardableResult
    mutating func dropFirst(_ n: Int) -> Int {
        let dropped = min(n, count)
        head += dropped
        compact()
        return dropped
    }

    /// Puts `batch` (which came from the front) back in front, in order.
    mutating func pushFront(_ batch: [PendingReading]) {
        guard !batch.isEmpty else { return }
        if head >= batch.count {
            head -= batch.count
            storage.replaceSubrange(head..<(head + batch.count), with: batch)
        } else {
            storage = batch + storage[head...]
            head = 0
        }
    }

    private mutating func compact() {
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 4096 && head * 2 > storage.count {
            storage.removeSubrange(0..<head)
            head = 0
        }
    }
}
