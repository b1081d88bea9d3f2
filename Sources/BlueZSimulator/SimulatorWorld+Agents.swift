import FleetPlatform

/// org.bluez.AgentManager1 on /org/bluez, as src/agent.c 5.66 keeps agents: one per client (by unique
/// name), a queue of default agents whose head is the default, and no Release except at exit.
extension SimulatorWorld {
    /// register_agent: AlreadyExists when the client has one; InvalidArguments for an unknown capability.
    /// The first agent registered while none is default becomes the default (agent_create).
    public mutating func registerAgent(owner: String, path: String, capability text: String) throws(BlueZError) {
        guard security.agents[owner] == nil else { throw BlueZError(name: "org.bluez.Error.AlreadyExists", message: "Already Exists") }
        guard let capability = IOCapability(agentCapability: text) else { throw BlueZError.invalidArguments }
        security.agents[owner] = RegisteredAgent(owner: owner, path: path, capability: capability)
        security.defaultOrder.append(owner)
    }

    /// unregister_agent: DoesNotExist unless the caller has an agent at that path. bluetoothd removes the
    /// disconnect watch before destroying the agent, so no Release is sent (agent_disconnect, agent_destroy).
    public mutating func unregisterAgent(owner: String, path: String) throws(BlueZError) -> [BusEffect] {
        guard let agent = security.agents[owner], agent.path == path else { throw BlueZError.doesNotExist }
        return dropAgent(owner)
    }

    /// request_default: DoesNotExist unless the caller has an agent at that path; it goes to the head.
    public mutating func requestDefaultAgent(owner: String, path: String) throws(BlueZError) {
        guard let agent = security.agents[owner], agent.path == path else { throw BlueZError.doesNotExist }
        security.defaultOrder.removeAll { $0 == owner }
        security.defaultOrder.insert(owner, at: 0)
    }

    /// The agent bluetoothd would use for a request from `owner` (agent_get): the caller's own, else the default.
    func agent(for owner: String?) -> RegisteredAgent? {
        if let owner, let own = security.agents[owner] { return own }
        return security.defaultAgent
    }

    /// The adapters' IO capability: the default agent's, else NoInputNoOutput (set_io_cap, adapter_set_io_capability).
    var adapterCapability: IOCapability { security.defaultAgent?.capability ?? .noInputNoOutput }

    /// Every registered agent, for a client that is told which agents exist (tests, the control interface).
    public var registeredAgents: [(owner: String, path: String, capability: IOCapability, isDefault: Bool)] {
        security.agents.values.sorted { $0.owner < $1.owner }.map { ($0.owner, $0.path, $0.capability, security.defaultOrder.first == $0.owner) }
    }

    /// bluetoothd exits: every agent gets Release (btd_agent_cleanup → agent_destroy → agent_release) and is gone.
    public mutating func releaseAgents() -> [BusEffect] {
        let effects = security.agents.values.sorted { $0.owner < $1.owner }.map {
            BusEffect.callAgent(AgentCall(id: nil, owner: $0.owner, path: $0.path, member: "Release", arguments: []))
        }
        security.agents.removeAll()
        security.defaultOrder.removeAll()
        return effects
    }

    /// The agent's owner left the bus (agent_disconnect): the agent goes without Release. A request it had
    /// in flight fails when the bus answers it with an error, which `agentReplied` handles.
    mutating func agentOwnerVanished(_ owner: String) -> [BusEffect] {
        guard security.agents[owner] != nil else { return [] }
        return dropAgent(owner)
    }

    private mutating func dropAgent(_ owner: String) -> [BusEffect] {
        security.agents.removeValue(forKey: owner)
        security.defaultOrder.removeAll { $0 == owner }
        return []
    }
}
