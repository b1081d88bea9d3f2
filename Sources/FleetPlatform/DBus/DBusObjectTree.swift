import Synchronization

/// Objects exported on a connection: their interfaces, properties and methods, with the standard
/// `org.freedesktop.DBus.Properties` (Get, GetAll, Set, PropertiesChanged), `ObjectManager`
/// (GetManagedObjects, InterfacesAdded, InterfacesRemoved) at the manager path, and `Introspectable` (`Peer` never
/// reaches the tree: libdbus's dispatch answers it on every path before any filter).
///
/// Property reads and GetManagedObjects are answered on the I/O thread from the tree's own copy; custom
/// methods run as the method says (inline or in a task). All mutators are thread-safe.
public final class DBusObjectTree: Sendable {
    public let connection: DBusConnection
    public let objectManagerPath: String
    let objects = Mutex(ExportedObjects())

    public init(connection: DBusConnection, objectManagerPath: String = "/") {
        self.connection = connection
        self.objectManagerPath = objectManagerPath
        connection.setMethodCallHandler { [weak self, weak connection] message in
            guard let self else {
                // The tree is gone: callers still get an answer rather than a timeout.
                connection?.reply(to: message, error: .remote(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no objects are exported"))
                return
            }
            self.handle(message)
        }
    }

    // MARK: Mutation

    /// Adds interfaces (with their initial properties) to the object at `path`, creating it if needed,
    /// and emits InterfacesAdded.
    public func add(path: String, interfaces: [(DBusInterfaceSpec, [String: DBusValue])]) throws(DBusError) {
        try DBusName.validate(path: path)
        for (spec, _) in interfaces { try DBusName.validate(interface: spec.name) }
        objects.withLock { objects in
            var object = objects[path] ?? ExportedObject()
            for (spec, properties) in interfaces {
                if object.interfaces[spec.name] == nil { object.order.append(spec.name) }
                object.interfaces[spec.name] = ExportedInterface(spec: spec, properties: properties)
            }
            objects[path] = object
        }
        let payload = DBusValue.dictionary(key: .string, value: .dictionary(key: .string, value: .variant),
                                           interfaces.map { DBusDictEntry(.string($0.0.name), .vardict($0.1)) })
        try connection.emitSignal(path: objectManagerPath, interface: "org.freedesktop.DBus.ObjectManager",
                                  member: "InterfacesAdded", arguments: [.objectPath(path), payload])
    }

    /// Removes the object at `path` and, first, every object below it, emitting InterfacesRemoved for each.
    public func remove(path: String) {
        let removed = objects.withLock { objects -> [(String, [String])] in
            objects.removeSubtree(path).map { ($0.path, $0.object.order) }
        }
        for (objectPath, names) in removed {
            try? connection.emitSignal(path: objectManagerPath, interface: "org.freedesktop.DBus.ObjectManager",
                                       member: "InterfacesRemoved", arguments: [.objectPath(objectPath), .strings(names)])
        }
    }

    /// Changes properties and emits one PropertiesChanged with those that really changed (none when
    /// `signal` is false). Returns whether anything changed.
    @discardableResult
    public func update(path: String, interface: String, _ changes: [String: DBusValue], invalidated: [String] = [],
                       emitUnchanged: Bool = false, signal: Bool = true) -> Bool {
        let changed = objects.withLock { objects -> [String: DBusValue]? in
            guard var object = objects[path], var iface = object.interfaces[interface] else { return nil }
            var changed: [String: DBusValue] = [:]
            for (name, value) in changes where emitUnchanged || iface.properties[name] != value {
                iface.properties[name] = value
                changed[name] = value
            }
            for name in invalidated { iface.properties.removeValue(forKey: name) }
            object.interfaces[interface] = iface
            objects[path] = object
            return changed
        }
        guard let changed, !changed.isEmpty || !invalidated.isEmpty else { return false }
        guard signal else { return true }
        try? connection.emitSignal(path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                   arguments: [.string(interface), .vardict(changed), .strings(invalidated)])
        return true
    }

    /// Emits a signal of one of the exported interfaces.
    public func emit(path: String, interface: String, member: String, _ arguments: [DBusValue]) throws(DBusError) {
        try connection.emitSignal(path: path, interface: interface, member: member, arguments: arguments)
    }

    // MARK: Reading

    public func property(path: String, interface: String, name: String) -> DBusValue? {
        objects.withLock { $0[path]?.interfaces[interface]?.properties[name] }
    }

    public func properties(path: String, interface: String) -> [String: DBusValue]? {
        objects.withLock { $0[path]?.interfaces[interface]?.properties }
    }

    public func contains(path: String) -> Bool { objects.withLock { $0[path] != nil } }

    public func paths(under prefix: String) -> [String] {
        objects.withLock { $0.keys.filter { $0.hasPrefix(prefix) }.sorted() }
    }

    public var objectCount: Int { objects.withLock { $0.count } }
}

/// One exported object: its interfaces in the order they were added.
struct ExportedObject {
    var interfaces: [String: ExportedInterface] = [:]
    var order: [String] = []
}

/// One exported interface's behaviour and current property values.
struct ExportedInterface {
    var spec: DBusInterfaceSpec
    var properties: [String: DBusValue]
}
