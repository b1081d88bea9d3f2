import FoundationEssentials
import GATTProfiles

/// One entry of the `Watch` stream: a lifecycle change, a link going down or coming back, or a notified value.
public struct WatchEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// The device entered `state`.
        case lifecycle(state: DeviceState)
        /// The link went down; the next lifecycle event says where the device went.
        case disconnected
        /// The link came back after a drop: values before and after belong to different connections.
        case reconnected
        /// The device notified `value` on `characteristic`.
        case notification(characteristic: String, value: [UInt8])
    }

    /// Strictly increasing within one stream, so a client can spot gaps: the daemon run's event number, or, in a
    /// Watch with `since` or `consumer`, the value's cursor.
    public var sequence: Int
    /// When it happened (wall clock; sent as ISO-8601 UTC).
    public var time: Date
    /// Identity id of the device.
    public var device: String
    public var kind: Kind
    /// One line for humans.
    public var text: String
    /// For a value read from fleetd's outbox (a Watch with `since` or `consumer`): its cursor, its per-device
    /// sequence number, its link session and how it arrived.
    public var stored: StoredPlace?
    /// For a value of a standard characteristic: what its profile decoder made of it (docs/observations.md).
    public var decoded: DecodedValue?

    public init(sequence: Int, time: Date, device: String, kind: Kind, text: String, stored: StoredPlace? = nil, decoded: DecodedValue? = nil) {
        self.sequence = sequence
        self.time = time
        self.device = device
        self.kind = kind
        self.text = text
        self.stored = stored
        self.decoded = decoded
    }
}

// The wire form is the interface's flat Event record: `kind` names the case, and only that case's members are sent.
extension WatchEvent: Codable {
    private enum CodingKeys: String, CodingKey { case sequence, time, device, kind, state, characteristic, value, text, cursor, deviceSequence, epoch, session, delivery, observations, decodeError }
    private enum KindName: String, Codable { case lifecycle, disconnected, reconnected, notification }

    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sequence = try container.decode(Int.self, forKey: .sequence)
        let timeText = try container.decode(String.self, forKey: .time)
        guard let time = try? Self.timeFormat.parse(timeText) else {
            throw DecodingError.dataCorruptedError(forKey: .time, in: container, debugDescription: "not an ISO-8601 time: \(timeText)")
        }
        self.time = time
        device = try container.decode(String.self, forKey: .device)
        text = try container.decode(String.self, forKey: .text)
        switch try container.decode(KindName.self, forKey: .kind) {
        case .lifecycle: kind = .lifecycle(state: try container.decode(DeviceState.self, forKey: .state))
        case .disconnected: kind = .disconnected
        case .reconnected: kind = .reconnected
        case .notification:
            kind = .notification(characteristic: try container.decode(String.self, forKey: .characteristic),
                                 value: try container.decodeHex(forKey: .value))
        }
        if let cursor = try container.decodeIfPresent(Int64.self, forKey: .cursor) {
            stored = StoredPlace(cursor: cursor, deviceSequence: try container.decode(Int64.self, forKey: .deviceSequence),
                                 epoch: try container.decode(Int64.self, forKey: .epoch),
                                 session: try container.decode(Int64.self, forKey: .session),
                                 delivery: try container.decode(ValueDelivery.self, forKey: .delivery))
        } else {
            stored = nil
        }
        decoded = try container.decodeDecoded(observations: .observations, error: .decodeError)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(time.formatted(Self.timeFormat), forKey: .time)
        try container.encode(device, forKey: .device)
        try container.encode(text, forKey: .text)
        switch kind {
        case .lifecycle(let state):
            try container.encode(KindName.lifecycle, forKey: .kind)
            try container.encode(state, forKey: .state)
        case .disconnected: try container.encode(KindName.disconnected, forKey: .kind)
        case .reconnected: try container.encode(KindName.reconnected, forKey: .kind)
        case .notification(let characteristic, let value):
            try container.encode(KindName.notification, forKey: .kind)
            try container.encode(characteristic, forKey: .characteristic)
            try container.encode(HexBytes.encode(value), forKey: .value)
        }
        if let stored {
            try container.encode(stored.cursor, forKey: .cursor)
            try container.encode(stored.deviceSequence, forKey: .deviceSequence)
            try container.encode(stored.epoch, forKey: .epoch)
            try container.encode(stored.session, forKey: .session)
            try container.encode(stored.delivery, forKey: .delivery)
        }
        try container.encodeDecoded(decoded, observations: .observations, error: .decodeError)
    }
}

/// One reply of a `Watch` stream.
public struct WatchUpdate: Sendable, Equatable, Codable {
    public var event: WatchEvent

    public init(event: WatchEvent) { self.event = event }
}
