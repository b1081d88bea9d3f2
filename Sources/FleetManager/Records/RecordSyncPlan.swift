import FleetStore
import GATTProfiles

/// Which stored-record service a link offers for an RACP sync, and how a value on it is keyed in the outbox
/// (docs/records.md). Pure: the characteristics BlueZ resolved in, a decision out.
enum RecordSyncPlan {
    /// Record Access Control Point (GATT Specification Supplement §3.178; GLS v1.0.1 §3.4, CGMS v1.0.1 §3.8).
    static let controlPoint = AssignedNumber(0x2A52)

    /// The service whose measurement and RACP the link has, the RACP indicating (the records' answers come as
    /// indications, GLS §3.4). nil: nothing to sync (a meter without an RACP only notifies live values).
    static func offered(_ characteristics: [CharacteristicObject]) -> (service: StoredRecordService, controlPoint: CharacteristicObject)? {
        func find(_ number: AssignedNumber) -> CharacteristicObject? {
            characteristics.first { AssignedNumber(uuid: $0.uuid) == number }
        }
        guard let racp = find(controlPoint), racp.flags.contains("indicate"), racp.flags.contains("write") else { return nil }
        for service in StoredRecordService.all {
            if let measurement = find(service.measurement), measurement.flags.contains("notify") || measurement.flags.contains("indicate") {
                return (service, racp)
            }
        }
        return nil
    }

    /// The outbox key of a value on a stored-record measurement (the first record's, for a CGM value holding
    /// several): the same record sent again is then stored once, live or fetched. nil for any other value, and for
    /// a value too short to hold its key (stored raw with its decode error, never deduplicated).
    static func recordKey(characteristic uuid: String, value: [UInt8]) -> RecordKey? {
        guard let number = AssignedNumber(uuid: uuid),
              let service = StoredRecordService.all.first(where: { $0.measurement == number }),
              let first = try? service.records(in: value, on: number).first else { return nil }
        return RecordKey(service: service.service.rawValue, key: first.key)
    }
}

extension RecordSyncMemory {
    /// What the store kept of the last syncs, as the next one starts from it.
    init(_ row: DeviceRecordMark) {
        self.init(mark: row.markKey.map { RecordMark(key: $0, anchor: row.anchor ?? []) }, storedOnDevice: row.storedOnDevice,
                  greaterOrEqualUnsupported: row.greaterOrEqualUnsupported)
    }
}
