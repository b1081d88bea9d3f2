internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

extension FileDescriptor {
    /// Opens `path` with `flags` (O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC, …); O_CLOEXEC is always added.
    /// `permissions` applies when the file is created (and is still filtered by the umask).
    public static func open(_ path: String, _ flags: Int32, permissions: mode_t = 0o600) throws(Errno) -> FileDescriptor {
        FileDescriptor(owning: try valueOrErrno { Glibc.open(path, flags | O_CLOEXEC, permissions) })
    }

    /// The two ends of a new pipe, both close-on-exec.
    public static func pipe() throws(Errno) -> Pipe {
        var ends: [Int32] = [-1, -1]
        // pipe2, not pipe + fcntl: a process spawned by another thread in between would inherit both ends.
        try nothingOrErrno { pipe2(&ends, O_CLOEXEC) }
        return Pipe(readEnd: FileDescriptor(owning: ends[0]), writeEnd: FileDescriptor(owning: ends[1]))
    }

    /// A pipe's two owned ends.
    public struct Pipe: ~Copyable, Sendable {
        public var readEnd: FileDescriptor
        public var writeEnd: FileDescriptor
    }
}

/// Renames `source` over `destination` atomically (rename(2)).
public func renameFile(_ source: String, to destination: String) throws(Errno) {
    try nothingOrErrno { rename(source, destination) }
}

/// Removes a name from the file system (unlink(2)).
public func removeFile(_ path: String) throws(Errno) {
    try nothingOrErrno { unlink(path) }
}
