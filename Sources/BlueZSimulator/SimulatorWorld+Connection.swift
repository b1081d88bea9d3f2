import FleetPlatform

/// Device1.Connect / Disconnect and link loss, in BlueZ 5.66's order of signals and replies
/// (device.c dev_connect, device_add_connection, att_connect_cb, device_request_disconnect,
/// device_remove_connection).
extension SimulatorWorld {
    public mutating func connect(path: String, token: ReplyToken) -> [BusEffect] {
        guard let (parsed, object) = self.object(at: path), parsed.element == .device else {
            return [.reply(token, .failure(BlueZError.doesNotExist))]
        }
        let a = parsed.adapter
        count(\.connectsAttempted, peripheral: object.peripheral)
        switch object.link {
        case .connected, .disconnecting:
            // dev_connect: an LE link that is already up answers success.
            return [.reply(token, .success([]))]
        case .connecting:
            // device_connect_le: att_io is set, -EALREADY, btd_error_failed(strerror(EALREADY)).
            count(\.connectsFailed, peripheral: object.peripheral)
            return [.reply(token, .failure(.failed("Operation already in progress")))]
        case .idle:
            break
        }
        guard adapters[a].powered else {
            // No route to a powered-down controller: bt_io_connect fails, device_connect_le returns -EIO.
            count(\.connectsFailed, peripheral: object.peripheral)
            return [.reply(token, .failure(.failed("Input/output error")))]
        }
        var updated = object
        // btd_device_set_temporary(dev, false) is refused for private addresses.
        if !updated.isPrivate { updated.temporary = false }
        let peripheral = peripherals[object.peripheral]
        let behaviour = peripheral?.behaviour ?? .normal
        if case .inProgress = behaviour {
            adapters[a].objects[parsed.address] = updated
            count(\.connectsFailed, peripheral: object.peripheral)
            return [.reply(token, .failure(.inProgress))]
        }
        nextAttempt &+= 1
        let attempt = nextAttempt
        let abort = ReplyResult.failure(.failed(BlueZError.leConnectionAbortByLocal))
        var outcome: ReplyResult? = .success([])
        var delay = configuration.connectLatency + (peripheral?.responseDelay ?? .zero)
        if case .fail(let error) = behaviour {
            outcome = .failure(error)
        } else if case .neverComplete = behaviour {
            outcome = nil
        } else if nobodyAnswers(at: parsed.address, peripheral: object.peripheral) {
            // The kernel gives up after its LE connection timeout.
            outcome = abort
            delay = configuration.leConnectionTimeout
        } else if adapters[a].activeLinks >= adapters[a].capacity {
            // The controller refuses the LE Create Connection; 5.66 reports every such error as ECONNABORTED.
            outcome = abort
        }
        updated.link = .connecting(token: token, attempt: attempt, outcome: outcome)
        adapters[a].objects[parsed.address] = updated
        adapters[a].connectsStarted[parsed.address] = now
        if outcome != nil { schedule(.connectOutcome(adapter: a, address: parsed.address, attempt: attempt), after: delay) }
        return []
    }

    mutating func completeConnect(adapter a: Int, address: BluetoothAddress, attempt: UInt64, effects: inout [BusEffect]) {
        guard var object = adapters[a].objects[address], case .connecting(let token, attempt, let outcome?) = object.link else { return }
        guard case .success = outcome else {
            object.link = .idle
            object.lastSeen = now
            adapters[a].objects[address] = object
            count(\.connectsFailed, peripheral: object.peripheral)
            effects.append(.reply(token, outcome))
            armExpiry(adapter: a, address: address)
            return
        }
        if securityRefusesLink(&object, adapter: a, attempt: attempt, token: token, effects: &effects) { return }
        object.link = .connected(attempt: attempt)
        count(\.linksUp, peripheral: object.peripheral)
        switch configuration.linkUpOrder {
        case .signalled:
            // Real controllers: the mgmt Device Connected event reaches bluetoothd before the ATT socket's
            // callback, and device_add_connection signals Connected=true ahead of the Connect reply.
            effects.append(.change(object.path, .device, ["Connected": .boolean(true)]))
        case .quiet:
            // btvirt: att_connect_cb sets le_state.connected without a signal, and device_add_connection then
            // finds the device "already connected" and returns before its signal. The property reads true;
            // no PropertiesChanged(Connected=true) is ever sent for this Connect (docs/bluez-fidelity.md).
            effects.append(.setQuietly(path: object.path, interface: .device, changed: ["Connected": .boolean(true)]))
        }
        effects.append(.reply(token, .success([])))
        if let p = peripherals[object.peripheral] {
            if !object.gattExported {
                effects += object.gattObjects(p.table, values: [:])
                object.gattExported = true
            }
        }
        object.servicesResolved = true
        adapters[a].objects[address] = object
        effects.append(.change(object.path, .device, ["ServicesResolved": .boolean(true)]))
    }

    public mutating func disconnect(path: String, token: ReplyToken) -> [BusEffect] {
        guard let (parsed, object) = self.object(at: path), parsed.element == .device else {
            return [.reply(token, .failure(BlueZError.doesNotExist))]
        }
        let a = parsed.adapter
        var object2 = object
        switch object.link {
        case .idle:
            return [.reply(token, .success([]))]
        case .connecting(let pending, _, _):
            object2.link = .idle
            adapters[a].objects[parsed.address] = object2
            count(\.connectsFailed, peripheral: object.peripheral)
            armExpiry(adapter: a, address: parsed.address)
            return [.reply(pending, .failure(.failed(BlueZError.connectionCanceled))), .reply(token, .success([]))]
        case .connected(let attempt):
            object2.link = .disconnecting(attempt: attempt, tokens: [token])
            adapters[a].objects[parsed.address] = object2
            schedule(.linkDown(adapter: a, address: parsed.address, attempt: attempt), after: configuration.disconnectLatency)
            return []
        case .disconnecting(let attempt, let tokens):
            object2.link = .disconnecting(attempt: attempt, tokens: tokens + [token])
            adapters[a].objects[parsed.address] = object2
            return []
        }
    }

    mutating func finishDisconnect(adapter a: Int, address: BluetoothAddress, attempt: UInt64, effects: inout [BusEffect]) {
        guard let object = adapters[a].objects[address], case .disconnecting(attempt, _) = object.link else { return }
        count(\.disconnects, peripheral: object.peripheral)
        tearDown(adapter: a, address: address, lost: false, effects: &effects)
    }

    /// The link is gone: GATT objects go (unless cached), ServicesResolved=false, pending Disconnects are
    /// answered, Connected=false, and a temporary device starts its expiry timer.
    mutating func tearDown(adapter a: Int, address: BluetoothAddress, lost: Bool, effects: inout [BusEffect]) {
        guard var object = adapters[a].objects[address] else { return }
        switch object.link {
        case .idle:
            return
        case .connecting(let token, _, _):
            object.link = .idle
            adapters[a].objects[address] = object
            effects.append(.reply(token, .failure(.failed(BlueZError.connectionCanceled))))
            return
        case .connected, .disconnecting:
            break
        }
        let tokens: [ReplyToken] = if case .disconnecting(_, let t) = object.link { t } else { [] }
        if lost { count(\.linksLost, peripheral: object.peripheral) }
        let table = peripherals[object.peripheral]?.table
        let wasNotifying = object.notifying.filter { !$0.value.isEmpty }.keys.sorted()
        object.notifying.removeAll()
        for (_, read) in object.reads { for t in read.tokens { effects.append(.reply(t, .failure(.failed("Not connected")))) } }
        object.reads.removeAll()
        object.writes.removeAll()
        if object.gattExported, let table {
            if configuration.gattCache.keepsObjects(paired: object.security.bond != nil) {
                for handle in wasNotifying {
                    if let p = object.characteristicPath(table, handle: handle) { effects.append(.change(p, .gattCharacteristic, ["Notifying": .boolean(false)])) }
                }
            } else {
                for service in table.services { effects.append(.removeObject(path: BlueZPath.servicePath(object.path, service.handle))) }
                object.gattExported = false
            }
        }
        // A lost link (remote disconnect, supervision timeout, power-off) reaches 5.66's clients as one
        // PropertiesChanged carrying both ServicesResolved=false and Connected=false: bluetoothd changes
        // them in the same main-loop turn and g_dbus flushes property changes together at idle.
        let wasResolved = object.servicesResolved
        object.servicesResolved = false
        if wasResolved && !lost { effects.append(.change(object.path, .device, ["ServicesResolved": .boolean(false)])) }
        for token in tokens { effects.append(.reply(token, .success([]))) }
        object.link = .idle
        object.lastSeen = now
        adapters[a].objects[address] = object
        var down: [String: DBusValue] = ["Connected": .boolean(false)]
        if wasResolved && lost { down["ServicesResolved"] = .boolean(false) }
        effects.append(.change(object.path, .device, down))
        pairingLinkLost(adapter: a, address: address, effects: &effects)
        armExpiry(adapter: a, address: address)
    }

    mutating func armExpiry(adapter a: Int, address: BluetoothAddress) {
        guard var object = adapters[a].objects[address], object.temporary, !object.expiryArmed else { return }
        object.expiryArmed = true
        adapters[a].objects[address] = object
        timers.schedule(.expiry(adapter: a, address: address), at: object.lastSeen + configuration.temporaryTimeout)
    }

    /// Drops every link to the named peripheral as a supervision timeout would; nil if there is no such device.
    public mutating func dropLink(named name: String) -> [BusEffect]? {
        guard let id = peripheralID(named: name) else { return nil }
        var effects: [BusEffect] = []
        for a in adapters.indices {
            for address in adapters[a].objects.keys.sorted() where adapters[a].objects[address]?.peripheral == id {
                if adapters[a].objects[address]?.link.isConnected == true { tearDown(adapter: a, address: address, lost: true, effects: &effects) }
            }
        }
        return effects
    }

    public mutating func setConnectBehaviour(named name: String, _ behaviour: ConnectBehaviour) -> Bool {
        guard let id = peripheralID(named: name) else { return false }
        peripherals[id]?.behaviour = behaviour
        return true
    }

    /// Sets whether the device goes on advertising while linked (scenario key `advertise-while-linked`); an
    /// empty name sets it for every device.
    public mutating func setAdvertisesWhileLinked(named name: String, _ advertises: Bool) -> Bool {
        editPeripherals(named: name) { $0.spec.advertisesWhileLinked = advertises }
    }

    /// Sets the device's answer delay; an empty name sets it for every device.
    public mutating func setResponseDelay(named name: String, _ delay: Duration) -> Bool {
        editPeripherals(named: name) { $0.responseDelay = delay }
    }

    /// Edits the named peripheral, or every peripheral on the air for an empty name; false when none has
    /// that name.
    private mutating func editPeripherals(named name: String, _ edit: (inout Peripheral) -> Void) -> Bool {
        let ids = name.isEmpty ? Array(peripherals.keys) : peripheralID(named: name).map { [$0] } ?? []
        guard name.isEmpty || !ids.isEmpty else { return false }
        for id in ids {
            guard var peripheral = peripherals[id] else { continue }
            edit(&peripheral)
            peripherals[id] = peripheral
        }
        return true
    }

    /// Whether a connection to `address` finds nobody to answer: no peripheral there any more, one that is
    /// not connectable, or a single-link peripheral linked elsewhere and silent. The kernel then gives up after
    /// its LE connection timeout (Connect and Pair alike).
    func nobodyAnswers(at address: BluetoothAddress, peripheral id: Int) -> Bool {
        guard let peripheral = peripherals[id] else { return true }
        return peripheral.address != address || !peripheral.spec.connectable || isSilentWhileLinked(id)
    }

    public mutating func setDeviceFlag(path: String, _ name: String, _ value: Bool) -> [BusEffect] {
        guard let (parsed, found) = self.object(at: path) else { return [] }
        var object = found
        if name == "Trusted" { object.trusted = value } else { object.blocked = value }
        adapters[parsed.adapter].objects[parsed.address] = object
        return [.change(path, .device, [name: .boolean(value)])]
    }

    public mutating func setDeviceAlias(path: String, _ alias: String) -> [BusEffect] {
        guard let (parsed, found) = self.object(at: path) else { return [] }
        var object = found
        object.alias = alias.isEmpty ? nil : alias
        adapters[parsed.adapter].objects[parsed.address] = object
        return [.change(path, .device, ["Alias": .string(object.aliasValue)])]
    }
}
