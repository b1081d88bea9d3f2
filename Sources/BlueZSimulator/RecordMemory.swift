/// The server side of a stored-record glucose meter: the records it holds, its clock, and the RACP procedure it
/// is running. Lives on the peripheral, not the link: the memory outlasts every connection.
struct RecordMemory: Sendable {
    struct Record: Sendable, Hashable {
        var sequence: UInt16
        /// The meter's clock when it was taken, Unix seconds.
        var time: Int64
        var bytes: [UInt8] { GlucoseRecords.record(sequence: sequence, time: time) }
    }

    /// A Report Stored Records transfer in progress, bound to the link it was asked on.
    struct Transfer: Sendable, Hashable {
        var adapter: Int
        var address: BluetoothAddress
        var attempt: UInt64
        var pending: [UInt16]
        var sent = 0
        /// The link drops once this many records of this transfer are out (`racp-drop-after`).
        var dropAfter: Int?
    }

    var spec: StoredRecordsSpec
    var measurementHandle: UInt16
    var racpHandle: UInt16
    var records: [Record] = []
    var nextSequence = 1
    /// The meter's clock read `clockBase` at simulator time `clockSetAt` (drift comes on top).
    var clockBase: Int64
    var clockSetAt: Duration
    var transfer: Transfer?
    /// Bumped on every new procedure and abort, so a stale pacing timer does nothing.
    var generation: UInt64 = 0
    /// The next this-many RACP writes fail ATT 0xFE (`racp-busy`).
    var busyWrites = 0
    var dropAfterNext: Int?

    /// nil when the table has no Glucose service with both 0x2A18 and the RACP 0x2A52.
    init?(spec: StoredRecordsSpec, table: GattTable, now: Duration) {
        guard let service = table.services.first(where: { $0.uuid == Self.glucoseService }),
              let measurement = service.characteristics.first(where: { $0.spec.uuid == Self.measurementUUID }),
              let racp = service.characteristics.first(where: { $0.spec.uuid == Self.racpUUID }) else { return nil }
        self.spec = spec
        measurementHandle = measurement.handle
        racpHandle = racp.handle
        // The last preloaded record was taken a minute before the device appeared.
        clockBase = GlucoseRecords.preloadEpoch + Int64(spec.count) * 60
        clockSetAt = now
        records = (0..<min(spec.count, 65_535)).map {
            let sequence = UInt16($0 + 1)
            return Record(sequence: sequence, time: GlucoseRecords.preloadedTime(sequence: sequence, drift: spec.clockDrift))
        }
        nextSequence = records.count + 1
    }

    static let glucoseService = "00001808-0000-1000-8000-00805f9b34fb"
    static let measurementUUID = "00002a18-0000-1000-8000-00805f9b34fb"
    static let racpUUID = "00002a52-0000-1000-8000-00805f9b34fb"

    func clock(at now: Duration) -> Int64 {
        clockBase + (now - clockSetAt).components.seconds + spec.clockDrift
    }

    /// Takes the next record, stamped by the meter's clock; nil once sequence numbers run out (uint16).
    /// No two records share a stamp: one taken within the second of the last is stamped a second later.
    mutating func take(at now: Duration) -> Record? {
        guard nextSequence <= 65_535 else { return nil }
        var time = clock(at: now)
        if let last = records.last, time <= last.time { time = last.time + 1 }
        let record = Record(sequence: UInt16(nextSequence), time: time)
        records.append(record)
        nextSequence += 1
        return record
    }

    /// A battery change: memory cleared, numbering from 1, the clock back at its factory time.
    mutating func reset(at now: Duration) {
        records.removeAll()
        nextSequence = 1
        clockBase = GlucoseRecords.factoryClock
        clockSetAt = now
        transfer = nil
        generation &+= 1
    }
}
