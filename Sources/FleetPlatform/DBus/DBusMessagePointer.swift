internal import CDBus

/// Owns one reference to a libdbus `DBusMessage` and drops it in deinit. Only the D-Bus layer sees it.
final class DBusMessagePointer: @unchecked Sendable {
    let raw: OpaquePointer

    /// Takes over a reference the caller already holds.
    init(owning raw: OpaquePointer) { self.raw = raw }

    deinit { dbus_message_unref(raw) }

    static func methodCall(destination: String?, path: String, interface: String?, member: String) throws(DBusError) -> DBusMessagePointer {
        try DBusName.validate(path: path)
        if let destination { try DBusName.validate(busName: destination) }
        if let interface { try DBusName.validate(interface: interface) }
        try DBusName.validate(member: member)
        guard let raw = dbus_message_new_method_call(destination, path, interface, member) else {
            throw DBusError(.outOfMemory, "dbus_message_new_method_call failed")
        }
        return DBusMessagePointer(owning: raw)
    }

    static func signal(path: String, interface: String, member: String) throws(DBusError) -> DBusMessagePointer {
        try DBusName.validate(path: path)
        try DBusName.validate(interface: interface)
        try DBusName.validate(member: member)
        guard let raw = dbus_message_new_signal(path, interface, member) else {
            throw DBusError(.outOfMemory, "dbus_message_new_signal failed")
        }
        return DBusMessagePointer(owning: raw)
    }

    /// A method return or error answering `call`, built from the decoded call so no C pointer is kept.
    static func reply(to call: DBusMessage, errorName: String? = nil, errorMessage: String? = nil) throws(DBusError) -> DBusMessagePointer {
        let type = errorName == nil ? FLEET_DBUS_MESSAGE_TYPE_METHOD_RETURN : FLEET_DBUS_MESSAGE_TYPE_ERROR
        guard let raw = dbus_message_new(type) else { throw DBusError(.outOfMemory, "dbus_message_new failed") }
        let message = DBusMessagePointer(owning: raw)
        dbus_message_set_no_reply(raw, 1)
        guard dbus_message_set_reply_serial(raw, call.serial) != 0 else { throw DBusError(.outOfMemory, "set_reply_serial failed") }
        if let sender = call.sender, dbus_message_set_destination(raw, sender) == 0 {
            throw DBusError(.outOfMemory, "set_destination failed")
        }
        if let errorName {
            let name = DBusName.isValid(errorName: errorName) ? errorName : "org.freedesktop.DBus.Error.Failed"
            guard dbus_message_set_error_name(raw, name) != 0 else { throw DBusError(.outOfMemory, "set_error_name failed") }
            if let errorMessage { try message.append([.string(errorMessage)]) }
        }
        return message
    }

    /// Appends values to the body; a value that does not match its declared type is an error, never a trap.
    func append(_ values: [DBusValue]) throws(DBusError) {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iter)
        for value in values { try DBusMarshal.append(value, to: &iter) }
    }

    /// Decodes the whole message into a Sendable value. `raw` need only live for the call: the filter decodes
    /// the message libdbus lends it without taking a reference or a box of its own. Names and strings go through
    /// `strings` (the connection's table of what it keeps receiving).
    static func decode(_ raw: OpaquePointer, strings: DBusStringTable) throws(DBusError) -> DBusMessage {
        let kind: DBusMessage.Kind
        switch dbus_message_get_type(raw) {
        case FLEET_DBUS_MESSAGE_TYPE_METHOD_CALL: kind = .methodCall
        case FLEET_DBUS_MESSAGE_TYPE_METHOD_RETURN: kind = .methodReturn
        case FLEET_DBUS_MESSAGE_TYPE_ERROR: kind = .error
        case FLEET_DBUS_MESSAGE_TYPE_SIGNAL: kind = .signal
        default: throw DBusError(.invalidArgument, "unknown message type \(dbus_message_get_type(raw))")
        }
        func text(_ p: UnsafePointer<CChar>?) -> String? { strings.string(p) }
        var iter = DBusMessageIter()
        var body: [DBusValue] = []
        let signature = text(dbus_message_get_signature(raw)) ?? ""
        if dbus_message_iter_init(raw, &iter) != 0 {
            body = try DBusMarshal.decodeAll(&iter, strings: strings, expected: signature.utf8.count)
        }
        return DBusMessage(
            kind: kind, serial: dbus_message_get_serial(raw), replySerial: dbus_message_get_reply_serial(raw),
            path: text(dbus_message_get_path(raw)), interface: text(dbus_message_get_interface(raw)),
            member: text(dbus_message_get_member(raw)), errorName: text(dbus_message_get_error_name(raw)),
            sender: text(dbus_message_get_sender(raw)), destination: text(dbus_message_get_destination(raw)),
            signature: signature, body: body,
            noReplyExpected: dbus_message_get_no_reply(raw) != 0)
    }
}
