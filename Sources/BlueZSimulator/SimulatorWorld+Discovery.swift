import FleetPlatform
import Policy

/// Peripherals on the air, discovery, advertisement reports and temporary-device expiry (adapter.c
/// device_found and device.c set_temporary_timer / device_update_last_seen in 5.66).
extension SimulatorWorld {
    /// Puts a peripheral on the air; it advertises from now (first advert after a random fraction of
    /// its interval) and rotates its address if it says so. Fails if the address or label is taken.
    public mutating func addPeripheral(_ spec: PeripheralSpec) throws(ScenarioError) {
        guard peripheralID(named: spec.label) == nil, peripheralID(named: spec.address.description) == nil else {
            throw ScenarioError(.duplicateDevice, line: 0, "a device '\(spec.label)' or \(spec.address) already exists")
        }
        let id = nextPeripheralID
        nextPeripheralID += 1
        var peripheral = Peripheral(spec: spec, address: spec.address, addressType: spec.addressType, table: GattTable(profile: spec.profile))
        for chrc in peripheral.table.allCharacteristics {
            peripheral.values[chrc.valueHandle] = chrc.spec.value
            for d in chrc.descriptors { peripheral.values[d.handle] = d.value }
        }
        setUpRecords(&peripheral, id: id)
        peripherals[id] = peripheral
        count(\.devicesAdded, peripheral: nil)
        let intervalMs = max(1, spec.advertisingInterval.milliseconds)
        schedule(.advert(id, generation: 0), after: .milliseconds(Int64.random(in: 0..<intervalMs, using: &random)))
        if let rotation = spec.rotationInterval { schedule(.rotate(id, generation: 0), after: rotation) }
    }

    /// Takes a peripheral off the air and removes its Device1 objects at once (links drop first).
    public mutating func removePeripheral(named name: String) -> [BusEffect]? {
        guard let id = peripheralID(named: name) else { return nil }
        var effects: [BusEffect] = []
        for a in adapters.indices {
            for (address, object) in adapters[a].objects where object.peripheral == id {
                tearDown(adapter: a, address: address, lost: true, effects: &effects)
                // A bonded device is not temporary: bluetoothd keeps its object when it is no longer heard.
                if adapters[a].objects[address]?.security.bond != nil { continue }
                pairingDeviceRemoved(adapter: a, address: address, effects: &effects)
                adapters[a].objects.removeValue(forKey: address)
                effects.append(.removeObject(path: object.path))
            }
        }
        peripherals.removeValue(forKey: id)
        count(\.devicesRemoved, peripheral: nil)
        return effects
    }

    mutating func advertise(_ id: Int, generation: UInt64, effects: inout [BusEffect]) {
        guard let peripheral = peripherals[id] else { return }
        schedule(.advert(id, generation: generation), after: peripheral.spec.advertisingInterval)
        if isSilentWhileLinked(id) { return }
        let jitter = peripheral.spec.rssiJitter
        let rssi = peripheral.spec.rssi &+ (jitter > 0 ? Int16.random(in: -jitter...jitter, using: &random) : 0)
        for a in adapters.indices
        where (peripheral.spec.heardBy ?? a) == a && adapters[a].discovering
            && !adapters[a].scanPausedForConnect(now: now, timeout: configuration.leConnectionTimeout) {
            report(adapter: a, peripheral: id, rssi: rssi, effects: &effects)
        }
    }

    /// Whether the peripheral has stopped advertising because it has a link (`advertise-while-linked=no`): no
    /// adapter hears it, and no other adapter can connect to it, since a connection starts from a connectable
    /// advert. Runs for every advert: one lookup per adapter at its current address; only a peripheral that
    /// has rotated (its link may be at an older address) is searched for on every object.
    func isSilentWhileLinked(_ id: Int) -> Bool {
        guard let peripheral = peripherals[id], !peripheral.spec.advertisesWhileLinked else { return false }
        let linkedHere = adapters.contains { adapter in
            guard let object = adapter.objects[peripheral.address] else { return false }
            return object.peripheral == id && object.link.isConnected
        }
        return linkedHere || (peripheral.address != peripheral.spec.address && links(of: id) > 0)
    }

    /// One advertising report reaching bluetoothd while discovering.
    private mutating func report(adapter a: Int, peripheral id: Int, rssi: Int16, effects: inout [BusEffect]) {
        guard let p = peripherals[id] else { return }
        let adapter = adapters[a]
        // The kernel applies UUID/RSSI filters (MGMT Start Service Discovery) before bluetoothd sees the advert.
        if adapter.filtered && !adapter.sessions.values.contains(where: {
            $0?.matches(uuids: p.spec.uuids, rssi: rssi, txPower: p.spec.txPower, address: p.address, name: p.spec.name) ?? true
        }) { return }
        guard var object = adapter.objects[p.address] else {
            var object = DeviceObject(peripheral: id, adapter: a, address: p.address, addressType: p.addressType,
                                      path: BlueZPath.devicePath(adapter: a, address: p.address), name: p.spec.name,
                                      rssi: rssi, txPower: p.spec.txPower, manufacturerData: p.spec.manufacturerData,
                                      serviceData: p.spec.serviceData, uuids: p.spec.uuids, lastSeen: now, mtu: p.spec.mtu)
            object.expiryArmed = true
            adapters[a].objects[p.address] = object
            schedule(.expiry(adapter: a, address: p.address), after: configuration.temporaryTimeout)
            effects.append(.addObject(path: object.path, interfaces: [InterfaceProperties(.device, object.properties)]))
            return
        }
        object.lastSeen = now
        // A kept (bonded) object is heard again from whichever peripheral now advertises at its address.
        object.peripheral = id
        var changed: [String: DBusValue] = [:]
        // device_set_rssi_with_delta: any change under a filter, else only a change of 8 dBm or more.
        let threshold: Int16 = adapter.filtered ? 0 : 8
        if object.rssi == nil || abs(Int(object.rssi ?? 0) - Int(rssi)) >= Int(threshold), object.rssi != rssi {
            object.rssi = rssi
            changed["RSSI"] = .int16(rssi)
        }
        if let tx = p.spec.txPower, object.txPower != tx {
            object.txPower = tx
            changed["TxPower"] = .int16(tx)
        }
        if let name = p.spec.name, object.name != name {
            object.name = name
            changed["Name"] = .string(name)
            if object.alias == nil { changed["Alias"] = .string(name) }
        }
        let newUUIDs = p.spec.uuids.filter { !object.uuids.contains($0) }
        if !newUUIDs.isEmpty {
            object.uuids += newUUIDs
            changed["UUIDs"] = .strings(object.uuids)
        }
        if !changed.isEmpty { effects.append(.change(object.path, .device, changed)) }
        // bt_ad_add_manufacturer_data signals only real changes, unless DuplicateData cleared the cache first.
        let duplicate = adapter.duplicateData
        if !p.spec.manufacturerData.isEmpty && (duplicate || object.manufacturerData != p.spec.manufacturerData) {
            object.manufacturerData = p.spec.manufacturerData
            effects.append(.change(object.path, .device, ["ManufacturerData": DeviceObject.manufacturerValue(object.manufacturerData)], always: duplicate))
        }
        if !p.spec.serviceData.isEmpty && (duplicate || object.serviceData != p.spec.serviceData) {
            object.serviceData = p.spec.serviceData
            effects.append(.change(object.path, .device, ["ServiceData": DeviceObject.serviceDataValue(object.serviceData)], always: duplicate))
        }
        if object.temporary && !object.expiryArmed && !object.link.occupiesSlot {
            object.expiryArmed = true
            schedule(.expiry(adapter: a, address: object.address), after: configuration.temporaryTimeout)
        }
        adapters[a].objects[p.address] = object
    }

    mutating func expire(adapter a: Int, address: BluetoothAddress, effects: inout [BusEffect]) {
        guard adapters.indices.contains(a), var object = adapters[a].objects[address] else { return }
        object.expiryArmed = false
        guard object.temporary, !object.link.occupiesSlot else {
            adapters[a].objects[address] = object
            return
        }
        let due = object.lastSeen + configuration.temporaryTimeout
        if due > now {
            object.expiryArmed = true
            adapters[a].objects[address] = object
            timers.schedule(.expiry(adapter: a, address: address), at: due)
            return
        }
        adapters[a].objects.removeValue(forKey: address)
        effects.append(.removeObject(path: object.path))
    }

    mutating func rotate(_ id: Int, generation: UInt64, effects: inout [BusEffect]) {
        guard var p = peripherals[id], p.generation == generation else { return }
        p.address = BluetoothAddress.resolvablePrivate(using: &random)
        p.addressType = .random
        peripherals[id] = p
        if let rotation = p.spec.rotationInterval { schedule(.rotate(id, generation: generation), after: rotation) }
    }

    /// Moves a peripheral to a new resolvable private address now; returns it.
    public mutating func rotateAddress(of name: String) -> BluetoothAddress? {
        guard let id = peripheralID(named: name), var p = peripherals[id] else { return nil }
        // A new generation retires the pending periodic rotation, which this one re-arms.
        p.generation &+= 1
        peripherals[id] = p
        var effects: [BusEffect] = []
        rotate(id, generation: p.generation, effects: &effects)
        return peripherals[id]?.address
    }

    // MARK: Adapter1 methods

    public mutating func startDiscovery(adapter a: Int, sender: String) throws(BlueZError) -> [BusEffect] {
        guard adapters[a].powered else { throw BlueZError.notReady }
        guard adapters[a].sessions[sender] == nil else { throw BlueZError.busy }
        let was = adapters[a].discovering
        adapters[a].sessions[sender] = .some(adapters[a].filters[sender])
        return was ? [] : [.change(adapters[a].path, .adapter, ["Discovering": .boolean(true)])]
    }

    public mutating func stopDiscovery(adapter a: Int, sender: String) throws(BlueZError) -> [BusEffect] {
        guard adapters[a].powered else { throw BlueZError.notReady }
        guard adapters[a].sessions.removeValue(forKey: sender) != nil else { throw BlueZError.failed("No discovery started") }
        return adapters[a].sessions.isEmpty ? discoveryStopped(adapter: a) : []
    }

    /// Discovering=false, and RSSI/TxPower invalidated on every device (invalidate_rssi_and_tx_power).
    private mutating func discoveryStopped(adapter a: Int) -> [BusEffect] {
        var effects: [BusEffect] = [.change(adapters[a].path, .adapter, ["Discovering": .boolean(false)])]
        for address in adapters[a].objects.keys.sorted() {
            guard var object = adapters[a].objects[address] else { continue }
            var gone: [String] = []
            if object.rssi != nil { gone.append("RSSI"); object.rssi = nil }
            if object.txPower != nil { gone.append("TxPower"); object.txPower = nil }
            adapters[a].objects[address] = object
            if !gone.isEmpty { effects.append(.changeProperties(path: object.path, interface: .device, changed: [:], invalidated: gone, always: false)) }
        }
        return effects
    }

    public mutating func setDiscoveryFilter(adapter a: Int, sender: String, _ filter: DiscoveryFilter?) {
        adapters[a].filters[sender] = filter
        if adapters[a].sessions[sender] != nil { adapters[a].sessions[sender] = .some(filter) }
    }

    public mutating func removeDevice(adapter a: Int, path: String) throws(BlueZError) -> [BusEffect] {
        guard let parsed = BlueZPath(path), parsed.adapter == a, parsed.element == .device,
              adapters[a].objects[parsed.address] != nil else { throw BlueZError.doesNotExist }
        var effects: [BusEffect] = []
        tearDown(adapter: a, address: parsed.address, lost: false, effects: &effects)
        // device_remove: a pairing still under way (the link was never up) ends as CONNECT_FAILED; the
        // adapter's keys go with the object (device_remove_stored), the peripheral keeps its own.
        pairingDeviceRemoved(adapter: a, address: parsed.address, effects: &effects)
        adapters[a].objects.removeValue(forKey: parsed.address)
        effects.append(.removeObject(path: path))
        return effects
    }

    /// Powered off drops every link and ends discovery; powered on is just the property.
    public mutating func setPowered(adapter a: Int, _ powered: Bool) -> [BusEffect] {
        guard adapters.indices.contains(a), adapters[a].powered != powered else { return [] }
        var effects: [BusEffect] = []
        if !powered {
            for address in adapters[a].objects.keys.sorted() { tearDown(adapter: a, address: address, lost: true, effects: &effects) }
            let wasDiscovering = adapters[a].discovering
            adapters[a].sessions.removeAll()
            if wasDiscovering { effects += discoveryStopped(adapter: a) }
        }
        adapters[a].powered = powered
        effects.append(.change(adapters[a].path, .adapter, ["Powered": .boolean(powered)]))
        return effects
    }

    public mutating func setAdapterAlias(adapter a: Int, _ alias: String) -> [BusEffect] {
        adapters[a].alias = alias.isEmpty ? nil : alias
        return [.change(adapters[a].path, .adapter, ["Alias": .string(adapters[a].alias ?? adapters[a].name)])]
    }

    /// A client left the bus: its discovery sessions, filters and notify sessions end (BlueZ's disconnect watches).
    public mutating func clientVanished(_ sender: String) -> [BusEffect] {
        var effects = agentOwnerVanished(sender)
        for a in adapters.indices {
            adapters[a].filters.removeValue(forKey: sender)
            if adapters[a].sessions.removeValue(forKey: sender) != nil, adapters[a].sessions.isEmpty {
                effects += discoveryStopped(adapter: a)
            }
            for address in adapters[a].objects.keys.sorted() {
                guard let object = adapters[a].objects[address] else { continue }
                for (handle, senders) in object.notifying where senders.contains(sender) {
                    effects += (try? stopNotify(path: object.characteristicPath(peripherals[object.peripheral]?.table ?? GattTable(profile: .empty), handle: handle) ?? "", sender: sender)) ?? []
                }
            }
        }
        return effects
    }

    public func adapterIndex(path: String) -> Int? {
        guard path.hasPrefix("/org/bluez/hci"), let n = Int(path.dropFirst("/org/bluez/hci".count)), adapters.indices.contains(n) else { return nil }
        return n
    }

    /// Every Device1 path on every adapter (benchmarks, flood mode).
    public var devicePaths: [String] { adapters.flatMap { $0.objects.values.map(\.path) }.sorted() }
}
