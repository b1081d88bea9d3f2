import FoundationEssentials
import GATTProfiles

/// One value a device sent, in the form the broker publisher needs: the mapping target for the outbox's
/// stored reading (issue 16). Published as JSON (``jsonPayload``, `docs/mqtt-reading.schema.json`) on
/// `<prefix>/<gateway>/<device>/<characteristic>`.
///
/// Two counters, two purposes:
/// - ``cursor`` is the source's global position: strictly increasing over all devices, not necessarily without
///   gaps (retention may drop). The publish pump acknowledges the source up to a cursor.
/// - ``sequence`` is per device and without gaps: a consumer that has seen `seq` n of a device and receives n
///   again knows it is a duplicate (MQTT QoS 1 is at-least-once), and n+2 tells it that n+1 is missing.
public struct BrokerReading: Sendable, Hashable {
    /// How the value arrived.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case notification
        case indication
        /// A value read on request.
        case read
    }

    public var cursor: Int64
    /// The device's fleet identity id (a topic level: see ``TopicSegment``).
    public var device: String
    /// The characteristic's UUID as text (a topic level).
    public var characteristic: String
    /// Per-device sequence number, no gaps within one ``epoch``.
    public var sequence: Int64
    /// The outbox's numbering `sequence` belongs to (a fresh outbox, or a run that ended with the machine, starts
    /// a new one): a consumer compares `seq` only within one epoch.
    public var epoch: Int64
    public var kind: Kind
    /// Monotonic arrival time (CLOCK_MONOTONIC / BOOTTIME since the gateway booted), when known: orders
    /// readings of one gateway boot exactly, immune to wall-clock steps.
    public var monotonicNanoseconds: UInt64?
    /// Wall-clock arrival time, published as RFC 3339 UTC with milliseconds.
    public var wallTime: Date
    /// The link session the value came on (a counter of the device's connections).
    public var session: Int64
    /// The value's bytes, published as lowercase hex.
    public var value: [UInt8]
    /// What the characteristic's profile decoder made of `value` (published as `observations` or `decodeError`);
    /// nil for a characteristic fleetd does not decode, or a device configured `profile = none`.
    public var decoded: DecodedValue?

    public init(cursor: Int64, device: String, characteristic: String, sequence: Int64, epoch: Int64 = 1, kind: Kind = .notification,
                monotonicNanoseconds: UInt64? = nil, wallTime: Date, session: Int64, value: [UInt8], decoded: DecodedValue? = nil) {
        self.cursor = cursor
        self.device = device
        self.characteristic = characteristic
        self.sequence = sequence
        self.epoch = epoch
        self.kind = kind
        self.monotonicNanoseconds = monotonicNanoseconds
        self.wallTime = wallTime
        self.session = session
        self.value = value
        self.decoded = decoded
    }
}
