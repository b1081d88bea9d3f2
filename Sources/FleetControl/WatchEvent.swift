import Foundation

/// One entry of the `Watch` stream: a lifecycle change or a notified characteristic value.
public struct WatchEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// The device entered `state`.
        case lifecycle(state: String)
        /// The device notified `value` on `characteristic`.
        case notification(characteristic: String, value: [UInt8])
    }

    /// Strictly increasing per daemon run, so a client can spot gaps.
    public var sequence: Int
    /// When it happened (wall clock; sent as ISO-8601 UTC).
    public var time: Date
    /// Identity id of the device.
    public var device: String
    public var kind: Kind
    /// One line for humans.
    public var text: String

    public init(sequence: Int, time: Date, device: String, kind: Kind, text: String) {
        self.sequence = sequence
        self.time = time
        self.device = device
        self.kind = kind
        self.text = text
    }

    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    public var json: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "sequence": .int(sequence), "time": .string(time.formatted(Self.timeFormat)),
            "device": .string(device), "text": .string(text),
            "state": .null, "characteristic": .null, "value": .null,
        ]
        switch kind {
        case .lifecycle(let state):
            members["kind"] = .string("lifecycle")
            members["state"] = .string(state)
        case .notification(let characteristic, let value):
            members["kind"] = .string("notification")
            members["characteristic"] = .string(characteristic)
            members["value"] = .string(HexBytes.encode(value))
        }
        return members
    }

    public init(reading reader: ParameterReader) throws(VarlinkError) {
        sequence = try reader.int("sequence")
        let timeText = try reader.string("time")
        guard let time = try? Self.timeFormat.parse(timeText) else { throw .invalidParameter(reader.path + ".time") }
        self.time = time
        device = try reader.string("device")
        text = try reader.string("text")
        switch try reader.string("kind") {
        case "lifecycle":
            kind = .lifecycle(state: try reader.string("state"))
        case "notification":
            let valueText = try reader.string("value")
            guard let value = HexBytes.decode(valueText) else { throw .invalidParameter(reader.path + ".value") }
            kind = .notification(characteristic: try reader.string("characteristic"), value: value)
        default:
            throw .invalidParameter(reader.path.isEmpty ? "kind" : reader.path + ".kind")
        }
    }
}
