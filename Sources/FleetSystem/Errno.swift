#if canImport(Glibc)
import Glibc
#endif

/// A POSIX error number as a typed error, the way swift-system's `Errno` is: the raw `errno` value kept
/// whole, so a caller can match on it (`catch Errno.noSpace`) and a log line can say both what the system
/// said and which constant it was, e.g. `No space left on device (ENOSPC)`.
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now; read it straight after the failed call, before anything else can
    /// overwrite it.
    public static var current: Errno { Errno(rawValue: errno) }

    /// The C library's text for this number (`strerror_r`, the thread-safe form).
    public var text: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard strerror_r(rawValue, &buffer, buffer.count) == 0 else { return "Unknown error \(rawValue)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `Interrupted system call (EINTR)`; a number with no symbolic name here shows as `(errno 123)`.
    public var description: String { "\(text) (\(name ?? "errno \(rawValue)"))" }
}

extension Errno {
    public static let notPermitted = Errno(rawValue: EPERM)
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    public static let interrupted = Errno(rawValue: EINTR)
    public static let ioError = Errno(rawValue: EIO)
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    /// EAGAIN, which is EWOULDBLOCK on Linux.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    public static let noMemory = Errno(rawValue: ENOMEM)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let fileExists = Errno(rawValue: EEXIST)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    public static let alreadyInProgress = Errno(rawValue: EALREADY)
}
