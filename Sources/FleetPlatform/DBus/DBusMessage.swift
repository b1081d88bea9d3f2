/// A decoded D-Bus message: a call, a reply, an error or a signal, with its body as Swift values.
public struct DBusMessage: Sendable {
    /// Which of the four D-Bus message types this is.
    public enum Kind: Sendable, Hashable {
        case methodCall, methodReturn, error, signal
    }

    public var kind: Kind
    public var serial: UInt32
    public var replySerial: UInt32
    public var path: String?
    public var interface: String?
    public var member: String?
    public var errorName: String?
    public var sender: String?
    public var destination: String?
    /// The body's signature as sent on the wire.
    public var signature: String
    public var body: [DBusValue]
    /// Set on calls whose sender wants no reply.
    public var noReplyExpected: Bool
    /// Where the connection received it among every message it received (1, 2, …; 0 for a message built here).
    /// D-Bus delivers a peer's messages in the order it sent them, so a signal bluetoothd sent before answering
    /// a call arrived before that answer, whatever order the tasks that read them run in.
    public var arrival: UInt64 = 0

    public init(kind: Kind, serial: UInt32 = 0, replySerial: UInt32 = 0, path: String? = nil, interface: String? = nil,
                member: String? = nil, errorName: String? = nil, sender: String? = nil, destination: String? = nil,
                signature: String = "", body: [DBusValue] = [], noReplyExpected: Bool = false) {
        self.kind = kind
        self.serial = serial
        self.replySerial = replySerial
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.sender = sender
        self.destination = destination
        self.signature = signature
        self.body = body
        self.noReplyExpected = noReplyExpected
    }

    /// The body after checking its signature; a mismatch is an `unexpectedSignature` error naming the call.
    public func body(signature expected: String) throws(DBusError) -> [DBusValue] {
        let context = "\(interface ?? "?").\(member ?? "?") on \(path ?? "?")"
        guard signature == expected else {
            throw DBusError(.unexpectedSignature, "\(context): expected signature '\(expected)', got '\(signature)'")
        }
        return body
    }
}
