import FleetControlServer
import FleetProtocol
import FoundationEssentials
import Identity
import Policy
import Supervision

/// What fleetctl sees and asks, answered from the actor's current state.
extension FleetSupervisor {
    public func deviceInfos() -> [DeviceInfo] {
        let now = now()
        return machine.devices.values.sorted { $0.id < $1.id }.map { info(for: $0, now: now) }
    }

    func info(for device: FleetDevice, now: Duration) -> DeviceInfo {
        DeviceInfo(id: device.id.rawValue, displayName: device.displayName ?? device.id.rawValue, state: DeviceState(device.phase),
                   adapter: (device.adapter ?? device.bestSighting?.adapter)?.name,
                   address: device.address, rssi: device.rssi,
                   lastSeenSecondsAgo: device.lastSeen.map { Double((now - $0).milliseconds) / 1000 },
                   attempt: device.attempt, failures: device.reconnect.failures, nextRetryInSeconds: device.nextRetry.map { max(0, Double(($0 - now).milliseconds) / 1000) },
                   policyClass: device.policyClass.rawValue, bondAdapter: device.bond.adapter?.name)
    }

    func resolve(_ reference: String) throws(FleetControlError) -> FleetDevice {
        let infos = deviceInfos()
        let info = try DeviceReference.resolve(reference, in: infos)
        guard let device = machine.devices[DeviceID(info.id)] else { throw .deviceNotFound(reference: reference) }
        return device
    }

    public func showDevice(_ reference: String) throws(FleetControlError) -> DeviceDetail {
        let device = try resolve(reference)
        let now = now()
        let characteristics = device.linkPath.map { tree.characteristics(of: $0) } ?? []
        return DeviceDetail(device: info(for: device, now: now), identity: device.id.rawValue, lastError: device.lastReason,
                            connectedForSeconds: device.linkUpAt.map { Double((now - $0).milliseconds) / 1000 },
                            characteristics: characteristics.sorted { $0.uuid < $1.uuid }.map { CharacteristicInfo(uuid: $0.uuid, flags: $0.flags) },
                            deviceInformation: deviceInformation.details(of: device.id))
    }

    public func connect(_ reference: String) throws(FleetControlError) -> ConnectOutcome {
        let id = try connectTarget(reference)
        let outcome = machine.operatorConnect(id, now: now())
        perform(outcome.actions)
        return ConnectOutcome(device: id.rawValue, state: machine.devices[id].map { DeviceState($0.phase) } ?? .unknown,
                              evicted: outcome.eviction?.victim.rawValue, note: outcome.eviction?.reason ?? outcome.message)
    }

    /// The device `connect` means. A reference that is a stable id is read in its one canonical spelling
    /// (`addr-c8b21e000010` is `addr-C8B21E000010`), so it can never add a second device for one identity;
    /// an id nobody has yet adds a wanted device, unless it is also a prefix of known ids, where the operator
    /// may have meant one of them: that is ambiguous, not a guess. Anything else resolves as everywhere.
    func connectTarget(_ reference: String) throws(FleetControlError) -> DeviceID {
        let trimmed = Self.trimmingBlanks(reference)
        guard let identity = try? FleetIdentity(stableID: trimmed) else { return try resolve(reference).id }
        let id = DeviceID(identity.stableID)
        if machine.devices[id] != nil { return id }
        let prefixed = machine.devices.keys.map(\.rawValue).filter { $0.hasPrefix(trimmed) }
        if !prefixed.isEmpty { throw .ambiguousDevice(reference: reference, candidates: ([id.rawValue] + prefixed).sorted()) }
        return id
    }

    /// `text` without its leading and trailing blanks: the tab, the space separators (Unicode Zs) and the zero
    /// width space, the set Foundation's `CharacterSet.whitespaces` trimmed.
    static func trimmingBlanks(_ text: String) -> String {
        func isBlank(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
            default: false
            }
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isBlank($0) }), let last = scalars.lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(scalars[first...last])
    }

    public func disconnect(_ reference: String) throws(FleetControlError) -> DisconnectOutcome {
        let device = try resolve(reference)
        let outcome = try operatorCommand(reference) { (machine, now) throws(FleetStateMachine.OperatorRefusal) in
            try machine.operatorDisconnect(device.id, now: now)
        }
        perform(outcome.actions)
        return DisconnectOutcome(device: device.id.rawValue, state: machine.devices[device.id].map { DeviceState($0.phase) } ?? .idle)
    }

    public func evict(_ reference: String) throws(FleetControlError) -> EvictOutcome {
        let device = try resolve(reference)
        let outcome = try operatorCommand(reference) { (machine, now) throws(FleetStateMachine.OperatorRefusal) in
            try machine.operatorEvict(device.id, now: now)
        }
        perform(outcome.actions)
        return EvictOutcome(device: device.id.rawValue, holdOffSeconds: Double(machine.settings.evictionHoldOff.milliseconds) / 1000)
    }

    public func forget(_ reference: String) throws(FleetControlError) -> String {
        let device = try resolve(reference)
        let outcome = try operatorCommand(reference) { (machine, now) throws(FleetStateMachine.OperatorRefusal) in
            try machine.operatorForget(device.id, now: now)
        }
        perform(outcome.actions)
        deviceInformation.forget(device.id)
        broker?.forget(device: device.id.rawValue)
        return device.id.rawValue
    }

    public func setPolicy(_ reference: String, policyClass name: String) throws(FleetControlError) -> String {
        let device = try resolve(reference)
        guard let policyClass = PolicyClass(rawValue: name) else {
            throw .invalidPolicyClass(name, known: PolicyClass.allCases.map(\.rawValue))
        }
        let outcome = try operatorCommand(reference) { (machine, now) throws(FleetStateMachine.OperatorRefusal) in
            try machine.operatorSetPolicy(device.id, policyClass, now: now)
        }
        perform(outcome.actions)
        return device.id.rawValue
    }

    /// Runs an operator command on the machine, answering its refusal in fleetctl's terms.
    func operatorCommand(_ reference: String, _ command: (inout FleetStateMachine, Duration) throws(FleetStateMachine.OperatorRefusal)
        -> FleetStateMachine.OperatorOutcome) throws(FleetControlError) -> FleetStateMachine.OperatorOutcome {
        do {
            return try command(&machine, now())
        } catch {
            switch error {
            case .unknownDevice: throw .deviceNotFound(reference: reference)
            case .notLinked(let id): throw .notConnected(device: id.rawValue)
            }
        }
    }

    /// The characteristic object for a UUID (16-bit or 128-bit) on a linked device.
    public func characteristic(_ reference: String, _ uuid: String) throws(FleetControlError) -> (FleetDevice, CharacteristicObject) {
        let device = try resolve(reference)
        guard let path = device.linkPath, device.phase.hasLink else { throw .notConnected(device: device.id.rawValue) }
        // Identity's UUID form (`2a37`, `0x2A37` and the 128-bit spellings are one UUID); text that is no UUID is
        // compared as written, so the error below names it as the operator typed it.
        let wanted = (try? ServiceUUID(uuid))?.description ?? uuid.lowercased()
        guard let characteristic = tree.characteristics(of: path).first(where: { $0.uuid == wanted }) else {
            throw .characteristicNotFound(device: device.id.rawValue, characteristic: uuid)
        }
        return (device, characteristic)
    }

    public func prometheusText() -> String {
        FleetMetricsText.render(machine: machine, metrics: metrics, feed: feed)
            + (readings.map { FleetMetricsText.render(outbox: $0.outbox.stats(), wallNow: clock.wallNow()) } ?? "")
            + (broker?.metricsText() ?? "")
    }
}

extension FleetSupervisor {
    /// Applies a re-read configuration; throws (and changes nothing) when its identity rules are invalid.
    public func reload(rules: [IdentityRule], wanted: [WantedDevice], previouslyConfigured: Set<DeviceID>) throws(IdentityError) -> String {
        let now = now()
        let (actions, summary) = try machine.reload(rules: rules, wanted: wanted, previouslyConfigured: previouslyConfigured, now: now)
        perform(actions)
        rawProfileDevices.publish(from: machine)
        // The machine forgot the paths it resolved under the old rules (those without a link): BlueZ's objects
        // are reported again at once, so each is resolved under the new rules without waiting for its next advert.
        for device in tree.devices.values.sorted(by: { $0.path < $1.path }) where machine.owners[device.devicePath] == nil {
            perform(machine.apply(.deviceAppeared(device.report, device.linkState), now: now))
        }
        logger.notice(summary)
        return summary
    }

    /// The state machine's current value, for tests and benchmarks.
    public var state: FleetStateMachine { machine }
}
