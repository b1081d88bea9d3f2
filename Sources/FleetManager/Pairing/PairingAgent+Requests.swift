import FleetPlatform
import Pairing
import Supervision

/// The Agent1 methods: each request is parsed, decided by `AgentDecision` for the device it is about, logged,
/// and answered (a passkey, an empty reply, or `org.bluez.Error.Rejected` / `Canceled`).
extension PairingAgent {
    static let rejected = "org.bluez.Error.Rejected"
    static let canceled = "org.bluez.Error.Canceled"

    var spec: DBusInterfaceSpec {
        DBusInterfaceSpec(name: Self.interface, methods: [
            "RequestPasskey": request(in: "o", out: "u") { _ in .requestPasskey },
            "RequestPinCode": request(in: "o", out: "s") { _ in .requestPinCode },
            "DisplayPasskey": request(in: "ouq") { args in
                guard case .uint32(let raw) = args[1], let passkey = Passkey(raw), case .uint16(let entered) = args[2] else { return nil }
                return .displayPasskey(passkey, entered: entered)
            },
            "DisplayPinCode": request(in: "os") { args in args[1].string.map { .displayPinCode($0) } },
            "RequestConfirmation": request(in: "ou") { args in
                guard case .uint32(let raw) = args[1], let passkey = Passkey(raw) else { return nil }
                return .requestConfirmation(passkey)
            },
            "RequestAuthorization": request(in: "o") { _ in .requestAuthorization },
            "AuthorizeService": request(in: "os") { args in args[1].string.map { .authorizeService(uuid: $0) } },
            "Cancel": DBusMethod(immediate: { [weak self] call in
                try self?.requireBlueZ(call)
                self?.cancelled()
                return []
            }),
            "Release": DBusMethod(immediate: { [weak self] call in
                try self?.requireBlueZ(call)
                self?.released()
                return []
            }),
        ])
    }

    /// A request method: `parse` turns the arguments (after the device path) into the request, nil when they
    /// are out of range (a passkey above 999999), which is refused.
    private func request(in signature: String, out: String = "", _ parse: @escaping @Sendable ([DBusValue]) -> AgentRequest?) -> DBusMethod {
        DBusMethod(in: signature, out: out) { [weak self] call in
            guard let self else { throw DBusError.remote(name: Self.canceled, message: "the agent is gone") }
            try requireBlueZ(call)
            let device = call.arguments.first?.string ?? ""
            guard let request = parse(call.arguments) else {
                logger.warning("refused \(call.message.member ?? "a request") for \(device): malformed arguments",
                               metadata: ["device_path": device, "reason": "malformed"])
                throw DBusError.remote(name: Self.rejected, message: "malformed request")
            }
            return try await answer(request, device: device)
        }
    }

    private func answer(_ request: AgentRequest, device path: String) async throws(DBusError) -> [DBusValue] {
        let generation = state.withLock { $0.generation }
        let candidate = await lookup(path).map(PasskeyFile.resolve)
        let answer = AgentDecision.answer(request, for: candidate)
        guard state.withLock({ $0.generation }) == generation else {
            logger.notice("\(request.member) for \(candidate?.device ?? path) was cancelled by BlueZ before fleetd answered",
                          metadata: ["device_path": path, "request": request.member])
            throw DBusError.remote(name: Self.canceled, message: "cancelled")
        }
        var metadata = ["device_path": path, "request": request.member]
        if let device = candidate?.device { metadata["device"] = device }
        switch answer {
        case .reject(let reason):
            metadata["reason"] = reason.code
            logger.warning("refused \(request) from \(candidate?.device ?? path): \(reason)", id: FleetMessageID.agentRefused.rawValue, metadata: metadata)
            throw DBusError.remote(name: Self.rejected, message: reason.description)
        case .passkey(let passkey):
            if candidate?.spoofableFirstPairing == true { warnSpoofable(candidate, path: path, metadata: metadata) }
            logger.notice("gave the configured passkey to \(candidate?.device ?? path)", metadata: metadata)
            return [.uint32(passkey.value)]
        case .accept:
            if candidate?.spoofableFirstPairing == true, request.member != "AuthorizeService" { warnSpoofable(candidate, path: path, metadata: metadata) }
            if case .displayPasskey(let passkey, _) = request {
                // Nobody watches a gateway's screen: the journal is where an operator can read the passkey to type.
                logger.notice("passkey for \(candidate?.device ?? path) to type on the device: \(passkey)", metadata: metadata)
            } else {
                logger.notice("accepted \(request) from \(candidate?.device ?? path)", metadata: metadata)
            }
            return []
        }
    }

    /// A first pairing of an identity read from advertisement bytes: whoever advertises them first gets the bond.
    private func warnSpoofable(_ candidate: PairingCandidate?, path: String, metadata: [String: String]) {
        var metadata = metadata
        metadata["reason"] = "spoofable-identity"
        logger.warning("first pairing of \(candidate?.device ?? path) at \(path): its identity comes from advertised bytes that any device can copy; check that this is the real device (an irk- identity cannot be copied; see docs/configuration.md, Which identities can be spoofed)",
                       id: FleetMessageID.spoofableFirstPairing.rawValue, metadata: metadata)
    }

    /// Only bluetoothd may ask the agent anything (issue 41, point 16): the bus policy says so too, but a policy
    /// file edited or missing must not hand a passkey to any process on the system bus. The caller's unique name
    /// is compared with org.bluez's owner, which the connection follows from `register()` on.
    func requireBlueZ(_ call: DBusMethodCall) throws(DBusError) {
        let owner = tree.connection.owner(of: "org.bluez") ?? ""
        if !owner.isEmpty && call.sender == owner { return }
        logger.warning("refused \(call.message.member ?? "a call") from \(call.sender.isEmpty ? "an unnamed caller" : call.sender): only org.bluez's owner (\(owner.isEmpty ? "none now" : owner)) may call the agent",
                       id: FleetMessageID.agentRefused.rawValue, metadata: ["sender": call.sender, "reason": "not-bluez"])
        throw DBusError.remote(name: Self.rejected, message: "only bluetoothd (the owner of org.bluez) may call this agent")
    }

    private func cancelled() {
        state.withLock { $0.generation &+= 1 }
        logger.notice("BlueZ cancelled the pending pairing request", metadata: ["agent_path": Self.path])
    }

    private func released() {
        state.withLock { $0.registered = nil }
        logger.notice("BlueZ released the pairing agent", metadata: ["agent_path": Self.path])
        onRelease()
    }
}
