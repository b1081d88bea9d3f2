import FleetPlatform

/// GattCharacteristic1 / GattDescriptor1 methods as BlueZ 5.66's gatt-client.c answers them, with the
/// device's side (values, ATT errors, latency) simulated.
extension SimulatorWorld {
    /// Resolves a characteristic path to its connected device object and table entry.
    private func characteristic(at path: String) throws(BlueZError) -> (BlueZPath, DeviceObject, Peripheral, GattTable.Characteristic) {
        guard let (parsed, object) = self.object(at: path), case .characteristic(_, let handle) = parsed.element,
              object.gattExported, let p = peripherals[object.peripheral], let chrc = p.table.characteristic(handle) else {
            throw BlueZError(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no characteristic at \(path)")
        }
        return (parsed, object, p, chrc)
    }

    /// parse_options: `offset` must be q and `type` s; other keys are ignored as BlueZ does.
    static func options(_ options: [String: DBusValue]) throws(BlueZError) -> (offset: Int, type: String?) {
        var offset = 0
        var type: String?
        if let value = options["offset"]?.unwrapped {
            guard case .uint16(let o) = value else { throw BlueZError.invalidArguments }
            offset = Int(o)
        }
        if let value = options["type"]?.unwrapped {
            guard case .string(let t) = value else { throw BlueZError.invalidArguments }
            type = t
        }
        return (offset, type)
    }

    /// ATT round trips for moving `length` bytes at this MTU (a long read or write takes several).
    private func transferTime(_ length: Int, mtu: UInt16, peripheral: Peripheral) -> Duration {
        let pieces = max(1, (length + Int(mtu) - 2) / max(1, Int(mtu) - 1))
        return configuration.attRoundTrip * pieces + peripheral.responseDelay
    }

    public mutating func readValue(path: String, options: [String: DBusValue], token: ReplyToken) throws(BlueZError) -> [BusEffect] {
        if let descriptorEffects = try readDescriptor(path: path, token: token) { return descriptorEffects }
        let (parsed, object, p, chrc) = try characteristic(at: path)
        guard case .connected(let attempt) = object.link else { throw BlueZError.failed("Not connected") }
        let (offset, _) = try Self.options(options)
        if let running = object.reads[chrc.handle] {
            guard running.offset == offset else { throw BlueZError.inProgress }
            adapters[parsed.adapter].objects[parsed.address]?.reads[chrc.handle]?.tokens.append(token)
            return []
        }
        guard chrc.spec.canRead else { throw BlueZError.notPermitted("Read not permitted") }
        if let held = securityGate(.read(path: path, options: options, token: token), adapter: parsed.adapter, address: parsed.address,
                                   required: requiredSecurity(p, chrc.spec.uuid)) { return held }
        let value = p.values[chrc.valueHandle] ?? []
        guard offset <= value.count else { throw BlueZError.invalidArguments("Invalid offset") }
        adapters[parsed.adapter].objects[parsed.address]?.reads[chrc.handle] = (offset, [token])
        schedule(.gattComplete(adapter: parsed.adapter, address: parsed.address, attempt: attempt, op: .read(handle: chrc.handle, offset: offset)),
                 after: transferTime(value.count - offset, mtu: object.mtu, peripheral: p))
        return []
    }

    public mutating func writeValue(path: String, value: [UInt8], options: [String: DBusValue], token: ReplyToken) throws(BlueZError) -> [BusEffect] {
        if let descriptorEffects = try writeDescriptor(path: path, value: value, token: token) { return descriptorEffects }
        let (parsed, object, p, chrc) = try characteristic(at: path)
        guard case .connected(let attempt) = object.link else { throw BlueZError.failed("Not connected") }
        guard !object.writes.contains(chrc.handle) else { throw BlueZError.inProgress }
        let (offset, type) = try Self.options(options)
        let useRequest: Bool
        switch type?.lowercased() {
        case nil:
            if chrc.spec.canWriteRequest { useRequest = true } else if chrc.spec.canWriteCommand && offset == 0 { useRequest = false } else { throw BlueZError.notSupported }
        case "request"?, "reliable"?:
            useRequest = true
        case "command"?:
            guard offset == 0 else { throw BlueZError.notSupported }
            useRequest = false
        default:
            throw BlueZError.notSupported
        }
        if !useRequest {
            // Write Command: no response on the air, so the reply is immediate and errors are invisible.
            count(\.writes, peripheral: object.peripheral)
            guard chrc.spec.canWriteCommand else { return [.reply(token, .success([]))] }
            // A command the peripheral may not accept on this link is dropped: there is no response to say so.
            guard linkSecurity(object) >= requiredSecurity(p, chrc.spec.uuid) else { return [.reply(token, .success([]))] }
            peripherals[object.peripheral]?.values[chrc.valueHandle] = value
            return [.reply(token, .success([]))]
        }
        guard chrc.spec.canWriteRequest else { throw BlueZError.notPermitted("Write not permitted") }
        if let held = securityGate(.write(path: path, value: value, options: options, token: token), adapter: parsed.adapter,
                                   address: parsed.address, required: requiredSecurity(p, chrc.spec.uuid)) { return held }
        let current = p.values[chrc.valueHandle] ?? []
        guard offset <= current.count else { throw BlueZError.invalidArguments("Invalid offset") }
        guard offset + value.count <= 512 else { throw BlueZError.invalidArguments("Invalid Length") }
        adapters[parsed.adapter].objects[parsed.address]?.writes.insert(chrc.handle)
        schedule(.gattComplete(adapter: parsed.adapter, address: parsed.address, attempt: attempt,
                               op: .write(handle: chrc.handle, value: value, offset: offset, token: token)),
                 after: transferTime(value.count, mtu: object.mtu, peripheral: p))
        return []
    }

    mutating func completeGatt(adapter a: Int, address: BluetoothAddress, attempt: UInt64, op: GattOperation, effects: inout [BusEffect]) {
        guard var object = adapters[a].objects[address], object.link == .connected(attempt: attempt),
              let p = peripherals[object.peripheral] else { return }
        switch op {
        case .read(let handle, let offset):
            guard let chrc = p.table.characteristic(handle), let read = object.reads.removeValue(forKey: handle) else { return }
            adapters[a].objects[address] = object
            let value = p.values[chrc.valueHandle] ?? []
            let tail = offset <= value.count ? Array(value[offset...]) : []
            count(\.reads, peripheral: object.peripheral)
            // Every read, at any offset, writes what came back into BlueZ's attribute cache at that offset and
            // signals the cached Value, whole (read_op_cb → gatt_db_attribute_write → write_characteristic_cb).
            if let path = object.characteristicPath(p.table, handle: handle) {
                effects.append(.change(path, .gattCharacteristic, ["Value": .bytes(value)]))
            }
            for token in read.tokens { effects.append(.reply(token, .success([.bytes(tail)]))) }
        case .write(let handle, let value, let offset, let token):
            object.writes.remove(handle)
            adapters[a].objects[address] = object
            guard let chrc = p.table.characteristic(handle), let path = object.characteristicPath(p.table, handle: handle) else { return }
            // A stored-record meter's RACP answers as GLS §3.4 says (SimulatorWorld+Records.swift).
            if p.records?.racpHandle == handle {
                racpWritten(adapter: a, address: address, path: path, value: value, token: token, effects: &effects)
                return
            }
            let current = p.values[chrc.valueHandle] ?? []
            let written = Array(current.prefix(offset)) + value
            peripherals[object.peripheral]?.values[chrc.valueHandle] = written
            count(\.writes, peripheral: object.peripheral)
            // No Value signal: bluetoothd 5.66 signals Value only for what it read or was notified (chrc_read_cb and
            // notify_cb → write_characteristic_cb); its write path (write_cb → write_result_cb) stores nothing.
            // Seen on the rig with dbus-monitor (docs/bluez-fidelity.md, racp-glucose-sync).
            effects.append(.reply(token, .success([])))
            // A control point answers on its indication: RACP response code (0x06), operand: request opcode, success.
            if chrc.spec.canNotify, !(object.notifying[handle]?.isEmpty ?? true) {
                let response: [UInt8] = [0x06, 0x00, value.first ?? 0, 0x01]
                count(\.notificationsSent, peripheral: object.peripheral)
                effects.append(.change(path, .gattCharacteristic, ["Value": .bytes(response)], always: true))
            }
        }
    }

    public mutating func startNotify(path: String, sender: String, token: ReplyToken) throws(BlueZError) -> [BusEffect] {
        let (parsed, object, p, chrc) = try characteristic(at: path)
        guard chrc.spec.canNotify else { throw BlueZError.notSupported }
        if object.notifying[chrc.handle]?.contains(sender) == true { return [.reply(token, .success([]))] }
        // StartNotify writes the CCCD, which the peripheral guards like the value (encrypt-notify → ccc_perm).
        if let held = securityGate(.startNotify(path: path, sender: sender, token: token), adapter: parsed.adapter,
                                   address: parsed.address, required: requiredSecurity(p, chrc.spec.uuid)) { return held }
        var updated = object
        let first = updated.notifying[chrc.handle]?.isEmpty ?? true
        updated.notifying[chrc.handle, default: []].insert(sender)
        adapters[parsed.adapter].objects[parsed.address] = updated
        guard case .connected(let attempt) = object.link else { return [.reply(token, .success([]))] }
        var effects: [BusEffect] = []
        if first {
            effects.append(.change(path, .gattCharacteristic, ["Notifying": .boolean(true)]))
            if let interval = chrc.spec.notifyInterval {
                schedule(.notify(adapter: parsed.adapter, address: parsed.address, handle: chrc.handle, attempt: attempt), after: interval + p.responseDelay)
            }
        }
        effects.append(.reply(token, .success([])))
        return effects
    }

    public mutating func stopNotify(path: String, sender: String) throws(BlueZError) -> [BusEffect] {
        let (parsed, object, _, chrc) = try characteristic(at: path)
        guard object.notifying[chrc.handle]?.contains(sender) == true else { throw BlueZError.failed("No notify session started") }
        var updated = object
        updated.notifying[chrc.handle]?.remove(sender)
        let last = updated.notifying[chrc.handle]?.isEmpty ?? true
        if last { updated.notifying.removeValue(forKey: chrc.handle) }
        adapters[parsed.adapter].objects[parsed.address] = updated
        return last && object.link.isConnected ? [.change(path, .gattCharacteristic, ["Notifying": .boolean(false)])] : []
    }

    mutating func notify(adapter a: Int, address: BluetoothAddress, handle: UInt16, attempt: UInt64, effects: inout [BusEffect]) {
        guard let object = adapters[a].objects[address], object.link == .connected(attempt: attempt),
              !(object.notifying[handle]?.isEmpty ?? true), var p = peripherals[object.peripheral],
              let chrc = p.table.characteristic(handle), let interval = chrc.spec.notifyInterval,
              let path = object.characteristicPath(p.table, handle: handle) else { return }
        let n = p.notifications[handle, default: 0]
        let value = chrc.spec.pattern.value(number: n, initial: chrc.spec.value)
        p.notifications[handle] = n &+ 1
        p.values[chrc.valueHandle] = value
        peripherals[object.peripheral] = p
        count(\.notificationsSent, peripheral: object.peripheral)
        effects.append(.change(path, .gattCharacteristic, ["Value": .bytes(value)], always: true))
        schedule(.notify(adapter: a, address: address, handle: handle, attempt: attempt), after: interval)
    }

    private mutating func readDescriptor(path: String, token: ReplyToken) throws(BlueZError) -> [BusEffect]? {
        guard let (parsed, object) = self.object(at: path), case .descriptor(_, let chrcHandle, let handle) = parsed.element else { return nil }
        guard object.gattExported, let p = peripherals[object.peripheral], p.table.descriptor(handle) != nil else {
            throw BlueZError(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no descriptor at \(path)")
        }
        guard object.link.isConnected else { throw BlueZError.failed("Not connected") }
        var value = p.values[handle] ?? []
        if p.table.descriptor(handle)?.1.uuid == GattTable.cccd {
            value = (object.notifying[chrcHandle]?.isEmpty ?? true) ? [0x00, 0x00] : [0x01, 0x00]
        }
        count(\.reads, peripheral: object.peripheral)
        return [.change(path, .gattDescriptor, ["Value": .bytes(value)]), .reply(token, .success([.bytes(value)]))]
    }

    private mutating func writeDescriptor(path: String, value: [UInt8], token: ReplyToken) throws(BlueZError) -> [BusEffect]? {
        guard let (parsed, object) = self.object(at: path), case .descriptor(_, _, let handle) = parsed.element else { return nil }
        guard object.gattExported, let p = peripherals[object.peripheral], let (_, desc) = p.table.descriptor(handle) else {
            throw BlueZError(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no descriptor at \(path)")
        }
        guard object.link.isConnected else { throw BlueZError.failed("Not connected") }
        // BlueZ owns the CCCD: clients must use StartNotify (gatt-client.c refuses writes to it).
        guard desc.uuid != GattTable.cccd else { throw BlueZError.notPermitted("Write not permitted") }
        peripherals[object.peripheral]?.values[handle] = value
        count(\.writes, peripheral: object.peripheral)
        return [.change(path, .gattDescriptor, ["Value": .bytes(value)]), .reply(token, .success([]))]
    }
}
