import FleetPlatform
import Policy

extension BlueZError {
    /// A failed D-Bus call to bluetoothd, named by the operation and object it was for.
    init(_ error: DBusError, operation: String, path: String) {
        self.init(operation: operation, path: path, name: error.name, message: error.message, timedOut: error.code == .timeout)
    }
}
