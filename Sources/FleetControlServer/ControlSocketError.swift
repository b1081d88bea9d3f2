import FleetSystem

/// A failure setting up or using the control socket, naming the operation, the path and what the system said.
public struct ControlSocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was being done, e.g. `bind`.
    public var operation: String
    /// The socket path involved, when there is one.
    public var path: String?
    /// The system call's error; nil for failures that are not system calls (e.g. an unknown group).
    public var errno: Errno?
    public var detail: String?

    public init(operation: String, path: String? = nil, errno: Errno? = nil, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.detail = detail
    }

    /// `bind /run/fleetd/control.sock: Address already in use (EADDRINUSE)`.
    public var description: String {
        var text = operation
        if let path { text += " \(path)" }
        if let errno { text += ": \(errno)" }
        if let detail { text += ": " + detail }
        return text
    }
}
