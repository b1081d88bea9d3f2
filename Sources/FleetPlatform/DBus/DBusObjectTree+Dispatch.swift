/// How the tree answers incoming calls: the standard interfaces from its own state, custom methods by spec.
extension DBusObjectTree {
    static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let readOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"

    func handle(_ message: DBusMessage) {
        let path = message.path ?? "/"
        let member = message.member ?? ""
        switch (message.interface, member) {
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            return connection.reply(to: message, with: [.string(introspect(path: path))])
        case ("org.freedesktop.DBus.ObjectManager", "GetManagedObjects") where path == objectManagerPath:
            return connection.reply(to: message, with: [managedObjects()])
        case ("org.freedesktop.DBus.Properties", _):
            return handleProperties(message, path: path, member: member)
        default:
            break
        }
        let lookup = objects.withLock { objects -> Result<DBusMethod, DBusError> in
            guard let object = objects[path] else {
                return .failure(.remote(name: Self.unknownObject, message: "Method \"\(member)\" with signature \"\(message.signature)\" on interface \"\(message.interface ?? "")\" doesn't exist"))
            }
            let candidates = message.interface.map { [$0] } ?? object.order
            for name in candidates {
                if let method = object.interfaces[name]?.spec.methods[member] { return .success(method) }
            }
            return .failure(.remote(name: Self.unknownMethod, message: "Method \"\(member)\" with signature \"\(message.signature)\" on interface \"\(message.interface ?? "")\" doesn't exist"))
        }
        let method: DBusMethod
        switch lookup {
        case .failure(let error): return connection.reply(to: message, error: error)
        case .success(let found): method = found
        }
        if let expected = method.inSignature, message.signature != expected {
            return connection.reply(to: message, error: .remote(name: Self.invalidArgs, message: "expected arguments '\(expected)', got '\(message.signature)'"))
        }
        let call = DBusMethodCall(message: message)
        switch method.body {
        case .immediate(let body):
            do {
                connection.reply(to: message, with: try body(call))
            } catch {
                connection.reply(to: message, error: Self.dbusError(error))
            }
        case .async(let body):
            let connection = self.connection
            Task {
                do {
                    connection.reply(to: message, with: try await body(call))
                } catch {
                    connection.reply(to: message, error: Self.dbusError(error))
                }
            }
        case .deferred(let body):
            body(call)
        }
    }

    static func dbusError(_ error: any Error) -> DBusError {
        if let error = error as? DBusError { return error }
        return .remote(name: "org.freedesktop.DBus.Error.Failed", message: String(describing: error))
    }

    private func handleProperties(_ message: DBusMessage, path: String, member: String) {
        let args = message.body
        func interfaceState(_ name: String) -> Result<ExportedInterface, DBusError> {
            objects.withLock { objects in
                guard let object = objects[path] else {
                    return .failure(.remote(name: Self.unknownObject, message: "no object at \(path)"))
                }
                guard let iface = object.interfaces[name] else {
                    return .failure(.remote(name: Self.invalidArgs, message: "No such interface '\(name)'"))
                }
                return .success(iface)
            }
        }
        switch (member, message.signature) {
        case ("Get", "ss"):
            guard case .string(let name) = args[0], case .string(let property) = args[1] else { return }
            switch interfaceState(name) {
            case .failure(let error): connection.reply(to: message, error: error)
            case .success(let iface):
                if let value = iface.properties[property] {
                    connection.reply(to: message, with: [.variant(value)])
                } else {
                    connection.reply(to: message, error: .remote(name: Self.invalidArgs, message: "No such property '\(property)'"))
                }
            }
        case ("GetAll", "s"):
            guard case .string(let name) = args[0] else { return }
            switch interfaceState(name) {
            case .failure(let error): connection.reply(to: message, error: error)
            case .success(let iface): connection.reply(to: message, with: [.vardict(iface.properties)])
            }
        case ("Set", "ssv"):
            guard case .string(let name) = args[0], case .string(let property) = args[1], case .variant(let value) = args[2] else { return }
            switch interfaceState(name) {
            case .failure(let error): connection.reply(to: message, error: error)
            case .success(let iface):
                guard let current = iface.properties[property] else {
                    return connection.reply(to: message, error: .remote(name: Self.invalidArgs, message: "No such property '\(property)'"))
                }
                guard let setter = iface.spec.setters[property] else {
                    return connection.reply(to: message, error: .remote(name: Self.readOnly, message: "Property '\(property)' is not writable"))
                }
                guard current.type == value.type else {
                    return connection.reply(to: message, error: .remote(name: Self.invalidArgs, message: "Property '\(property)' is '\(current.type)', got '\(value.type)'"))
                }
                let connection = self.connection
                Task {
                    do {
                        try await setter(value)
                        connection.reply(to: message, with: [])
                    } catch {
                        connection.reply(to: message, error: Self.dbusError(error))
                    }
                }
            }
        default:
            connection.reply(to: message, error: .remote(name: Self.unknownMethod, message: "Method \"\(member)\" with signature \"\(message.signature)\" on interface \"org.freedesktop.DBus.Properties\" doesn't exist"))
        }
    }

    /// The ObjectManager view: every object under the manager path with all its interfaces and properties.
    func managedObjects() -> DBusValue {
        let snapshot = objects.withLock { objects in objects.byPath.filter { $0.key.hasPrefix(objectManagerPath) && $0.key != objectManagerPath } }
        let entries = snapshot.keys.sorted().map { path -> DBusDictEntry in
            let object = snapshot[path]!
            let ifaces = object.order.map { name in DBusDictEntry(.string(name), .vardict(object.interfaces[name]!.properties)) }
            return DBusDictEntry(.objectPath(path), .dictionary(key: .string, value: .dictionary(key: .string, value: .variant), ifaces))
        }
        return .dictionary(key: .objectPath, value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant)), entries)
    }

    /// Introspection XML: the object's interfaces (with method and property signatures) and its child nodes.
    func introspect(path: String) -> String {
        let (object, children) = objects.withLock { objects in (objects[path], objects.childNames(of: path)) }
        var xml = "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\" \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n<node>\n"
        xml += "  <interface name=\"org.freedesktop.DBus.Introspectable\"><method name=\"Introspect\"><arg name=\"xml\" type=\"s\" direction=\"out\"/></method></interface>\n"
        if path == objectManagerPath {
            xml += "  <interface name=\"org.freedesktop.DBus.ObjectManager\"><method name=\"GetManagedObjects\"><arg name=\"objects\" type=\"a{oa{sa{sv}}}\" direction=\"out\"/></method><signal name=\"InterfacesAdded\"><arg name=\"object\" type=\"o\"/><arg name=\"interfaces\" type=\"a{sa{sv}}\"/></signal><signal name=\"InterfacesRemoved\"><arg name=\"object\" type=\"o\"/><arg name=\"interfaces\" type=\"as\"/></signal></interface>\n"
        }
        if let object {
            xml += "  <interface name=\"org.freedesktop.DBus.Properties\"><method name=\"Get\"><arg name=\"interface\" type=\"s\" direction=\"in\"/><arg name=\"name\" type=\"s\" direction=\"in\"/><arg name=\"value\" type=\"v\" direction=\"out\"/></method><method name=\"Set\"><arg name=\"interface\" type=\"s\" direction=\"in\"/><arg name=\"name\" type=\"s\" direction=\"in\"/><arg name=\"value\" type=\"v\" direction=\"in\"/></method><method name=\"GetAll\"><arg name=\"interface\" type=\"s\" direction=\"in\"/><arg name=\"properties\" type=\"a{sv}\" direction=\"out\"/></method><signal name=\"PropertiesChanged\"><arg name=\"interface\" type=\"s\"/><arg name=\"changed_properties\" type=\"a{sv}\"/><arg name=\"invalidated_properties\" type=\"as\"/></signal></interface>\n"
            for name in object.order {
                guard let iface = object.interfaces[name] else { continue }
                xml += "  <interface name=\"\(name)\">"
                for (method, spec) in iface.spec.methods.sorted(by: { $0.key < $1.key }) {
                    xml += "<method name=\"\(method)\">"
                    for type in (try? DBusType.parseSignature(spec.inSignature ?? "")) ?? [] { xml += "<arg type=\"\(type)\" direction=\"in\"/>" }
                    for type in (try? DBusType.parseSignature(spec.outSignature)) ?? [] { xml += "<arg type=\"\(type)\" direction=\"out\"/>" }
                    xml += "</method>"
                }
                for (signal, signature) in iface.spec.signals.sorted(by: { $0.key < $1.key }) {
                    xml += "<signal name=\"\(signal)\">"
                    for type in (try? DBusType.parseSignature(signature)) ?? [] { xml += "<arg type=\"\(type)\"/>" }
                    xml += "</signal>"
                }
                for (property, value) in iface.properties.sorted(by: { $0.key < $1.key }) {
                    let access = iface.spec.setters[property] == nil ? "read" : "readwrite"
                    xml += "<property name=\"\(property)\" type=\"\(value.type)\" access=\"\(access)\"/>"
                }
                xml += "</interface>\n"
            }
        }
        for child in children { xml += "  <node name=\"\(child)\"/>\n" }
        return xml + "</node>\n"
    }
}
