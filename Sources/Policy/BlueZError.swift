/// A BlueZ operation that failed: which operation on which object, and BlueZ's error name and message
/// (e.g. `org.bluez.Error.Failed` / `le-connection-abort-by-local`), or the local cause (timeout, bad reply).
/// A plain value, so that the BlueZ client produces it and the state machine decides on it without either
/// knowing the other.
public struct BlueZError: Error, Sendable, Hashable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var name: String
    public var message: String
    /// True when no answer came within the operation's bounded time.
    public var timedOut: Bool

    public init(operation: String, path: String, name: String, message: String, timedOut: Bool = false) {
        self.operation = operation
        self.path = path
        self.name = name
        self.message = message
        self.timedOut = timedOut
    }

    /// The failure as Policy classifies it: a timeout is fleetd's own observation, anything else BlueZ's reply.
    public var connectFailure: ConnectFailure {
        timedOut ? .local(.connectTimedOut) : .dbus(name: name, message: message)
    }

    public var description: String {
        "\(operation) on \(path) failed: \(name)\(message.isEmpty ? "" : ": \(message)")"
    }
}
