/// How a value arrived from a device.
public enum ReadingKind: String, Sendable, Hashable, CaseIterable {
    case notification
    case indication
    case read
}

/// A value as it arrives from a device, before the outbox numbers it.
public struct Reading: Sendable, Equatable {
    /// The device's fleet id.
    public var device: String
    /// The characteristic's UUID (lowercase, 128-bit).
    public var characteristic: String
    public var kind: ReadingKind
    public var value: [UInt8]
    /// CLOCK_MONOTONIC nanoseconds at arrival: orders readings within one boot.
    public var monotonicNanoseconds: Int64
    /// Wall-clock nanoseconds since the Unix epoch at arrival.
    public var wallNanoseconds: Int64
    /// The link session the value came from (a new one per connection of the device).
    public var session: Int64
    /// Set for a device's stored record: the outbox keeps one reading per record (``RecordKey``).
    public var record: RecordKey?

    public init(device: String, characteristic: String, kind: ReadingKind, value: [UInt8],
                monotonicNanoseconds: Int64, wallNanoseconds: Int64, session: Int64, record: RecordKey? = nil) {
        self.device = device
        self.characteristic = characteristic
        self.kind = kind
        self.value = value
        self.monotonicNanoseconds = monotonicNanoseconds
        self.wallNanoseconds = wallNanoseconds
        self.session = session
        self.record = record
    }

    /// The stored-size estimate retention by bytes counts: the value, the two names and a fixed row overhead.
    var storedBytes: Int { value.count + device.utf8.count + characteristic.utf8.count + StoredReading.rowOverheadBytes }
}

/// A reading as committed to the outbox: numbered per device and globally.
public struct StoredReading: Sendable, Equatable {
    /// The global id: the cursor a consumer acknowledges. Increases with every committed reading, never reused.
    public var id: Int64
    /// The per-device sequence number: 1, 2, 3… with no gap, across restarts.
    public var seq: Int64
    /// The numbering `seq` belongs to (``OutboxEpoch``): compare two readings' `seq` only when their epochs match.
    public var epoch: Int64
    public var reading: Reading

    public init(id: Int64, seq: Int64, epoch: Int64, reading: Reading) {
        self.id = id
        self.seq = seq
        self.epoch = epoch
        self.reading = reading
    }

    public var device: String { reading.device }

    /// Integers, the kind and record header of one row, for the byte-size estimate (measured: ~30–40 bytes).
    static let rowOverheadBytes = 40
}

/// Which devices a replay or a follower wants; nil filters mean every device.
public struct DeviceFilter: Sendable, Equatable {
    public var devices: Set<String>
    public init(_ devices: Set<String>) { self.devices = devices }
    public init(device: String) { self.devices = [device] }
    public func contains(_ device: String) -> Bool { devices.contains(device) }
}
