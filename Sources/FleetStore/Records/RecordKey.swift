/// Which record of a device a reading is, for a device that keeps records and may send one again (a glucose meter
/// or CGM asked through its RACP, docs/records.md): the service that keys it and the device's own key (GLS sequence
/// number, CGMS time offset). The outbox stores a reading with a key once per (device, service, key, bytes): the
/// same record sent again — a re-sync, a meter that uploads its whole history, a link dropped mid-transfer — is
/// suppressed and counted; a record with the same key and other bytes (a meter that numbers from 1 again after a
/// battery change) is a new record and is stored.
public struct RecordKey: Sendable, Hashable {
    /// The 16-bit SIG service number (0x1808 glucose, 0x181F CGM).
    public var service: UInt16
    public var key: UInt16

    public init(service: UInt16, key: UInt16) {
        self.service = service
        self.key = key
    }
}

/// What the store keeps of one device's stored-record service between syncs: the mark (the highest record known
/// committed with nothing missing below it) with its anchor bytes, what the device said it holds, whether it
/// refused "≥", how the last sync went, and the duplicates the outbox suppressed.
public struct DeviceRecordMark: Sendable, Hashable {
    public var device: String
    public var service: UInt16
    public var markKey: UInt16?
    public var anchor: [UInt8]?
    public var storedOnDevice: Int?
    public var greaterOrEqualUnsupported: Bool
    /// Wall-clock nanoseconds when the last sync ended.
    public var lastSyncWallNanoseconds: Int64?
    /// How it ended (`complete`, `link-lost`, `refused-…`: ``RecordSyncResult`` as text).
    public var lastOutcome: String?
    /// Times a sync found the device numbering from scratch (memory cleared, battery change).
    public var sequenceResets: Int64
    /// Records the outbox did not store because it held them already (kept by the writer).
    public var duplicatesSuppressed: Int64

    public init(device: String, service: UInt16, markKey: UInt16? = nil, anchor: [UInt8]? = nil, storedOnDevice: Int? = nil,
                greaterOrEqualUnsupported: Bool = false, lastSyncWallNanoseconds: Int64? = nil, lastOutcome: String? = nil,
                sequenceResets: Int64 = 0, duplicatesSuppressed: Int64 = 0) {
        self.device = device
        self.service = service
        self.markKey = markKey
        self.anchor = anchor
        self.storedOnDevice = storedOnDevice
        self.greaterOrEqualUnsupported = greaterOrEqualUnsupported
        self.lastSyncWallNanoseconds = lastSyncWallNanoseconds
        self.lastOutcome = lastOutcome
        self.sequenceResets = sequenceResets
        self.duplicatesSuppressed = duplicatesSuppressed
    }

    struct ID: Hashable, Sendable {
        var device: String
        var service: UInt16
    }

    var id: ID { ID(device: device, service: service) }
}
