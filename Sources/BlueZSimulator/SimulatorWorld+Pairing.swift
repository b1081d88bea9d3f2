import FleetPlatform

/// Device1.Pair and CancelPairing, the SMP exchange, the agent's part in it, and how a pairing ends, in
/// BlueZ 5.66's order (src/device.c pair_device, new_auth, device_bonding_complete, cancel_pairing;
/// src/adapter.c bonding_attempt_complete; src/agent.c) over Linux 6.1's SMP (net/bluetooth/smp.c).
extension SimulatorWorld {
    /// The kernel's SMP timer (SMP_TIMEOUT): with no SMP PDU for this long the kernel drops the link.
    static let smpTimeout: Duration = .seconds(30)
    /// How long the peripheral's user takes to type a passkey the central displays.
    static let peripheralTypingTime: Duration = .seconds(2)
    /// Pairing Request/Response and, for Secure Connections, the public keys: until the model is known.
    var smpExchangeTime: Duration { configuration.attRoundTrip * 3 }
    /// Confirm/random values and key distribution after the user steps.
    var smpDistributionTime: Duration { configuration.attRoundTrip * 2 }

    /// Device1.Pair (pair_device). The reply comes when the pairing ends.
    public mutating func pair(path: String, sender: String, token: ReplyToken) -> [BusEffect] {
        guard let (parsed, found) = object(at: path), parsed.element == .device else { return [.reply(token, .failure(.doesNotExist))] }
        let a = parsed.adapter
        var object = found
        // btd_device_set_temporary(device, false) comes first, whatever happens next.
        if !object.isPrivate { object.temporary = false }
        if var procedure = object.security.procedure {
            // The kernel ignores a second security request while SMP runs: a Pair during an elevation gets
            // that pairing's outcome. A second Pair is refused (device->bonding is set).
            guard procedure.pairToken == nil else {
                adapters[a].objects[parsed.address] = object
                return [.reply(token, .failure(.inProgress))]
            }
            procedure.pairToken = token
            procedure.pairSender = sender
            object.security.procedure = procedure
            adapters[a].objects[parsed.address] = object
            return []
        }
        guard object.security.bond == nil else {
            adapters[a].objects[parsed.address] = object
            return [.reply(token, .failure(BlueZError(name: "org.bluez.Error.AlreadyExists", message: "Already Exists")))]
        }
        guard adapters[a].powered else {
            // MGMT Pair Device answers NOT_POWERED, which new_authentication_return turns into its default.
            adapters[a].objects[parsed.address] = object
            return [.reply(token, .failure(PairingStatus.authenticationFailed.error!))]
        }
        let agent = self.agent(for: sender)
        security.nextProcedure &+= 1
        var procedure = PairingProcedure(id: security.nextProcedure, pairToken: token, pairSender: sender, agent: agent,
                                         capability: agent?.capability ?? .noInputNoOutput, target: .encrypt,
                                         stage: .exchanging)
        switch object.link {
        case .connected(let attempt), .disconnecting(let attempt, _):
            procedure.link = attempt
            schedule(.security(.exchanged(adapter: a, address: parsed.address, procedure: procedure.id)), after: smpExchangeTime)
        case .connecting:
            // MGMT Pair Device finds the connection under way (hci_connect_le_scan) and pairs once it is up.
            procedure.stage = .connecting(ownLink: false, outcome: .connectFailed)
            schedule(.security(.pairingLinkUp(adapter: a, address: parsed.address, procedure: procedure.id)), after: configuration.connectLatency)
        case .idle:
            // Since MGMT 1.4 bluetoothd lets the kernel connect for the pairing (btd_le_connect_before_pairing
            // is false), so Pair works on a device that is not connected.
            let p = peripherals[object.peripheral]
            var delay = configuration.connectLatency + (p?.responseDelay ?? .zero)
            var outcome = PairingStatus.success
            if nobodyAnswers(at: parsed.address, peripheral: object.peripheral) {
                // The LE Create Connection times out; the connection fails with ETIMEDOUT → HCI 0x08 →
                // MGMT_STATUS_TIMEOUT, which Pair reports as AuthenticationTimeout.
                outcome = .timeout
                delay = configuration.leConnectionTimeout
            } else if adapters[a].activeLinks >= adapters[a].capacity {
                // Connection Limit Exceeded (0x09) maps to MGMT_STATUS_NO_RESOURCES: AuthenticationCanceled.
                outcome = .canceled
            }
            nextAttempt &+= 1
            object.link = .connecting(token: Self.pairingToken(procedure.id), attempt: nextAttempt, outcome: nil)
            adapters[a].connectsStarted[parsed.address] = now
            procedure.stage = .connecting(ownLink: true, outcome: outcome)
            procedure.connectedForPairing = true
            schedule(.security(.pairingLinkUp(adapter: a, address: parsed.address, procedure: procedure.id)), after: delay)
        }
        object.security.procedure = procedure
        adapters[a].objects[parsed.address] = object
        return []
    }

    /// The reply token of a link the kernel makes for a pairing: nobody waits on it, and driver tokens
    /// (counting up from 1) never reach this range.
    static func pairingToken(_ procedure: UInt64) -> ReplyToken { ReplyToken.max - procedure }

    /// Device1.CancelPairing (cancel_pairing). Without a Pair under way it unpairs in the kernel
    /// (btd_adapter_remove_bonding: MGMT Unpair Device with disconnect) and answers DoesNotExist.
    public mutating func cancelPairing(path: String, token: ReplyToken) -> [BusEffect] {
        guard let (parsed, object) = object(at: path), parsed.element == .device else { return [.reply(token, .failure(.doesNotExist))] }
        let a = parsed.adapter
        var effects: [BusEffect] = []
        guard let procedure = object.security.procedure, procedure.pairToken != nil else {
            // The kernel only acts when it holds keys: it forgets them and drops the link. bluetoothd does not
            // hear of it (the Device Unpaired event skips the socket that asked), so Paired/Bonded stay true.
            if var bond = object.security.bond, bond.inKernel {
                bond.inKernel = false
                adapters[a].objects[parsed.address]?.security.bond = bond
                if object.link.isConnected { tearDown(adapter: a, address: parsed.address, lost: true, effects: &effects) }
            }
            return effects + [.reply(token, .failure(.doesNotExist))]
        }
        // device_cancel_bonding(MGMT_STATUS_CANCELLED): the agent's request is cancelled, Pair is answered,
        // then CancelPairing; the kernel aborts a link it made for the pairing.
        finishPairing(adapter: a, address: parsed.address, status: .canceled, effects: &effects)
        effects.append(.reply(token, .success([])))
        if procedure.connectedForPairing, adapters[a].objects[parsed.address]?.link.isConnected == true {
            tearDown(adapter: a, address: parsed.address, lost: false, effects: &effects)
        }
        return effects
    }

    mutating func fireSecurity(_ timer: SecurityTimer, effects: inout [BusEffect]) {
        switch timer {
        case .pairingLinkUp(let a, let address, let id):
            pairingLinkUp(adapter: a, address: address, procedure: id, effects: &effects)
        case .exchanged(let a, let address, let id):
            pairingExchanged(adapter: a, address: address, procedure: id, effects: &effects)
        case .distributed(let a, let address, let id):
            guard let procedure = adapters[a].objects[address]?.security.procedure, procedure.id == id,
                  case .distributing = procedure.stage else { return }
            finishPairing(adapter: a, address: address, status: .success, effects: &effects)
        case .smpTimeout(let a, let address, let id, let call):
            guard let object = adapters[a].objects[address], let procedure = object.security.procedure, procedure.id == id,
                  procedure.awaitedCall == call, object.link.isConnected else { return }
            // smp_timeout: hci_disconnect. bluetoothd sees the link go (Connected=false), then the pairing end
            // as MGMT_STATUS_DISCONNECTED (AuthenticationCanceled), and cancels the agent's request.
            tearDown(adapter: a, address: address, lost: true, effects: &effects)
        }
    }

    private mutating func pairingLinkUp(adapter a: Int, address: BluetoothAddress, procedure id: UInt64, effects: inout [BusEffect]) {
        guard var object = adapters[a].objects[address], let procedure = object.security.procedure, procedure.id == id,
              case .connecting(let ownLink, let outcome) = procedure.stage else { return }
        guard ownLink else {
            // Someone's Connect: once up, securityRefusesLink moved the pairing on. Still pending: look again.
            switch object.link {
            case .connecting: schedule(.security(.pairingLinkUp(adapter: a, address: address, procedure: id)), after: configuration.connectLatency)
            case .idle: finishPairing(adapter: a, address: address, status: outcome, effects: &effects)
            case .connected, .disconnecting: break
            }
            return
        }
        guard case .connecting(let token, let attempt, nil) = object.link, token == Self.pairingToken(id) else {
            // A Disconnect took the connection away (device_request_disconnect cancels the bonding).
            finishPairing(adapter: a, address: address, status: .canceled, effects: &effects)
            return
        }
        guard outcome == .success else {
            object.link = .idle
            object.lastSeen = now
            adapters[a].objects[address] = object
            finishPairing(adapter: a, address: address, status: outcome, effects: &effects)
            return
        }
        object.link = .connecting(token: token, attempt: attempt, outcome: .success([]))
        adapters[a].objects[address] = object
        // The kernel's connection reaches bluetoothd as mgmt Device Connected: device_add_connection signals
        // Connected=true (no att_connect_cb beat it); the GATT client then attaches and resolves services.
        // In the signalled order completeConnect sends it (once).
        if configuration.linkUpOrder == .quiet { effects.append(.change(object.path, .device, ["Connected": .boolean(true)])) }
        completeConnect(adapter: a, address: address, attempt: attempt, effects: &effects)
    }

    /// The Pairing Request/Response (and public keys) are done: the association model decides what the
    /// agent is asked (tk_request / sc_select_method, then user_*_callback → device_*_passkey → agent.c).
    private mutating func pairingExchanged(adapter a: Int, address: BluetoothAddress, procedure id: UInt64, effects: inout [BusEffect]) {
        guard let object = adapters[a].objects[address], var procedure = object.security.procedure, procedure.id == id,
              case .exchanging = procedure.stage, let link = procedure.link, object.link.attempt == link, object.link.isConnected,
              let peripheral = peripherals[object.peripheral] else { return }
        let remote = peripheral.spec.security
        // smp_conn_security asks for MITM when the local IO allows it or the level needs it; a Linux responder
        // echoes the initiator's auth bits, and a NoInputNoOutput initiator gets Just Works from either table.
        let mitm = procedure.capability != .noInputNoOutput || procedure.target == .authenticate
        let model = AssociationModel.forInitiator(local: procedure.capability, remote: remote.ioCapability,
                                                  secureConnections: remote.secureConnections, mitm: mitm)
        // smp_cmd_pairing_rsp: an initiator that needs MITM (an elevation to HIGH) refuses a method without it,
        // SMP Authentication Requirements. A Linux responder does not refuse at pairing time: it refuses the
        // attribute afterwards with Insufficient Authentication.
        if !model.authenticated && procedure.target == .authenticate {
            finishPairing(adapter: a, address: address, status: .authenticationFailed, effects: &effects)
            return
        }
        // An elevation has no bonding request: new_auth asks the default agent of the moment.
        let agent = procedure.pairToken == nil ? security.defaultAgent : procedure.agent
        switch model {
        case .justWorks:
            procedure.stage = .distributing(model: model)
            adapters[a].objects[address]?.security.procedure = procedure
            schedule(.security(.distributed(adapter: a, address: address, procedure: id)), after: smpDistributionTime)
        case .passkeyDisplay:
            // The kernel draws the passkey; bluetoothd shows it (device_notify_passkey, no reply awaited, and
            // a missing agent only logs an error); the peripheral's user types it.
            let passkey = UInt32.random(in: 0..<1_000_000, using: &random)
            if let agent {
                effects.append(.callAgent(AgentCall(id: nil, owner: agent.owner, path: agent.path, member: "DisplayPasskey",
                                                    arguments: [.objectPath(object.path), .uint32(passkey), .uint16(0)])))
            }
            procedure.stage = .distributing(model: model)
            adapters[a].objects[address]?.security.procedure = procedure
            schedule(.security(.distributed(adapter: a, address: address, procedure: id)), after: Self.peripheralTypingTime + smpDistributionTime)
        case .passkeyEntry:
            let passkey = remote.passkey ?? UInt32.random(in: 0..<1_000_000, using: &random)
            ask(agent, "RequestPasskey", [.objectPath(object.path)], model: model, passkey: passkey,
                adapter: a, address: address, procedure: procedure, effects: &effects)
        case .numericComparison:
            let passkey = UInt32.random(in: 0..<1_000_000, using: &random)
            ask(agent, "RequestConfirmation", [.objectPath(object.path), .uint32(passkey)], model: model, passkey: passkey,
                adapter: a, address: address, procedure: procedure, effects: &effects)
        }
    }

    /// One request to an agent. No agent (new_auth → -EPERM) or a busy one (agent_request_* → -EBUSY) makes
    /// bluetoothd send the kernel a negative reply: the pairing fails.
    private mutating func ask(_ agent: RegisteredAgent?, _ member: String, _ arguments: [DBusValue], model: AssociationModel, passkey: UInt32,
                              adapter a: Int, address: BluetoothAddress, procedure: PairingProcedure, effects: inout [BusEffect]) {
        guard let agent, security.agents[agent.owner]?.request == nil else {
            finishPairing(adapter: a, address: address, status: .authenticationFailed, effects: &effects)
            return
        }
        security.nextCall &+= 1
        let call = security.nextCall
        security.agents[agent.owner]?.request = call
        security.calls[call] = AgentCallSite(adapter: a, address: address, procedure: procedure.id, owner: agent.owner, path: agent.path)
        var updated = procedure
        updated.stage = .awaitingAgent(call: call, model: model, passkey: passkey)
        adapters[a].objects[address]?.security.procedure = updated
        effects.append(.callAgent(AgentCall(id: call, owner: agent.owner, path: agent.path, member: member, arguments: arguments)))
        schedule(.security(.smpTimeout(adapter: a, address: address, procedure: procedure.id, call: call)), after: Self.smpTimeout)
    }

    /// An agent answered (or its call failed: Rejected, Canceled, the bus's NoReply). A late answer to a
    /// request already cancelled does nothing.
    public mutating func agentReplied(call: UInt64, _ reply: AgentReply) -> [BusEffect] {
        guard let site = security.calls.removeValue(forKey: call) else { return [] }
        if security.agents[site.owner]?.request == call { security.agents[site.owner]?.request = nil }
        guard let procedure = adapters[site.adapter].objects[site.address]?.security.procedure, procedure.id == site.procedure,
              case .awaitingAgent(call, let model, let passkey) = procedure.stage else { return [] }
        var effects: [BusEffect] = []
        let accepted: Bool
        switch (model, reply) {
        case (.passkeyEntry, .success(let values)):
            // passkey_reply: a body that is not one `u` is "Wrong passkey reply signature", an error. A wrong
            // passkey fails the SMP confirm check on the peripheral.
            if values.count == 1, case .uint32(let typed) = values[0] { accepted = typed == passkey } else { accepted = false }
        case (_, .success(let values)):
            accepted = values.isEmpty
        case (_, .failure):
            // passkey_cb / confirm_cb with an error: a negative reply, whatever the error's name.
            accepted = false
        }
        guard accepted else {
            finishPairing(adapter: site.adapter, address: site.address, status: .authenticationFailed, effects: &effects)
            return effects
        }
        var updated = procedure
        updated.stage = .distributing(model: model)
        adapters[site.adapter].objects[site.address]?.security.procedure = updated
        schedule(.security(.distributed(adapter: site.adapter, address: site.address, procedure: procedure.id)), after: smpDistributionTime)
        return effects
    }

    /// The pairing ends (device_bonding_complete). On success both sides keep keys and the link is encrypted
    /// at the key's level; one PropertiesChanged carries Bonded and Paired (the new-LTK event sets both, and
    /// g_dbus flushes them before the Pair reply). On failure the device turns temporary again unless it is
    /// paired or trusted. A request still at the agent gets Cancel first; held GATT calls are retried or fail.
    mutating func finishPairing(adapter a: Int, address: BluetoothAddress, status: PairingStatus, heldCallError: BlueZError = .notPermitted("Not paired"),
                                effects: inout [BusEffect]) {
        guard var object = adapters[a].objects[address], let procedure = object.security.procedure else { return }
        object.security.procedure = nil
        if let call = procedure.awaitedCall, let site = security.calls.removeValue(forKey: call) {
            if security.agents[site.owner]?.request == call { security.agents[site.owner]?.request = nil }
            effects.append(.callAgent(AgentCall(id: nil, owner: site.owner, path: site.path, member: "Cancel", arguments: [])))
        }
        guard status == .success, case .distributing(let model) = procedure.stage, let link = procedure.link else {
            if object.security.bond == nil && !object.trusted && !object.isPrivate { object.temporary = true }
            adapters[a].objects[address] = object
            if let token = procedure.pairToken, let error = (status == .success ? .authenticationFailed : status).error {
                effects.append(.reply(token, .failure(error)))
            }
            for held in procedure.parked { effects.append(.reply(held.token, .failure(heldCallError))) }
            if !object.link.occupiesSlot { armExpiry(adapter: a, address: address) }
            return
        }
        let bond = Bond(authenticated: model.authenticated)
        object.security.bond = bond
        object.security.encryptedLink = link
        object.security.encryptedLevel = bond.level
        object.temporary = false
        adapters[a].objects[address] = object
        security.peripheralKeys[object.peripheral, default: []].insert(a)
        effects.append(.change(object.path, .device, ["Bonded": .boolean(true), "Paired": .boolean(true)]))
        if let token = procedure.pairToken { effects.append(.reply(token, .success([]))) }
        for held in procedure.parked { effects += retry(held) }
    }

    /// Runs a held GATT call again now that the link is secure enough (or fails it the usual way).
    private mutating func retry(_ held: ParkedGattOperation) -> [BusEffect] {
        do throws(BlueZError) {
            switch held {
            case .read(let path, let options, let token): return try readValue(path: path, options: options, token: token)
            case .write(let path, let value, let options, let token): return try writeValue(path: path, value: value, options: options, token: token)
            case .startNotify(let path, let sender, let token): return try startNotify(path: path, sender: sender, token: token)
            }
        } catch {
            return [.reply(held.token, .failure(error))]
        }
    }
}
