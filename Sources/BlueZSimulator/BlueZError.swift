import FleetPlatform

/// An error reply exactly as BlueZ 5.66 sends it: the D-Bus error name and message text from
/// `src/error.c` and the `le-connection-*` reason strings from `src/error.h`.
public struct BlueZError: Error, Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name): \(message)" }

    /// The error reply the D-Bus layer sends for it.
    public var dbus: DBusError { DBusError.remote(name: name, message: message) }

    static let prefix = "org.bluez.Error."

    /// `btd_error_failed(msg, str)`.
    public static func failed(_ message: String) -> BlueZError { BlueZError(name: prefix + "Failed", message: message) }
    /// `btd_error_invalid_args`.
    public static let invalidArguments = BlueZError(name: prefix + "InvalidArguments", message: "Invalid arguments in method call")
    public static func invalidArguments(_ message: String) -> BlueZError { BlueZError(name: prefix + "InvalidArguments", message: message) }
    /// `btd_error_busy`: the name is InProgress although the function is "busy".
    public static let busy = BlueZError(name: prefix + "InProgress", message: "Operation already in progress")
    /// `btd_error_in_progress`.
    public static let inProgress = BlueZError(name: prefix + "InProgress", message: "In Progress")
    public static let notSupported = BlueZError(name: prefix + "NotSupported", message: "Operation is not supported")
    public static let notConnected = BlueZError(name: prefix + "NotConnected", message: "Not Connected")
    public static let alreadyConnected = BlueZError(name: prefix + "AlreadyConnected", message: "Already Connected")
    public static let doesNotExist = BlueZError(name: prefix + "DoesNotExist", message: "Does Not Exist")
    public static let notReady = BlueZError(name: prefix + "NotReady", message: "Resource Not Ready")
    public static let notAuthorized = BlueZError(name: prefix + "NotAuthorized", message: "Operation Not Authorized")
    public static func notPermitted(_ message: String) -> BlueZError { BlueZError(name: prefix + "NotPermitted", message: message) }
    /// An ATT error response to a read or write that create_gatt_dbus_error (src/gatt-client.c) has no name for:
    /// its default case, `g_dbus_create_error(msg, ERROR_INTERFACE ".Failed", "Operation failed with ATT error: 0x%02x")`.
    public static func attError(_ code: UInt8) -> BlueZError {
        let digits = Array("0123456789abcdef")
        return failed("Operation failed with ATT error: 0x" + String([digits[Int(code >> 4)], digits[Int(code & 0xF)]]))
    }

    // Reason strings (src/error.h) carried in org.bluez.Error.Failed.
    /// 5.66's att_connect_cb turns every LE connect-socket error into ECONNABORTED, so a full controller,
    /// a page timeout and a refused connection all read like this.
    public static let leConnectionAbortByLocal = "le-connection-abort-by-local"
    public static let leConnectionAbortByRemote = "le-connection-abort-by-remote"
    /// device_request_disconnect answers a pending Connect with the BR/EDR string even for LE.
    public static let connectionCanceled = "br-connection-canceled"
}
