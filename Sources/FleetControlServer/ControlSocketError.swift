#if canImport(Glibc)
import Glibc
#endif

/// A failure setting up or using the control socket, naming the operation, the path and the errno.
public struct ControlSocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was being done, e.g. `bind`.
    public var operation: String
    /// The socket path involved, when there is one.
    public var path: String?
    /// The C `errno`, or 0 for failures that are not system calls (e.g. an unknown group).
    public var errno: Int32
    public var detail: String?

    public init(operation: String, path: String? = nil, errno: Int32, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.detail = detail
    }

    public var description: String {
        var text = operation
        if let path { text += " \(path)" }
        if errno != 0 { text += ": " + String(cString: strerror(errno)) }
        if let detail { text += ": " + detail }
        return text
    }
}
