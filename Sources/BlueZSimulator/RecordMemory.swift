/// The server side of a stored-record glucose meter or CGM: the records it holds, its clock, and the RACP procedure
/// it is running. Lives on the peripheral, not the link: the memory outlasts every connection.
struct RecordMemory: Sendable {
    /// A Glucose meter (GLS: records keyed by sequence number, stamped by the clock) or a CGM (CGMS: keyed by time
    /// offset, minutes since the session started).
    enum Kind: Sendable, Hashable { case glucose, cgm }

    struct Record: Sendable, Hashable {
        /// The RACP filter key: the sequence number (GLS §3.4.1) or the time offset (CGMS §3.8.1).
        var key: UInt16
        /// The meter's clock when it was taken, Unix seconds (glucose only).
        var time: Int64
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
    var kind: Kind
    /// The CGM session's number: 0, then one more on each reset (a new sensor session).
    var session = 0
    var measurementHandle: UInt16
    var racpHandle: UInt16
    var records: [Record] = []
    /// The next sequence number; on a CGM, the session's minute at `clockSetAt`.
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

    /// nil when the table has no Glucose (or CGM) service with both its measurement and the RACP 0x2A52.
    init?(spec: StoredRecordsSpec, table: GattTable, now: Duration) {
        guard let found = Self.kinds.lazy.compactMap({ kind, uuid in table.services.first { $0.uuid == uuid }.map { (kind, $0) } }).first else {
            return nil
        }
        let (kind, service) = found
        guard let measurement = service.characteristics.first(where: { $0.spec.uuid == Self.measurement(kind) }),
              let racp = service.characteristics.first(where: { $0.spec.uuid == Self.racpUUID }) else { return nil }
        self.spec = spec
        self.kind = kind
        measurementHandle = measurement.handle
        racpHandle = racp.handle
        // The last preloaded record was taken a minute before the device appeared.
        clockBase = GlucoseRecords.preloadEpoch + Int64(spec.count) * 60
        clockSetAt = now
        switch kind {
        case .glucose:
            records = (0..<min(spec.count, 65_535)).map {
                let sequence = UInt16($0 + 1)
                return Record(key: sequence, time: GlucoseRecords.preloadedTime(sequence: sequence, drift: spec.clockDrift))
            }
            nextSequence = records.count + 1
        case .cgm:
            // One record a minute, time offsets 0…N−1: the session began N minutes before the device appeared.
            records = (0..<min(spec.count, 65_536)).map { Record(key: UInt16($0), time: 0) }
            nextSequence = records.count
        }
    }

    static let glucoseService = "00001808-0000-1000-8000-00805f9b34fb"
    static let cgmService = "0000181f-0000-1000-8000-00805f9b34fb"
    static let measurementUUID = "00002a18-0000-1000-8000-00805f9b34fb"
    static let cgmMeasurementUUID = "00002aa7-0000-1000-8000-00805f9b34fb"
    static let racpUUID = "00002a52-0000-1000-8000-00805f9b34fb"
    static let kinds: [(Kind, String)] = [(.glucose, glucoseService), (.cgm, cgmService)]
    static func measurement(_ kind: Kind) -> String { kind == .glucose ? measurementUUID : cgmMeasurementUUID }

    /// The measurement value a record is sent as.
    func bytes(of record: Record) -> [UInt8] {
        switch kind {
        case .glucose: GlucoseRecords.record(sequence: record.key, time: record.time)
        case .cgm: GlucoseRecords.cgmRecord(timeOffset: record.key, session: session)
        }
    }

    func clock(at now: Duration) -> Int64 {
        clockBase + (now - clockSetAt).components.seconds + spec.clockDrift
    }

    /// Takes the next record, stamped by the meter's clock; nil once sequence numbers run out (uint16).
    /// No two records share a stamp: one taken within the second of the last is stamped a second later.
    /// A CGM's record is keyed by the session's minute, and no two share one (a second in a minute is a minute on).
    mutating func take(at now: Duration) -> Record? {
        if kind == .cgm {
            var offset = nextSequence + Int((now - clockSetAt).components.seconds / 60)
            if let last = records.last, offset <= Int(last.key) { offset = Int(last.key) + 1 }
            guard offset <= 65_535 else { return nil }
            records.append(Record(key: UInt16(offset), time: 0))
            return records.last
        }
        guard nextSequence <= 65_535 else { return nil }
        var time = clock(at: now)
        if let last = records.last, time <= last.time { time = last.time + 1 }
        let record = Record(key: UInt16(nextSequence), time: time)
        records.append(record)
        nextSequence += 1
        return record
    }

    /// A battery change: memory cleared, numbering from 1, the clock back at its factory time. On a CGM, a new
    /// session: time offsets from 0 again.
    mutating func reset(at now: Duration) {
        records.removeAll()
        nextSequence = kind == .glucose ? 1 : 0
        session += 1
        clockBase = GlucoseRecords.factoryClock
        clockSetAt = now
        transfer = nil
        generation &+= 1
    }
}
