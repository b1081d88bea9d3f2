#if canImport(Glibc)
import Glibc
#endif

/// Runs one system call that reports failure as -1 with `errno`, and the one place where EINTR is retried.
///
/// Every call in FleetSystem goes through here (swift-system's `valueOrErrno(retryOnInterrupt:)`, swift-nio's
/// `syscall`), so no caller writes its own `while … errno == EINTR` loop and no failure reaches a caller
/// as a bare -1. `errno` is read straight after the call, before anything else can overwrite it.
///
/// Pass `retryOnInterrupt: false` for calls that must not be repeated: `close` (Linux releases the
/// descriptor even when it reports EINTR, so a retry could close a number another thread has just been
/// given) and a `poll` whose caller would rather recompute its timeout.
@inlinable
public func valueOrErrno<Value: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> Value) throws(Errno) -> Value {
    while true {
        let value = call()
        if value != -1 { return value }
        let failure = Errno.current
        if retryOnInterrupt && failure == .interrupted { continue }
        throw failure
    }
}

/// `valueOrErrno` for calls whose only success value is 0 (fsync, rename, fchmod, …).
@inlinable
public func nothingOrErrno<Value: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> Value) throws(Errno) {
    _ = try valueOrErrno(retryOnInterrupt: retryOnInterrupt, call)
}
