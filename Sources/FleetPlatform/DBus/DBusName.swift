internal import CDBus

/// Validation of D-Bus names and paths before they reach libdbus, whose own checks abort the process.
enum DBusName {
    private static func check(_ what: String, _ text: String, _ validator: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t) throws(DBusError) {
        let ok = text.withCString { validator($0, nil) != 0 }
        guard ok, !text.utf8.contains(0) else { throw DBusError(.invalidArgument, "invalid D-Bus \(what) '\(text)'") }
    }

    static func validate(path: String) throws(DBusError) { try check("object path", path, dbus_validate_path) }
    static func validate(interface: String) throws(DBusError) { try check("interface name", interface, dbus_validate_interface) }
    static func validate(member: String) throws(DBusError) { try check("member name", member, dbus_validate_member) }
    static func validate(busName: String) throws(DBusError) { try check("bus name", busName, dbus_validate_bus_name) }
    static func isValid(errorName: String) -> Bool {
        errorName.withCString { dbus_validate_error_name($0, nil) != 0 }
    }
    static func isValid(path: String) -> Bool { (try? validate(path: path)) != nil }
    static func validate(utf8 text: String) throws(DBusError) {
        guard !text.utf8.contains(0) else { throw DBusError(.invalidArgument, "string contains a NUL byte") }
    }
}

/// Public checks for callers that build paths from outside data (e.g. a device address).
public enum DBusSyntax {
    /// Whether `path` is a valid D-Bus object path.
    public static func isValidObjectPath(_ path: String) -> Bool { DBusName.isValid(path: path) }
}
