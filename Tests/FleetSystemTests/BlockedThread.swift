import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A thread of its own (pthread, so a signal can be aimed at it) running one blocking call, and a way to
/// see from outside which system call it is blocked in (`/proc/thread-self/…/syscall`), so a test can
/// send its signal while the call is certainly in progress instead of guessing with a sleep.
final class BlockedThread: Sendable {
    private let thread: pthread_t
    /// `<pid>/task/<tid>` of the thread, once it has started.
    private let taskPath = Mutex<String?>(nil)
    private let finished = Atomic<Bool>(false)

    init(unblocking signal: Int32, _ body: @escaping @Sendable () -> Void) {
        let start = ThreadStart()
        var thread = pthread_t()
        let box = Unmanaged.passRetained(start).toOpaque()
        let created = pthread_create(&thread, nil, { raw in
            let start = Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue()
            start.run()
            return nil
        }, box)
        precondition(created == 0, "pthread_create failed: \(created)")
        self.thread = thread
        start.body.withLock { $0 = { [self] in
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, signal)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            var link = [UInt8](repeating: 0, count: 128)
            let length = link.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { readlink("/proc/thread-self", $0.baseAddress!, $0.count) }
            }
            taskPath.withLock { $0 = length > 0 ? String(decoding: link[..<length], as: UTF8.self) : nil }
            body()
            finished.store(true, ordering: .releasing)
        } }
        start.ready.store(true, ordering: .releasing)
    }

    var isFinished: Bool { finished.load(ordering: .acquiring) }

    /// The number of the system call the thread is blocked in, or nil while it runs or has not started.
    var blockedSyscall: Int? {
        guard let path = taskPath.withLock({ $0 }) else { return nil }
        let fd = open("/proc/\(path)/syscall", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let first = String(decoding: buffer[..<count], as: UTF8.self).split(separator: " ").first ?? ""
        return Int(first)
    }

    func send(_ signal: Int32) { pthread_kill(thread, signal) }

    func join() { pthread_join(thread, nil) }

    /// Waits (up to 10 s) until `condition` holds; false on timeout.
    static func waitUntil(_ condition: () -> Bool) -> Bool {
        var remaining = 10_000
        while !condition() {
            guard remaining > 0 else { return false }
            usleep(1000)
            remaining -= 1
        }
        return true
    }
}

/// Hands the body to the new thread once the creator has finished building it.
private final class ThreadStart: Sendable {
    let body = Mutex<(@Sendable () -> Void)?>(nil)
    let ready = Atomic<Bool>(false)

    func run() {
        while !ready.load(ordering: .acquiring) { sched_yield() }
        body.withLock { $0 }?()
    }
}

/// System call numbers as /proc reports them.
enum SyscallNumber {
    #if arch(x86_64)
    static let read = 0
    static let polls: Set<Int> = [7, 271] // poll, ppoll
    #elseif arch(arm64)
    static let read = 63
    static let polls: Set<Int> = [73] // ppoll
    #endif
}
