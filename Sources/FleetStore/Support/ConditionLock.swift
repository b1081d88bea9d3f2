#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex with a condition variable on CLOCK_MONOTONIC: the one lock of the outbox's shared state,
/// which its writer thread waits on for "work arrived or a deadline passed". (Synchronization's Mutex has no
/// condition to wait on.)
final class ConditionLock: @unchecked Sendable {
    // @unchecked: the pthread objects are the synchronisation; they live at fixed heap addresses.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits (lock held) until signalled or until the monotonic time `deadline` (nanoseconds), if any.
    func wait(until deadline: Int64?) {
        guard let deadline else {
            pthread_cond_wait(condition, mutex)
            return
        }
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        pthread_cond_timedwait(condition, mutex, &time)
    }

    func broadcast() { pthread_cond_broadcast(condition) }
}
