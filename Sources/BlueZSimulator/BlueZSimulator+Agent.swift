import FleetPlatform

/// AgentManager1 on /org/bluez, and the calls bluetoothd makes to registered agents.
extension BlueZSimulator {
    /// How long bluetoothd waits for an agent (REQUEST_TIMEOUT in src/agent.c, real time). The kernel's SMP
    /// timer (30 s of simulated time) normally ends the pairing first.
    static let agentRequestTimeout: Duration = .seconds(60)

    var agentManagerSpec: DBusInterfaceSpec {
        sharedSpecs.withLock { cache in
            if let spec = cache[.agentManager] { return spec }
            let spec = DBusInterfaceSpec(name: BlueZInterface.agentManager.rawValue, methods: [
                "RegisterAgent": worldMethod(in: "os") { call, world, token throws(BlueZError) in
                    let capability = call.arguments.count > 1 ? call.arguments[1].string ?? "" : ""
                    try world.registerAgent(owner: call.sender, path: Self.agentPath(call), capability: capability)
                    return [.reply(token, .success([]))]
                },
                "UnregisterAgent": worldMethod(in: "o") { call, world, token throws(BlueZError) in
                    try world.unregisterAgent(owner: call.sender, path: Self.agentPath(call)) + [.reply(token, .success([]))]
                },
                "RequestDefaultAgent": worldMethod(in: "o") { call, world, token throws(BlueZError) in
                    try world.requestDefaultAgent(owner: call.sender, path: Self.agentPath(call))
                    return [.reply(token, .success([]))]
                },
            ])
            cache[.agentManager] = spec
            return spec
        }
    }

    private static func agentPath(_ call: DBusMethodCall) -> String { call.arguments.first?.string ?? "" }

    /// Performs an agent call on the bus, as bluetoothd does: on the agent's connection, at its path. A call
    /// without an id carries the no-reply flag and is queued at once, in order; one with an id waits for the
    /// answer, which goes back into the world.
    func callAgent(_ call: AgentCall) {
        guard let id = call.id else {
            // An agent that has gone away is bluetoothd's problem only in its log.
            try? bus.send(destination: call.owner, path: call.path, interface: AgentCall.interface, member: call.member, arguments: call.arguments)
            return
        }
        let bus = self.bus
        Task { [weak self] in
            let reply: AgentReply
            do throws(DBusError) {
                let message = try await bus.call(destination: call.owner, path: call.path, interface: AgentCall.interface,
                                                 member: call.member, arguments: call.arguments, timeout: Self.agentRequestTimeout)
                reply = .success(message.body)
            } catch {
                reply = .failure(name: error.name, message: error.message)
            }
            self?.withWorld { world in world.agentReplied(call: id, reply) }
        }
    }

    /// bluetoothd exits: every registered agent gets Release (btd_agent_cleanup → agent_destroy). Returns
    /// once the bus has routed them (a Ping to the bus daemon answers after everything sent before it).
    public func releaseAgents() async {
        withWorld { world in world.releaseAgents() }
        _ = try? await bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                interface: "org.freedesktop.DBus.Peer", member: "Ping", timeout: .seconds(5))
    }
}
