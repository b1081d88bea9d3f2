#if canImport(Glibc)
import Glibc
#endif

extension FileDescriptor {
    /// Reads at most `buffer.count` bytes; 0 means end of file. EINTR is retried unless asked not to.
    public func read(into buffer: UnsafeMutableRawBufferPointer, retryOnInterrupt: Bool = true) throws(Errno) -> Int {
        try valueOrErrno(retryOnInterrupt: retryOnInterrupt) { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Writes at most `buffer.count` bytes and returns how many the kernel took.
    public func write(_ buffer: UnsafeRawBufferPointer, retryOnInterrupt: Bool = true) throws(Errno) -> Int {
        try valueOrErrno(retryOnInterrupt: retryOnInterrupt) { Glibc.write(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Writes every byte, continuing after short writes; meant for blocking descriptors (a non-blocking
    /// one that fills up throws `.wouldBlock` with part of the data written).
    public func writeAll(_ buffer: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < buffer.count {
            offset += try write(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
        }
    }

    /// `writeAll` for anything that is a run of bytes (`[UInt8]`, `Data`, a string's UTF-8).
    public func writeAll(_ bytes: some Sequence<UInt8>) throws(Errno) {
        let array = Array(bytes)
        // Array.withUnsafeBytes rethrows untyped errors, so the Errno travels out in a Result.
        try array.withUnsafeBytes { raw in Result { () throws(Errno) in try writeAll(raw) } }.get()
    }

    /// Flushes the file's data and metadata to the device (fsync).
    public func sync() throws(Errno) {
        try nothingOrErrno { fsync(rawValue) }
    }

    /// Sets the permission bits whatever the process umask is (fchmod).
    public func setPermissions(_ mode: mode_t) throws(Errno) {
        try nothingOrErrno { fchmod(rawValue, mode) }
    }

    /// A second descriptor for the same open file, close-on-exec, owned by the caller.
    public func duplicate() throws(Errno) -> FileDescriptor {
        FileDescriptor(owning: try valueOrErrno { fcntl(rawValue, F_DUPFD_CLOEXEC, 0) })
    }

    /// Whether reads and writes return `.wouldBlock` instead of waiting.
    public func setNonBlocking(_ on: Bool) throws(Errno) {
        let flags = try valueOrErrno { fcntl(rawValue, F_GETFL) }
        try nothingOrErrno { fcntl(rawValue, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) }
    }
}
