import FleetPlatform

/// A failed BlueZ operation: which operation on which object, and BlueZ's error name and message
/// (e.g. `org.bluez.Error.Failed` / `le-connection-abort-by-local`), or the local cause (timeout, bad reply).
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

    init(_ error: DBusError, operation: String, path: String) {
        self.init(operation: operation, path: path, name: error.name, message: error.message, timedOut: error.code == .timeout)
    }

    public var description: String {
        "\(operation) on \(path) failed: \(name)\(message.isEmpty ? "" : ": \(message)")"
    }
}
