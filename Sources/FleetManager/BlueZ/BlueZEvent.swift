import FleetPlatform

/// A change in bluetoothd's object tree, in the order bluetoothd sent it.
public enum BlueZEvent: Sendable {
    case interfacesAdded(path: String, interfaces: [String: [String: DBusValue]])
    case interfacesRemoved(path: String, interfaces: [String])
    case propertiesChanged(path: String, interface: String, changed: PropertyChanges, invalidated: [String])
    /// bluetoothd left the bus (stopped or crashed): every object is gone.
    case serviceLost
    /// bluetoothd (re)appeared on the bus: the tree must be read again.
    case serviceAppeared
    /// A signal whose body did not have BlueZ's documented shape.
    case malformed(String)

    /// Classifies one signal from org.bluez.
    static func from(_ message: DBusMessage) -> BlueZEvent? {
        switch (message.interface, message.member) {
        case (BlueZName.objectManager, "InterfacesAdded"):
            guard message.signature == "oa{sa{sv}}", case .objectPath(let path) = message.body[0],
                  let ifaces = message.body[1].stringKeyed else {
                return .malformed("InterfacesAdded with signature '\(message.signature)'")
            }
            var interfaces: [String: [String: DBusValue]] = [:]
            for (name, props) in ifaces { interfaces[name] = props.stringKeyed ?? [:] }
            return .interfacesAdded(path: path, interfaces: interfaces)
        case (BlueZName.objectManager, "InterfacesRemoved"):
            guard message.signature == "oas", case .objectPath(let path) = message.body[0], let names = message.body[1].stringArray else {
                return .malformed("InterfacesRemoved with signature '\(message.signature)'")
            }
            return .interfacesRemoved(path: path, interfaces: names)
        case (BlueZName.properties, "PropertiesChanged"):
            guard message.signature == "sa{sv}as", case .string(let iface) = message.body[0],
                  let changed = PropertyChanges(message.body[1]), let invalidated = message.body[2].stringArray, let path = message.path else {
                return .malformed("PropertiesChanged with signature '\(message.signature)' on \(message.path ?? "?")")
            }
            return .propertiesChanged(path: path, interface: iface, changed: changed, invalidated: invalidated)
        case ("org.freedesktop.DBus", "NameOwnerChanged") where message.sender == "org.freedesktop.DBus":
            guard message.body.count == 3, case .string(let newOwner) = message.body[2] else {
                return .malformed("NameOwnerChanged with signature '\(message.signature)'")
            }
            return newOwner.isEmpty ? .serviceLost : .serviceAppeared
        default:
            return nil
        }
    }
}

/// One event of the stream `BlueZClient.events()` returns, with its message's arrival number on the connection.
public struct BlueZSignal: Sendable {
    public var event: BlueZEvent
    public var arrival: UInt64

    public init(event: BlueZEvent, arrival: UInt64) {
        self.event = event
        self.arrival = arrival
    }
}

/// bluetoothd's events in arrival order, one batch per read turn, and how far the connection has delivered into them.
public struct BlueZEvents: Sendable {
    let signals: SignalBatches<BlueZSignal>

    init(batches: SignalBatches<BlueZSignal>) {
        signals = batches
    }

    public var batches: AsyncStream<[BlueZSignal]> { signals.batches }

    /// The arrival of the last event delivered to `batches`. Read after a reply resumed its caller, it bounds
    /// every signal bluetoothd sent before that reply: once the reader has taken the event with this arrival,
    /// the reply may be acted on without overtaking them.
    public var lastDelivered: UInt64 { signals.lastDelivered }
}
