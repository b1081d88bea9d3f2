/// The reply of `Connect`: where the device stands now and whom admission evicted, if anyone.
public struct ConnectOutcome: Sendable, Equatable {
    /// Identity id of the device.
    public var device: String
    /// State after the request, e.g. `connecting` or `ready`.
    public var state: String
    /// Identity id of a device that lost its slot to this one.
    public var evicted: String?
    /// A sentence for the operator, e.g. "evicted lamp-3 (class background) from hci0 to make room".
    public var note: String?

    public init(device: String, state: String, evicted: String? = nil, note: String? = nil) {
        self.device = device
        self.state = state
        self.evicted = evicted
        self.note = note
    }

    public var json: [String: JSONValue] {
        ["device": .string(device), "state": .string(state), "evicted": .optional(evicted), "note": .optional(note)]
    }

    public init(reading reader: ParameterReader) throws(VarlinkError) {
        device = try reader.string("device")
        state = try reader.string("state")
        evicted = try reader.optionalString("evicted")
        note = try reader.optionalString("note")
    }
}

/// The reply of `Disconnect`.
public struct DisconnectOutcome: Sendable, Equatable {
    public var device: String
    public var state: String

    public init(device: String, state: String) {
        self.device = device
        self.state = state
    }

    public var json: [String: JSONValue] { ["device": .string(device), "state": .string(state)] }

    public init(reading reader: ParameterReader) throws(VarlinkError) {
        device = try reader.string("device")
        state = try reader.string("state")
    }
}

/// The reply of `Evict`: the slot is free and the device retries after `holdOffSeconds`.
public struct EvictOutcome: Sendable, Equatable {
    public var device: String
    public var holdOffSeconds: Double

    public init(device: String, holdOffSeconds: Double) {
        self.device = device
        self.holdOffSeconds = holdOffSeconds
    }

    public var json: [String: JSONValue] { ["device": .string(device), "holdOffSeconds": .number(holdOffSeconds)] }

    public init(reading reader: ParameterReader) throws(VarlinkError) {
        device = try reader.string("device")
        holdOffSeconds = try reader.double("holdOffSeconds")
    }
}
