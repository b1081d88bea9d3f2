// The reply values' hand-written encode and decode, as they were before the protocol adopted Codable: each
// DTO to and from `HandJSON` member by member, and the varlink reply envelope around it.
import FleetProtocol
import Foundation

enum HandWritten {
    static func json(_ device: DeviceInfo) -> [String: HandJSON] {
        ["id": .string(device.id), "displayName": .string(device.displayName), "state": .string(device.state.rawValue),
         "adapter": .optional(device.adapter), "address": .optional(device.address), "rssi": .optional(device.rssi),
         "lastSeenSecondsAgo": .optional(device.lastSeenSecondsAgo), "attempt": .int(device.attempt),
         "nextRetryInSeconds": .optional(device.nextRetryInSeconds), "policyClass": .string(device.policyClass)]
    }

    static func device(_ reader: HandReader) throws(HandReadError) -> DeviceInfo {
        guard let state = DeviceState(rawValue: try reader.string("state")) else { throw .invalidParameter(reader.path + ".state") }
        return DeviceInfo(id: try reader.string("id"), displayName: try reader.string("displayName"), state: state,
                          adapter: try reader.optionalString("adapter"), address: try reader.optionalString("address"),
                          rssi: try reader.optionalInt("rssi"), lastSeenSecondsAgo: try reader.optionalDouble("lastSeenSecondsAgo"),
                          attempt: try reader.int("attempt"), nextRetryInSeconds: try reader.optionalDouble("nextRetryInSeconds"),
                          policyClass: try reader.string("policyClass"))
    }

    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func json(_ event: WatchEvent) -> [String: HandJSON] {
        var members: [String: HandJSON] = [
            "sequence": .int(event.sequence), "time": .string(event.time.formatted(timeFormat)),
            "device": .string(event.device), "text": .string(event.text),
            "state": .null, "characteristic": .null, "value": .null,
        ]
        switch event.kind {
        case .lifecycle(let state):
            members["kind"] = .string("lifecycle")
            members["state"] = .string(state.rawValue)
        case .disconnected: members["kind"] = .string("disconnected")
        case .reconnected: members["kind"] = .string("reconnected")
        case .notification(let characteristic, let value):
            members["kind"] = .string("notification")
            members["characteristic"] = .string(characteristic)
            members["value"] = .string(HexBytes.encode(value))
        }
        return members
    }

    static func event(_ reader: HandReader) throws(HandReadError) -> WatchEvent {
        let sequence = try reader.int("sequence")
        guard let time = try? timeFormat.parse(try reader.string("time")) else { throw .invalidParameter(reader.path + ".time") }
        let device = try reader.string("device")
        let text = try reader.string("text")
        let kind: WatchEvent.Kind
        switch try reader.string("kind") {
        case "lifecycle":
            guard let state = DeviceState(rawValue: try reader.string("state")) else { throw .invalidParameter(reader.path + ".state") }
            kind = .lifecycle(state: state)
        case "disconnected": kind = .disconnected
        case "reconnected": kind = .reconnected
        case "notification":
            guard let value = HexBytes.decode(try reader.string("value")) else { throw .invalidParameter(reader.path + ".value") }
            kind = .notification(characteristic: try reader.string("characteristic"), value: value)
        default: throw .invalidParameter(reader.path + ".kind")
        }
        return WatchEvent(sequence: sequence, time: time, device: device, kind: kind, text: text)
    }

    /// A reply frame: `{"parameters": …, "continues": true?}` and its NUL.
    static func frame(_ parameters: [String: HandJSON], continues: Bool = false) -> [UInt8] {
        var members: [String: HandJSON] = ["parameters": .object(parameters)]
        if continues { members["continues"] = .bool(true) }
        return HandJSON.object(members).serializedBytes + [0]
    }

    /// The parameters of a reply frame (without its NUL).
    static func parameters(_ frame: ArraySlice<UInt8>) throws -> HandReader {
        guard let members = try HandJSON.parse(frame).objectValue else { throw HandReadError.invalidParameter("") }
        return try HandReader(members["parameters"], path: "")
    }
}
