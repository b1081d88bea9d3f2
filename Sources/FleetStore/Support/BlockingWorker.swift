import FleetSystem

/// One thread that runs blocking jobs (disk reads) in order for async callers, so that they never occupy
/// Swift concurrency's cooperative threads (two on a small gateway) while SQLite waits for the disk.
final class BlockingWorker: @unchecked Sendable {
    // @unchecked: `jobs` and `stopping` are touched only with `lock` held.
    private let lock = ConditionLock()
    private var jobs: [@Sendable () -> Void] = []
    private var stopping = false
    private var thread: JoinableThread?

    init(name: String) {
        thread = JoinableThread(name: name) { [self] in loop() }
    }

    private func loop() {
        while true {
            lock.lock()
            while jobs.isEmpty && !stopping { lock.wait(until: nil) }
            if jobs.isEmpty {
                lock.unlock()
                return
            }
            let job = jobs.removeFirst()
            lock.unlock()
            job()
        }
    }

    /// Runs `body` on the worker thread and returns its result; nil once the worker has stopped.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let accepted = lock.withLock { () -> Bool in
                guard !stopping else { return false }
                jobs.append { continuation.resume(returning: body()) }
                lock.broadcast()
                return true
            }
            if !accepted { continuation.resume(returning: nil) }
        }
    }

    /// Finishes the queued jobs and stops the thread.
    func stop() {
        lock.withLock {
            stopping = true
            lock.broadcast()
        }
        thread?.join()
    }
}
