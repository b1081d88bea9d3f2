/// A stored-record glucose meter on the air (GLS v1.0.1): records taken on its own clock, handed over through the
/// Record Access Control Point (GSS §3.178) as a meter answers it, and the faults real meters show.
extension SimulatorWorld {
    /// Sets up the memory of a peripheral whose spec has `records=`: its measurement stops notifying on a period
    /// (a stored-record meter sends a record when it takes one or when asked), and `record-every` starts.
    mutating func setUpRecords(_ peripheral: inout Peripheral, id: Int) {
        guard let spec = peripheral.spec.records, let memory = RecordMemory(spec: spec, table: peripheral.table, now: now) else { return }
        for s in peripheral.table.services.indices {
            for c in peripheral.table.services[s].characteristics.indices
            where peripheral.table.services[s].characteristics[c].handle == memory.measurementHandle {
                peripheral.table.services[s].characteristics[c].spec.notifyInterval = nil
            }
        }
        peripheral.records = memory
        if let every = spec.every, every > .zero { schedule(.records(.take(peripheral: id)), after: every) }
    }

    mutating func fireRecords(_ timer: RecordTimer, effects: inout [BusEffect]) {
        switch timer {
        case .take(let id):
            guard let every = peripherals[id]?.records?.spec.every, every > .zero else { return }
            _ = takeRecord(id, effects: &effects)
            schedule(.records(.take(peripheral: id)), after: every)
        case .transfer(let id, let generation):
            transferStep(id, generation: generation, effects: &effects)
        }
    }

    /// Takes a record now; a client with notifications on 0x2A18 over a link gets it at once.
    mutating func takeRecord(_ id: Int, effects: inout [BusEffect]) -> UInt16? {
        guard var memory = peripherals[id]?.records, let record = memory.take(at: now) else { return nil }
        peripherals[id]?.records = memory
        for a in adapters.indices {
            for address in adapters[a].objects.keys.sorted() where adapters[a].objects[address]?.peripheral == id {
                notifyRecord(adapter: a, address: address, memory.bytes(of: record), effects: &effects)
            }
        }
        return record.key
    }

    /// A notification of 0x2A18 on one link, if a client there has a notify session on it.
    private mutating func notifyRecord(adapter a: Int, address: BluetoothAddress, _ bytes: [UInt8], effects: inout [BusEffect]) {
        indicate(adapter: a, address: address, handle: \.measurementHandle, bytes, effects: &effects)
    }

    private mutating func indicate(adapter a: Int, address: BluetoothAddress, handle: KeyPath<RecordMemory, UInt16>, _ bytes: [UInt8],
                                   effects: inout [BusEffect]) {
        guard let object = adapters[a].objects[address], case .connected = object.link, let p = peripherals[object.peripheral],
              let memory = p.records, !(object.notifying[memory[keyPath: handle]]?.isEmpty ?? true),
              let chrc = p.table.characteristic(memory[keyPath: handle]),
              let path = object.characteristicPath(p.table, handle: chrc.handle) else { return }
        peripherals[object.peripheral]?.values[chrc.valueHandle] = bytes
        count(\.notificationsSent, peripheral: object.peripheral)
        effects.append(.change(path, .gattCharacteristic, ["Value": .bytes(bytes)], always: true))
    }

    /// A Write Request to the RACP has reached the meter: it answers with a Write Response or an ATT error, and
    /// on success starts the procedure (GLS §3.4, GSS §3.178).
    mutating func racpWritten(adapter a: Int, address: BluetoothAddress, path: String, value: [UInt8], token: ReplyToken,
                              effects: inout [BusEffect]) {
        guard let object = adapters[a].objects[address] else { return }
        let id = object.peripheral
        guard var memory = peripherals[id]?.records, let chrc = peripherals[id]?.table.characteristic(memory.racpHandle) else { return }
        if let t = memory.transfer, adapters[t.adapter].objects[t.address]?.link != .connected(attempt: t.attempt) { memory.transfer = nil }
        // ATT error codes (Core Supplement Part B §1.2 / CSS; GLS v1.0 used 0x81 and 0x80 for the same two).
        var attError: UInt8?
        if object.notifying[memory.racpHandle]?.isEmpty ?? true {
            attError = 0xFD  // Client Characteristic Configuration Descriptor Improperly Configured
        } else if memory.busyWrites > 0 {
            memory.busyWrites -= 1
            attError = 0xFE  // Procedure Already in Progress
        } else if memory.transfer != nil && value.first != RACP.abortOperation {
            attError = 0xFE
        }
        if let attError {
            peripherals[id]?.records = memory
            effects.append(.reply(token, .failure(.attError(attError))))
            return
        }
        count(\.writes, peripheral: id)
        peripherals[id]?.values[chrc.valueHandle] = value
        // Not signalled as Value: bluetoothd 5.66 does not for a write (SimulatorWorld+Gatt.completeGatt).
        effects.append(.reply(token, .success([])))
        let decision = RACP.decide(value, held: memory.records.map(\.key), quirks: memory.spec.quirks)
        var answer: [UInt8]?
        switch decision {
        case .respond(let bytes):
            answer = bytes
        case .abort:
            memory.transfer = nil
            memory.generation &+= 1
            answer = RACP.response(RACP.abortOperation, RACP.success)
        case .delete(let sequences):
            let doomed = Set(sequences)
            memory.records.removeAll { doomed.contains($0.key) }
            answer = RACP.response(RACP.deleteRecords, RACP.success)
        case .report(let sequences):
            guard case .connected(let attempt) = object.link else { return }
            memory.generation &+= 1
            memory.transfer = RecordMemory.Transfer(adapter: a, address: address, attempt: attempt, pending: sequences,
                                                    dropAfter: memory.dropAfterNext)
            memory.dropAfterNext = nil
            schedule(.records(.transfer(peripheral: id, generation: memory.generation)), after: memory.spec.pace)
        }
        peripherals[id]?.records = memory
        if let answer { indicate(adapter: a, address: address, handle: \.racpHandle, answer, effects: &effects) }
    }

    /// One paced step of a transfer: the next record, or the closing success; nothing once the link is gone.
    private mutating func transferStep(_ id: Int, generation: UInt64, effects: inout [BusEffect]) {
        guard var memory = peripherals[id]?.records, memory.generation == generation, var transfer = memory.transfer else { return }
        guard adapters[transfer.adapter].objects[transfer.address]?.link == .connected(attempt: transfer.attempt) else {
            // The link went mid-transfer: the meter stops; its records stay.
            memory.transfer = nil
            peripherals[id]?.records = memory
            return
        }
        if let limit = transfer.dropAfter, transfer.sent >= limit, !transfer.pending.isEmpty {
            memory.transfer = nil
            peripherals[id]?.records = memory
            tearDown(adapter: transfer.adapter, address: transfer.address, lost: true, effects: &effects)
            return
        }
        guard !transfer.pending.isEmpty else {
            memory.transfer = nil
            peripherals[id]?.records = memory
            indicate(adapter: transfer.adapter, address: transfer.address, handle: \.racpHandle,
                     RACP.response(RACP.reportRecords, RACP.success), effects: &effects)
            return
        }
        let sequence = transfer.pending.removeFirst()
        transfer.sent += 1
        memory.transfer = transfer
        peripherals[id]?.records = memory
        // A record deleted since the request (it cannot be: writes are refused meanwhile) would simply be skipped.
        if let record = memory.records.first(where: { $0.key == sequence }) {
            notifyRecord(adapter: transfer.adapter, address: transfer.address, memory.bytes(of: record), effects: &effects)
        }
        schedule(.records(.transfer(peripheral: id, generation: generation)), after: memory.spec.pace)
    }

    /// Applies a stored-record fault to the named meter; nil when there is no such device or it holds no records.
    public mutating func applyRecordFault(named name: String, _ fault: RecordFault) -> [BusEffect]? {
        guard let id = peripheralID(named: name), var memory = peripherals[id]?.records else { return nil }
        var effects: [BusEffect] = []
        switch fault {
        case .dropAfter(let k): memory.dropAfterNext = max(0, k)
        case .busy(let n): memory.busyWrites = max(0, n)
        case .clockDrift(let seconds): memory.spec.clockDrift = seconds
        case .quirks(let quirks): memory.spec.quirks = quirks
        case .sequenceReset:
            memory.reset(at: now)
            peripherals[id]?.records = memory
            // Taking the battery out powers the meter down: its links drop as on a supervision timeout.
            return dropLink(named: name) ?? []
        case .takeRecord:
            peripherals[id]?.records = memory
            _ = takeRecord(id, effects: &effects)
            return effects
        }
        peripherals[id]?.records = memory
        return effects
    }

    /// Takes one record now; its sequence number and the effects, nil without such a meter (or when it is full).
    public mutating func takeRecord(named name: String) -> (UInt16, [BusEffect])? {
        guard let id = peripheralID(named: name), peripherals[id]?.records != nil else { return nil }
        var effects: [BusEffect] = []
        return takeRecord(id, effects: &effects).map { ($0, effects) }
    }

    /// The 0x2A18 bytes of every record the named meter holds, in sequence order; nil without such a meter.
    public func storedRecords(named name: String) -> [[UInt8]]? {
        peripheralID(named: name).flatMap { peripherals[$0]?.records.map { memory in memory.records.map { memory.bytes(of: $0) } } }
    }
}

/// Timers of stored-record meters; a transfer's carries the procedure generation, so an aborted one does nothing.
enum RecordTimer: Sendable, Hashable {
    case take(peripheral: Int)
    case transfer(peripheral: Int, generation: UInt64)
}

/// Stored-record faults (scenario actions and control methods; docs/simulator.md).
public enum RecordFault: Sendable, Hashable {
    /// `racp-drop-after DEV K`: the link drops after K records of the next transfer.
    case dropAfter(Int)
    /// `racp-busy DEV N`: the next N RACP writes fail ATT 0xFE.
    case busy(Int)
    /// `sequence-reset DEV`: a battery change (memory cleared, numbering from 1, clock at factory time, link lost).
    case sequenceReset
    /// `clock-drift DEV S`: the meter's clock runs S seconds off simulator time from now on.
    case clockDrift(Int64)
    /// `racp DEV QUIRKS`: the meter's RACP quirks from now on (`none` clears them).
    case quirks(Set<RACPQuirk>)
    /// `take-record DEV`: the meter takes one record now.
    case takeRecord
}
