import FleetPlatform
import Pairing
import Synchronization

/// fleetd's `org.bluez.Agent1`: exported on fleetd's bus connection, registered with BlueZ's
/// AgentManager1, and answering every request by the pure rules of `AgentDecision` for the wanted device
/// the request is about (strangers are refused). Passkeys come from the configuration or are read from the
/// device's `passkey-file` when asked.
///
/// Every decision is logged: a refusal at `warning` with the reason, an acceptance at `notice`.
///
/// The registration (capability, default or not) follows the configuration: nil registers nothing, and a
/// reload that changes it registers the agent again (BlueZ fixes an agent's capability at RegisterAgent).
public final class PairingAgent: Sendable {
    /// Where the agent object lives.
    public static let path = "/io/fleetd/agent"
    public static let interface = "org.bluez.Agent1"

    /// Finds the wanted device a Device1 object path is (nil: a stranger), with its pairing policy.
    public typealias Lookup = @Sendable (_ devicePath: String) async -> PairingCandidate?

    public let tree: DBusObjectTree
    let lookup: Lookup
    let logger: Logger
    let state = Mutex(AgentState())
    /// Called when bluetoothd releases the agent (it is exiting); the owner re-registers when BlueZ returns.
    let onRelease: @Sendable () -> Void

    struct AgentState {
        /// What the configuration asks for; nil: no agent.
        var registration: AgentRegistration?
        var exported = false
        /// The registration in force at BlueZ; nil: not registered.
        var registered: AgentRegistration?
        /// Bumped by Cancel: a decision that started before it answers Canceled.
        var generation: UInt64 = 0
    }

    /// An agent exported through `tree` (whose connection is fleetd's bus connection); `registration` nil
    /// registers nothing until a reconfiguration asks for an agent.
    public init(tree: DBusObjectTree, registration: AgentRegistration?, logger: Logger,
                onRelease: @escaping @Sendable () -> Void = {}, lookup: @escaping Lookup) {
        self.tree = tree
        self.logger = logger
        self.onRelease = onRelease
        self.lookup = lookup
        state.withLock { $0.registration = registration }
    }

    public var isRegistered: Bool { state.withLock { $0.registered != nil } }

    /// The registration the configuration asks for (nil: no agent).
    public var registration: AgentRegistration? { state.withLock { $0.registration } }

    /// Takes the registration a reloaded configuration asks for. When it differs from the one in force the
    /// agent is unregistered and, unless `registration` is nil, registered again with it. Returns whether
    /// anything changed.
    @discardableResult
    public func reconfigure(_ registration: AgentRegistration?) async throws(PairingAgentError) -> Bool {
        let previous = state.withLock { s -> AgentRegistration?? in
            guard s.registration != registration else { return .none }
            s.registration = registration
            return .some(s.registered)
        }
        guard case .some(let inForce) = previous else { return false }
        if let inForce {
            try await unregister()
            logger.info("pairing agent unregistered (was \(inForce.capability.rawValue)); the configuration changed",
                        metadata: ["agent_path": Self.path, "capability": inForce.capability.rawValue])
        }
        try await register()
        return true
    }

    /// Exports the object (once) and registers it with AgentManager1 with the planned capability, then asks
    /// to be the default agent when configured. Does nothing while the configuration asks for no agent.
    public func register() async throws(PairingAgentError) {
        guard let registration = state.withLock({ $0.registration }) else { return }
        let export = state.withLock { s -> Bool in
            defer { s.exported = true }
            return !s.exported
        }
        // Followed before anyone can call the agent: requests are answered only for org.bluez's owner.
        do throws(DBusError) { try await tree.connection.follow(name: "org.bluez") } catch { throw .register(error) }
        if export {
            do throws(DBusError) { try tree.add(path: Self.path, interfaces: [(spec, [:])]) } catch {
                state.withLock { $0.exported = false }
                throw .export(error)
            }
        }
        do throws(DBusError) {
            _ = try await manager("RegisterAgent", [.objectPath(Self.path), .string(registration.capability.rawValue)])
        } catch {
            throw .register(error)
        }
        state.withLock { $0.registered = registration }
        if registration.requestDefault {
            do throws(DBusError) { _ = try await manager("RequestDefaultAgent", [.objectPath(Self.path)]) } catch {
                throw .requestDefault(error)
            }
        }
        logger.info("pairing agent registered as \(registration.capability.rawValue)\(registration.requestDefault ? ", default agent" : "")",
                    metadata: ["agent_path": Self.path, "capability": registration.capability.rawValue])
    }

    /// UnregisterAgent (BlueZ sends no Release for it).
    public func unregister() async throws(PairingAgentError) {
        let wasRegistered = state.withLock { s -> Bool in
            defer { s.registered = nil }
            return s.registered != nil
        }
        guard wasRegistered else { return }
        do throws(DBusError) { _ = try await manager("UnregisterAgent", [.objectPath(Self.path)]) } catch {
            throw .unregister(error)
        }
    }

    private func manager(_ member: String, _ arguments: [DBusValue]) async throws(DBusError) -> [DBusValue] {
        try await tree.connection.call(destination: "org.bluez", path: "/org/bluez", interface: "org.bluez.AgentManager1",
                                       member: member, arguments: arguments).body
    }
}

/// Registering or unregistering the agent failed; carries BlueZ's (or the bus's) error.
public enum PairingAgentError: Error, Sendable, Hashable, CustomStringConvertible {
    case export(DBusError)
    case register(DBusError)
    case requestDefault(DBusError)
    case unregister(DBusError)

    public var description: String {
        switch self {
        case .export(let e): "cannot export the pairing agent at \(PairingAgent.path): \(e)"
        case .register(let e): "AgentManager1.RegisterAgent failed: \(e)"
        case .requestDefault(let e): "AgentManager1.RequestDefaultAgent failed: \(e)"
        case .unregister(let e): "AgentManager1.UnregisterAgent failed: \(e)"
        }
    }
}
