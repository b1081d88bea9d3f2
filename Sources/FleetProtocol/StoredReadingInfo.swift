import FoundationEssentials
import GATTProfiles

/// How a stored value arrived from its device.
public enum ValueDelivery: String, Sendable, Equatable, Codable, CaseIterable {
    case notification
    case indication
    /// Read by fleetd when the link came up (the device's `read =` list).
    case read
}

/// Where a value sits in fleetd's outbox: what a durable `Watch` and `Readings` add to a value.
public struct StoredPlace: Sendable, Equatable {
    /// The global cursor: increases with every stored value of any device. Pass it as `since`, or acknowledge it.
    public var cursor: Int64
    /// The value's number among its device's values: 1, 2, 3… with no gap within its ``epoch``.
    public var deviceSequence: Int64
    /// The outbox's numbering `deviceSequence` belongs to: a new epoch (a fresh outbox, or a run that ended with
    /// the machine) may number a device from where it restarted, so compare numbers only within one epoch.
    public var epoch: Int64
    /// The link session (connection) the value came from.
    public var session: Int64
    public var delivery: ValueDelivery

    public init(cursor: Int64, deviceSequence: Int64, epoch: Int64, session: Int64, delivery: ValueDelivery) {
        self.cursor = cursor
        self.deviceSequence = deviceSequence
        self.epoch = epoch
        self.session = session
        self.delivery = delivery
    }
}

/// One value as the outbox stores it: the `Reading` record of `Readings`.
public struct StoredReadingInfo: Sendable, Equatable, Codable {
    public var cursor: Int64
    public var deviceSequence: Int64
    /// See ``StoredPlace/epoch``.
    public var epoch: Int64
    public var characteristic: String
    public var delivery: ValueDelivery
    public var value: [UInt8]
    /// Wall-clock time of arrival (sent as ISO-8601 UTC).
    public var time: Date
    public var session: Int64
    /// What the value's profile decoder made of it, for a standard characteristic (decoded when read out).
    public var decoded: DecodedValue?

    public init(cursor: Int64, deviceSequence: Int64, epoch: Int64, characteristic: String, delivery: ValueDelivery, value: [UInt8], time: Date,
                session: Int64, decoded: DecodedValue? = nil) {
        self.cursor = cursor
        self.deviceSequence = deviceSequence
        self.epoch = epoch
        self.characteristic = characteristic
        self.delivery = delivery
        self.value = value
        self.time = time
        self.session = session
        self.decoded = decoded
    }

    private enum CodingKeys: String, CodingKey { case cursor, deviceSequence, epoch, characteristic, delivery, value, time, session, observations, decodeError }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cursor = try container.decode(Int64.self, forKey: .cursor)
        deviceSequence = try container.decode(Int64.self, forKey: .deviceSequence)
        epoch = try container.decode(Int64.self, forKey: .epoch)
        characteristic = try container.decode(String.self, forKey: .characteristic)
        delivery = try container.decode(ValueDelivery.self, forKey: .delivery)
        value = try container.decodeHex(forKey: .value)
        time = try container.decodeISOTime(forKey: .time)
        session = try container.decode(Int64.self, forKey: .session)
        decoded = try container.decodeDecoded(observations: .observations, error: .decodeError)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cursor, forKey: .cursor)
        try container.encode(deviceSequence, forKey: .deviceSequence)
        try container.encode(epoch, forKey: .epoch)
        try container.encode(characteristic, forKey: .characteristic)
        try container.encode(delivery, forKey: .delivery)
        try container.encode(HexBytes.encode(value), forKey: .value)
        try container.encode(time.formatted(ISOTime.format), forKey: .time)
        try container.encode(session, forKey: .session)
        try container.encodeDecoded(decoded, observations: .observations, error: .decodeError)
    }
}

/// Values that retention dropped before they were read: cursors `firstCursor…lastCursor`, of any device.
public struct LostReadings: Sendable, Equatable, Codable, CustomStringConvertible {
    public var firstCursor: Int64
    public var lastCursor: Int64

    public init(firstCursor: Int64, lastCursor: Int64) {
        self.firstCursor = firstCursor
        self.lastCursor = lastCursor
    }

    public var count: Int64 { lastCursor - firstCursor + 1 }
    public var description: String { "values \(firstCursor)…\(lastCursor) (\(count)) were dropped by retention before they were read" }
}

/// The reply of `Readings`: one device's stored values, oldest first.
public struct ReadingsPage: Sendable, Equatable, Codable {
    /// Identity id of the device.
    public var device: String
    public var readings: [StoredReadingInfo]
    /// The cursor to pass as `since` for the next page.
    public var next: Int64
    /// Set when `since` was older than what the outbox keeps.
    public var lost: LostReadings?

    public init(device: String, readings: [StoredReadingInfo], next: Int64, lost: LostReadings? = nil) {
        self.device = device
        self.readings = readings
        self.next = next
        self.lost = lost
    }
}

/// The reply of `Acknowledge`: the consumer's cursor now in effect (never lower than before).
public struct AcknowledgeOutcome: Sendable, Equatable, Codable {
    public var consumer: String
    public var cursor: Int64

    public init(consumer: String, cursor: Int64) {
        self.consumer = consumer
        self.cursor = cursor
    }
}

/// The wire's time format: ISO-8601 UTC with fractional seconds.
enum ISOTime {
    static let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}

extension KeyedDecodingContainer {
    func decodeISOTime(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let time = try? ISOTime.format.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an ISO-8601 time: \(text)")
        }
        return time
    }
}
