#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor that this value owns: it is closed exactly once, by `close()` or else when the
/// value goes away. Non-copyable, so two owners of one descriptor cannot exist and a closed number can
/// never be used or closed again (after a close the kernel may hand that number to another thread's
/// `open`, and a second close would shut that stranger's file).
///
/// Descriptors FleetSystem opens carry O_CLOEXEC, so a child process started from any thread never
/// inherits them. A descriptor owned elsewhere (stderr, a library's socket) is reached through
/// `FileDescriptor.borrowing(_:_:)`, which never closes it.
public struct FileDescriptor: ~Copyable, Sendable {
    /// The kernel's number for the descriptor, for calls (poll, libdbus) that take the number itself.
    public let rawValue: Int32

    /// Takes ownership of an open descriptor: this value will close it.
    public init(owning rawValue: Int32) {
        precondition(rawValue >= 0, "FileDescriptor(owning: \(rawValue)): not a descriptor")
        self.rawValue = rawValue
    }

    /// Closes the descriptor and reports close's own error, which matters for a file that was written
    /// (NFS and some disks report a failed write-back only here). Never retried on EINTR: Linux has
    /// released the number by then.
    public consuming func close() throws(Errno) {
        let number = rawValue
        discard self
        try nothingOrErrno(retryOnInterrupt: false) { Glibc.close(number) }
    }

    /// Gives up ownership without closing, for handing the descriptor to code that will close it.
    public consuming func releaseRawValue() -> Int32 {
        let number = rawValue
        discard self
        return number
    }

    deinit {
        // An owner that cares about close's error (a written file) has called close() already. What is
        // left here is a read end or a wake-up counter, for which close can fail only with EBADF, and EBADF
        // means someone else closed a descriptor this value owns: a bug that must not pass silently.
        if Glibc.close(rawValue) == -1, errno == EBADF {
            preconditionFailure("FileDescriptor \(rawValue) was closed behind its owner's back")
        }
    }

    /// Lends a descriptor owned elsewhere (stderr, libdbus's socket) as a `FileDescriptor` for the length
    /// of `body`, without ever closing it.
    public static func borrowing<Result, Failure: Error>(
        _ rawValue: Int32, _ body: (borrowing FileDescriptor) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let lent = FileDescriptor(owning: rawValue)
        let outcome: Swift.Result<Result, Failure>
        do throws(Failure) { outcome = .success(try body(lent)) } catch { outcome = .failure(error) }
        _ = lent.releaseRawValue()
        return try outcome.get()
    }
}
