/// One incoming method call as an exported method's handler sees it.
public struct DBusMethodCall: Sendable {
    public var message: DBusMessage
    public var path: String { message.path ?? "/" }
    public var arguments: [DBusValue] { message.body }
    /// The caller's unique bus name.
    public var sender: String { message.sender ?? "" }
}

/// How an exported method runs: inline on the I/O thread (must be quick and never block), in a task, or
/// inline with the answer given later.
public enum DBusMethodBody: Sendable {
    case immediate(@Sendable (DBusMethodCall) throws -> [DBusValue])
    case async(@Sendable (DBusMethodCall) async throws -> [DBusValue])
    /// Runs inline on the I/O thread, keeps the call, and answers it exactly once, now or later, through
    /// `DBusConnection.reply(to:with:)` / `reply(to:error:)` with `call.message`. The reply is queued the
    /// moment it is given, so it leaves in order with the signals emitted around it; an `async` body's
    /// reply waits for its task to be scheduled and can fall behind signals emitted after it.
    case deferred(@Sendable (DBusMethodCall) -> Void)
}

/// An exported method: its argument signatures (the input one is checked before the handler runs; nil
/// accepts any arguments) and its body.
/// A thrown `DBusError` becomes an error reply with its name and message; anything else becomes
/// `org.freedesktop.DBus.Error.Failed` with the error's description.
public struct DBusMethod: Sendable {
    public var inSignature: String?
    public var outSignature: String
    public var body: DBusMethodBody

    public init(in inSignature: String? = "", out outSignature: String = "", _ body: @escaping @Sendable (DBusMethodCall) async throws -> [DBusValue]) {
        self.inSignature = inSignature
        self.outSignature = outSignature
        self.body = .async(body)
    }

    public init(in inSignature: String? = "", out outSignature: String = "", immediate body: @escaping @Sendable (DBusMethodCall) throws -> [DBusValue]) {
        self.inSignature = inSignature
        self.outSignature = outSignature
        self.body = .immediate(body)
    }

    public init(in inSignature: String? = "", out outSignature: String = "", deferred body: @escaping @Sendable (DBusMethodCall) -> Void) {
        self.inSignature = inSignature
        self.outSignature = outSignature
        self.body = .deferred(body)
    }
}

/// The behaviour of one exported interface: methods, writable properties and declared signals.
/// Property values live in the `DBusObjectTree`, not here.
public struct DBusInterfaceSpec: Sendable {
    public var name: String
    public var methods: [String: DBusMethod]
    /// Setters for writable properties. A setter validates and applies the new value (usually by calling
    /// `DBusObjectTree.update`); a property without one is read-only.
    public var setters: [String: @Sendable (DBusValue) async throws -> Void]
    /// Signal names and their signatures, for introspection.
    public var signals: [String: String]

    public init(name: String, methods: [String: DBusMethod] = [:],
                setters: [String: @Sendable (DBusValue) async throws -> Void] = [:], signals: [String: String] = [:]) {
        self.name = name
        self.methods = methods
        self.setters = setters
        self.signals = signals
    }
}
