#if canImport(Glibc)
import Glibc
#endif

/// An OS thread that runs one body to completion and can be joined: the home of a connection that must never
/// be entered from Swift concurrency's few cooperative threads, because its calls block on disk I/O.
final class DedicatedThread: @unchecked Sendable {
    // @unchecked: `thread` is written once in init and read only by join, on the owner's thread.
    private var thread = pthread_t()
    private var joined = false

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread named `name` (at most 15 bytes show in `ps -L`).
    init(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body {
            DedicatedThread.nameCurrentThread(name)
            body()
        }).toOpaque()
        let rc = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    /// Names the calling thread for `ps -L` and `top -H` (at most 15 bytes). Glibc's pthread_setname_np is not
    /// imported without _GNU_SOURCE, and prctl is variadic, so this writes /proc/thread-self/comm.
    private static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Waits for the body to return. Only the owner calls it, once.
    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}
