/// `record_marks` rows (migration 7) to and from ``DeviceRecordMark``.
extension DeviceRecordMark {
    static let selectSQL = """
        SELECT device, service, mark_key, anchor, stored_on_device, ge_unsupported, last_sync_wall_ns, last_outcome,
               sequence_resets, duplicates FROM record_marks
        """

    init(row s: SQLiteStatement) throws(SQLiteError) {
        self.init(device: s.text(at: 0), service: UInt16(truncatingIfNeeded: s.int64(at: 1)),
                  markKey: s.isNull(at: 2) ? nil : UInt16(truncatingIfNeeded: s.int64(at: 2)),
                  anchor: s.isNull(at: 3) ? nil : s.blob(at: 3),
                  storedOnDevice: s.isNull(at: 4) ? nil : Int(s.int64(at: 4)),
                  greaterOrEqualUnsupported: s.int64(at: 5) != 0,
                  lastSyncWallNanoseconds: s.isNull(at: 6) ? nil : s.int64(at: 6),
                  lastOutcome: s.isNull(at: 7) ? nil : s.text(at: 7),
                  sequenceResets: s.int64(at: 8), duplicatesSuppressed: s.int64(at: 9))
    }

    /// Everything but `duplicates`, which the writer counts itself as it suppresses records.
    static let saveSQL = """
        INSERT INTO record_marks (device, service, mark_key, anchor, stored_on_device, ge_unsupported, last_sync_wall_ns,
                                  last_outcome, sequence_resets)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
        ON CONFLICT (device, service) DO UPDATE SET mark_key = excluded.mark_key, anchor = excluded.anchor,
            stored_on_device = excluded.stored_on_device, ge_unsupported = excluded.ge_unsupported,
            last_sync_wall_ns = excluded.last_sync_wall_ns, last_outcome = excluded.last_outcome,
            sequence_resets = excluded.sequence_resets
        """

    var saveValues: [SQLiteValue] {
        [.text(device), .integer(Int64(service)), markKey.map { .integer(Int64($0)) } ?? .null, anchor.map { .blob($0) } ?? .null,
         storedOnDevice.map { .integer(Int64($0)) } ?? .null, .integer(greaterOrEqualUnsupported ? 1 : 0),
         lastSyncWallNanoseconds.map { .integer($0) } ?? .null, lastOutcome.map { .text($0) } ?? .null, .integer(sequenceResets)]
    }

    static let countDuplicateSQL = """
        INSERT INTO record_marks (device, service, duplicates) VALUES (?1, ?2, 1)
        ON CONFLICT (device, service) DO UPDATE SET duplicates = duplicates + 1
        """

    static let keepRecordSQL = """
        INSERT INTO device_records (device, service, record_key, content, first_wall_ns) VALUES (?1, ?2, ?3, ?4, ?5)
        ON CONFLICT DO NOTHING
        """
}
