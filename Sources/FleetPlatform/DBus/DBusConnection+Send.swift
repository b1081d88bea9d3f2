internal import CDBus

extension DBusConnection {
    /// Sends a method call that wants no reply: the no-reply flag is set, as bluetoothd sets it on an agent's
    /// `Release`, `Cancel` and `DisplayPasskey`. The message is queued behind everything sent before it, so
    /// calls sent this way keep their order with signals and replies of the same connection.
    public func send(destination: String, path: String, interface: String, member: String,
                     arguments: [DBusValue] = []) throws(DBusError) {
        let message = try DBusMessagePointer.methodCall(destination: destination, path: path, interface: interface, member: member)
        dbus_message_set_no_reply(message.raw, 1)
        try message.append(arguments)
        enqueue(message)
    }
}
