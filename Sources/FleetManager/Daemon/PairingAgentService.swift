import FleetPlatform
import Pairing

/// fleetd's pairing agent as a service: registered with AgentManager1 at start (a bluetoothd that is not
/// there yet is logged, not fatal), registered again whenever bluetoothd appears on the bus (a restarted
/// bluetoothd knows no agents) or a reload changes its registration, and unregistered on the way out.
/// Passkey files that cannot be used are reported at start and on reload, so the operator hears of a bad
/// mode before a device needs it. With no pairing configured the service runs with nothing registered.
public struct PairingAgentService: Service {
    public let agent: PairingAgent
    let logger: Logger
    let passkeyFiles: [(device: String, path: String)]

    public init(agent: PairingAgent, logger: Logger, passkeyFiles: [(device: String, path: String)] = []) {
        self.agent = agent
        self.logger = logger
        self.passkeyFiles = passkeyFiles
    }

    public func start() async throws {
        Self.checkPasskeyFiles(passkeyFiles, logger: logger)
        await register()
    }

    /// A reloaded configuration: its passkey files checked, and the agent registered again if its
    /// registration changed (or registered for the first time, or unregistered when nothing pairs any more).
    public func reconfigure(_ registration: AgentRegistration?, passkeyFiles: [(device: String, path: String)]) async {
        Self.checkPasskeyFiles(passkeyFiles, logger: logger)
        do throws(PairingAgentError) { try await agent.reconfigure(registration) } catch {
            logger.warning("\(error); devices that need pairing cannot pair until bluetoothd accepts the agent",
                           metadata: ["reason": "agent-registration-failed"])
        }
    }

    static func checkPasskeyFiles(_ files: [(device: String, path: String)], logger: Logger) {
        for (device, path) in files {
            do throws(PasskeyFileError) { _ = try PasskeyFile.read(path) } catch {
                logger.warning("\(device): \(error); its pairing will be refused until this is fixed",
                               metadata: ["device": device, "path": path, "reason": "passkey-unavailable"])
            }
        }
    }

    public func run() async throws {
        let connection = agent.tree.connection
        let owners = try await connection.signals(matching: DBusMatchRule(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
                                                                          member: "NameOwnerChanged", arg0: "org.bluez"))
        let agent = self.agent
        try await cancelWhenGracefulShutdown {
            for await message in owners where message.body.count == 3 && message.body[2].string?.isEmpty == false {
                await register()
            }
            // A shutdown or a cancellation ends this loop too, but then nobody hears what this throws. Otherwise
            // the stream ended with the connection: the bus is gone, and fleetd must say so and exit non-zero
            // whichever of its services notices first.
            try Task.checkCancellation()
            throw BusLostError()
        }
        do throws(PairingAgentError) { try await agent.unregister() } catch {
            logger.debug("\(error)")
        }
    }

    private func register() async {
        do throws(PairingAgentError) { try await agent.register() } catch {
            logger.warning("\(error); devices that need pairing cannot pair until bluetoothd accepts the agent",
                           metadata: ["reason": "agent-registration-failed"])
        }
    }
}
