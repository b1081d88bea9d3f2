import FleetPlatform

/// Link encryption from bonds, stale bonds, and characteristics that need a secure link: what happens on
/// link-up, on link loss, and on a GATT call the peripheral refuses for lack of security.
extension SimulatorWorld {
    /// Called when a link comes up (completeConnect). A bonded device's link is encrypted with the stored
    /// key before bluetoothd's ATT socket is ready (device_connect_le asks BT_IO_SEC_MEDIUM when paired), so
    /// mgmt Device Connected reaches device_add_connection first and Connected=true *is* signalled.
    /// When the peripheral has lost its keys it answers the LTK request negatively; the kernel gets
    /// Encryption Change "PIN or Key Missing" and disconnects (hci_encrypt_change_evt): the link comes up and
    /// drops, the Connect fails, and the device stays Paired and Bonded. The order of the reply and the two
    /// signals is `configuration.staleBondOrder`. Returns true when the link was refused.
    mutating func securityRefusesLink(_ object: inout DeviceObject, adapter a: Int, attempt: UInt64, token: ReplyToken,
                                      effects: inout [BusEffect]) -> Bool {
        if let bond = object.security.bond, bond.inKernel {
            let peripheralKeeps = peripherals[object.peripheral] != nil && security.peripheralKeys[object.peripheral]?.contains(a) == true
            guard peripheralKeeps else {
                object.link = .idle
                object.lastSeen = now
                adapters[a].objects[object.address] = object
                count(\.connectsFailed, peripheral: object.peripheral)
                // Both link-up orders signal Connected=true here: att_connect_cb failed, so device_add_connection
                // finds the device not yet connected.
                let up = BusEffect.change(object.path, .device, ["Connected": .boolean(true)])
                let down = BusEffect.change(object.path, .device, ["Connected": .boolean(false)])
                switch configuration.staleBondOrder {
                case .replyFirst:
                    effects += [.reply(token, .failure(.failed(BlueZError.leConnectionAbortByLocal))), up, down]
                case .signalsFirst:
                    effects += [up, .reply(token, .failure(.failed(BlueZError.connectionCanceled))), down]
                }
                return true
            }
            // In the signalled order completeConnect sends this signal itself.
            if configuration.linkUpOrder == .quiet {
                effects.append(.change(object.path, .device, ["Connected": .boolean(true)]))
            }
            object.security.encryptedLink = attempt
            object.security.encryptedLevel = bond.level
        }
        if var procedure = object.security.procedure, case .connecting = procedure.stage {
            procedure.link = attempt
            procedure.stage = .exchanging
            object.security.procedure = procedure
            schedule(.security(.exchanged(adapter: a, address: object.address, procedure: procedure.id)), after: smpExchangeTime)
        }
        return false
    }

    /// The link dropped (tearDown): a pairing on it ends as MGMT_STATUS_DISCONNECTED, after bluetoothd has
    /// signalled Connected=false (dev_disconnected: adapter_remove_connection, then bonding_attempt_complete).
    mutating func pairingLinkLost(adapter a: Int, address: BluetoothAddress, effects: inout [BusEffect]) {
        guard let procedure = adapters[a].objects[address]?.security.procedure else { return }
        if case .connecting(ownLink: false, _) = procedure.stage { return }
        finishPairing(adapter: a, address: address, status: .canceled, heldCallError: .failed("Not connected"), effects: &effects)
    }

    /// RemoveDevice or the device leaving: device_remove cancels a pairing whose link never came up with
    /// CONNECT_FAILED (ConnectionAttemptFailed "Page Timeout" for an LE device).
    mutating func pairingDeviceRemoved(adapter a: Int, address: BluetoothAddress, effects: inout [BusEffect]) {
        guard adapters[a].objects[address]?.security.procedure != nil else { return }
        finishPairing(adapter: a, address: address, status: .connectFailed, effects: &effects)
    }

    /// How secure the device's current link is.
    func linkSecurity(_ object: DeviceObject) -> SecurityLevel {
        guard let attempt = object.link.attempt, object.link.isConnected, object.security.encryptedLink == attempt else { return .none }
        return object.security.encryptedLevel
    }

    /// A GATT request to an attribute the peripheral serves only on a secure enough link. The peripheral
    /// answers Insufficient Encryption (0x0f) or Insufficient Authentication (0x05) (shared/gatt-server.c
    /// check_permissions), and bluetoothd's ATT layer raises the socket's security and sends the request
    /// again (shared/att.c handle_error_rsp → change_security: BT_ATT_SECURITY_AUTO on LE channels). The
    /// kernel then pairs as initiator with the adapter's IO capability, and bluetoothd asks the *default*
    /// agent, there being no Pair call (new_auth). When the pairing fails the call fails with what
    /// gatt-client.c makes of the ATT error: `NotPermitted "Not paired"`.
    ///
    /// Returns nil when the link is secure enough (go on), else the effects of holding the call.
    mutating func securityGate(_ held: ParkedGattOperation, adapter a: Int, address: BluetoothAddress, required: SecurityLevel) -> [BusEffect]? {
        guard required > .none, var object = adapters[a].objects[address], case .connected(let attempt) = object.link else { return nil }
        let current = linkSecurity(object)
        guard current < required else { return nil }
        if var procedure = object.security.procedure {
            procedure.parked.append(held)
            adapters[a].objects[address]?.security.procedure = procedure
            return []
        }
        // change_security: the first error asks for MEDIUM (encryption); Insufficient Authentication on an
        // encrypted link asks for HIGH, which needs MITM.
        let target: SecurityLevel = current == .none ? .encrypt : .authenticate
        security.nextProcedure &+= 1
        var procedure = PairingProcedure(id: security.nextProcedure, pairToken: nil, pairSender: nil, agent: nil,
                                         capability: adapterCapability, target: target, stage: .exchanging)
        procedure.link = attempt
        procedure.parked = [held]
        object.security.procedure = procedure
        adapters[a].objects[address] = object
        schedule(.security(.exchanged(adapter: a, address: address, procedure: procedure.id)), after: smpExchangeTime)
        return []
    }

    /// The level the peripheral requires for a characteristic.
    func requiredSecurity(_ peripheral: Peripheral, _ uuid: String) -> SecurityLevel {
        peripheral.spec.security.level(for: uuid)
    }

    /// The peripheral forgets every bond it has (a reset, or re-registered to a phone). Links stay up; the
    /// next encryption with the old key fails. Nil when there is no such device.
    public mutating func forgetBond(named name: String) -> [BusEffect]? {
        guard let id = peripheralID(named: name) else { return nil }
        security.peripheralKeys[id] = []
        return []
    }

    /// The adapters (hciN) a peripheral holds keys for, and those holding keys for it; nil when unknown.
    public func bonds(named name: String) -> (peripheral: [String], adapters: [String])? {
        guard let id = peripheralID(named: name) else { return nil }
        let peripheralSide = (security.peripheralKeys[id] ?? []).sorted().map { "hci\($0)" }
        let adapterSide = adapters.indices.filter { a in
            adapters[a].objects.values.contains { $0.peripheral == id && $0.security.bond?.inKernel == true }
        }.map { "hci\($0)" }
        return (peripheralSide, adapterSide)
    }
}
