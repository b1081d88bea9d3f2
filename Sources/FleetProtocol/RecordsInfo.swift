import FoundationEssentials

/// The reply of `Records`: what fleetd keeps of one device's stored-record services (glucose meters, CGMs;
/// docs/records.md), one entry per service it has synced.
public struct RecordsInfo: Sendable, Equatable, Codable {
    public var device: String
    public var services: [RecordServiceInfo]

    public init(device: String, services: [RecordServiceInfo]) {
        self.device = device
        self.services = services
    }
}

public struct RecordServiceInfo: Sendable, Equatable, Codable {
    /// `glucose` or `cgm`.
    public var service: String
    /// The highest record known stored with nothing missing below it (sequence number or time offset).
    public var mark: Int?
    /// The number of records the device said it held at its last sync.
    public var storedOnDevice: Int?
    /// When the last sync ended (wall clock; sent as ISO-8601 UTC).
    public var lastSync: Date?
    /// How it ended: complete, no-records, incomplete, stalled, link-lost, busy, indications-refused, refused-CODE,
    /// write-failed-NAME.
    public var lastOutcome: String?
    /// Records the outbox did not store again because it held them.
    public var duplicatesSuppressed: Int64
    /// Syncs that found the device numbering from scratch.
    public var sequenceResets: Int64
    /// The device refused "greater than or equal": every sync asks for all records.
    public var greaterOrEqualUnsupported: Bool
    /// A sync is running on the device's link now.
    public var syncing: Bool

    public init(service: String, mark: Int?, storedOnDevice: Int?, lastSync: Date?, lastOutcome: String?, duplicatesSuppressed: Int64,
                sequenceResets: Int64, greaterOrEqualUnsupported: Bool, syncing: Bool) {
        self.service = service
        self.mark = mark
        self.storedOnDevice = storedOnDevice
        self.lastSync = lastSync
        self.lastOutcome = lastOutcome
        self.duplicatesSuppressed = duplicatesSuppressed
        self.sequenceResets = sequenceResets
        self.greaterOrEqualUnsupported = greaterOrEqualUnsupported
        self.syncing = syncing
    }
}
