import FleetSystem

/// The one error type of the D-Bus layer: a code saying what kind of failure it was, the D-Bus error name
/// (the remote one, e.g. `org.bluez.Error.Failed`, or a local one for timeouts and bad replies), the message
/// (e.g. `le-connection-abort-by-local`), where known what call it happened in, and the errno when a system
/// call is what failed.
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Hashable {
        /// The peer answered with an error reply; `name` and `message` are the peer's.
        case remote
        /// No reply arrived within the call's timeout.
        case timeout
        /// The connection to the bus is closed.
        case disconnected
        /// A reply or call had a different signature from the one required.
        case unexpectedSignature
        /// A signature text is not valid.
        case invalidSignature
        /// A name or path is not valid D-Bus syntax, or a value does not match its declared type.
        case invalidArgument
        /// The bus could not be reached or refused us.
        case connectionFailed
        /// The calling task was cancelled before the reply arrived.
        case cancelled
        /// libdbus could not allocate memory.
        case outOfMemory
    }

    public var code: Code
    /// The D-Bus error name.
    public var name: String
    public var message: String
    /// Where it happened, e.g. `org.bluez.Device1.Connect on /org/bluez/hci0/dev_…`.
    public var context: String?
    /// The system call's error, when one caused this (creating the wake-up eventfd, polling).
    public var systemError: Errno?

    public init(_ code: Code, name: String? = nil, _ message: String, context: String? = nil, systemError: Errno? = nil) {
        self.code = code
        self.name = name ?? code.defaultName
        self.message = message
        self.context = context
        self.systemError = systemError
    }

    /// An error reply from a peer.
    public static func remote(name: String, message: String, context: String? = nil) -> DBusError {
        DBusError(.remote, name: name, message, context: context)
    }

    public var description: String {
        let base = message.isEmpty ? name : "\(name): \(message)"
        guard let context else { return base }
        return "\(base) (in \(context))"
    }

    func with(context: String) -> DBusError {
        var copy = self
        if copy.context == nil { copy.context = context }
        return copy
    }
}

extension DBusError.Code {
    var defaultName: String {
        switch self {
        case .remote: "org.freedesktop.DBus.Error.Failed"
        case .timeout: "org.freedesktop.DBus.Error.Timeout"
        case .disconnected: "org.freedesktop.DBus.Error.Disconnected"
        case .unexpectedSignature: "io.fleetd.DBus.Error.UnexpectedSignature"
        case .invalidSignature: "org.freedesktop.DBus.Error.InvalidSignature"
        case .invalidArgument: "org.freedesktop.DBus.Error.InvalidArgs"
        case .connectionFailed: "io.fleetd.DBus.Error.ConnectionFailed"
        case .cancelled: "io.fleetd.DBus.Error.Cancelled"
        case .outOfMemory: "org.freedesktop.DBus.Error.NoMemory"
        }
    }
}
