#if canImport(Glibc)
import Glibc
#endif

/// Starts an OS thread that runs one body and is never joined: the home of a poll loop (the D-Bus connection,
/// the control socket, the broker link) that owners stop by waking it and waiting on their own signal.
///
/// Over pthreads rather than Foundation's `Thread`, so that fleetd links FoundationEssentials alone and not
/// full Foundation with its ICU data (about 8 MiB of fleetd's RSS, issue 18).
public enum DetachedThread {
    /// Runs `body` on a new detached thread named `name` (at most 15 bytes show in `ps -L`); `stackSize` in
    /// bytes, or the process default (RLIMIT_STACK, usually 8 MiB) when nil. A thread that cannot be created
    /// stops the process: the caller's loop would never run, and it has no way to go on without it.
    public static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        _ = NamedThread.create(name: name, detached: true, stackSize: stackSize, body)
    }
}

/// An OS thread that runs one body to completion and is joined by its owner: the home of a connection that must
/// never be entered from Swift concurrency's few cooperative threads, because its calls block on disk I/O (the
/// state store's and the outbox's SQLite connections).
public final class JoinableThread: @unchecked Sendable {
    // @unchecked: `thread` is written once in init; `joined` is read and written only by the owner, in join.
    private let thread: pthread_t
    private var joined = false

    /// Starts `body` on a new thread named `name` (at most 15 bytes show in `ps -L`).
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        thread = NamedThread.create(name: name, detached: false, stackSize: nil, body)
    }

    /// Waits for the body to return. Only the owner calls it; a second call returns at once.
    public func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}

/// What both kinds of thread share: a named pthread running a Swift closure.
private enum NamedThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    static func create(name: String, detached: Bool, stackSize: Int?, _ body: @escaping @Sendable () -> Void) -> pthread_t {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        if let stackSize {
            let rc = pthread_attr_setstacksize(&attributes, stackSize)
            precondition(rc == 0, "pthread_attr_setstacksize(\(stackSize)) failed: \(Errno(rawValue: rc))")
        }
        let box = Unmanaged.passRetained(Body {
            nameCurrentThread(name)
            body()
        }).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attributes, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, box)
        precondition(rc == 0, "cannot start thread \(name): \(Errno(rawValue: rc))")
        return thread
    }

    /// Names the calling thread for `ps -L` and `top -H`. Glibc's pthread_setname_np is not imported without
    /// _GNU_SOURCE, and prctl is variadic, so this writes /proc/thread-self/comm; a name that cannot be set
    /// costs only the label in `ps`.
    private static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
