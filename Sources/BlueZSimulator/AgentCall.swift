import FleetPlatform

/// A call bluetoothd makes to a registered `org.bluez.Agent1` (on the agent's own connection, at the path it
/// registered), as the world model asks for it. `id` is set when bluetoothd waits for the answer
/// (RequestPasskey, RequestConfirmation, …); the driver feeds the answer back with `agentReplied`.
/// Without an id the call carries the no-reply flag, as bluetoothd sends Release, Cancel and DisplayPasskey.
public struct AgentCall: Sendable, Hashable {
    public static let interface = "org.bluez.Agent1"

    public var id: UInt64?
    public var owner: String
    public var path: String
    public var member: String
    public var arguments: [DBusValue]

    public init(id: UInt64?, owner: String, path: String, member: String, arguments: [DBusValue]) {
        self.id = id
        self.owner = owner
        self.path = path
        self.member = member
        self.arguments = arguments
    }
}

/// An agent's answer to a call bluetoothd waits for: the reply body, or an error name and message
/// (org.bluez.Error.Rejected, Canceled, or the bus's NoReply when the agent never answers).
public enum AgentReply: Sendable, Hashable {
    case success([DBusValue])
    case failure(name: String, message: String)
}
