import GATTProfiles

/// The reply of `Connect`: where the device stands now and whom admission evicted, if anyone.
public struct ConnectOutcome: Sendable, Equatable, Codable {
    /// Identity id of the device.
    public var device: String
    /// State after the request, e.g. `connecting` or `ready`.
    public var state: DeviceState
    /// Identity id of a device that lost its slot to this one.
    public var evicted: String?
    /// A sentence for the operator: the eviction when there was one ("evicted lamp-3 … to make room"),
    /// otherwise what happens next ("… is wanted and waiting for a slot").
    public var note: String?

    public init(device: String, state: DeviceState, evicted: String? = nil, note: String? = nil) {
        self.device = device
        self.state = state
        self.evicted = evicted
        self.note = note
    }
}

/// The reply of `Disconnect`.
public struct DisconnectOutcome: Sendable, Equatable, Codable {
    public var device: String
    public var state: DeviceState

    public init(device: String, state: DeviceState) {
        self.device = device
        self.state = state
    }
}

/// The reply of `Evict`: the slot is free and the device retries after `holdOffSeconds`.
public struct EvictOutcome: Sendable, Equatable, Codable {
    public var device: String
    public var holdOffSeconds: Double

    public init(device: String, holdOffSeconds: Double) {
        self.device = device
        self.holdOffSeconds = holdOffSeconds
    }
}

/// The reply of `Forget`: the identity id forgotten.
public struct ForgetOutcome: Sendable, Equatable, Codable {
    public var device: String

    public init(device: String) { self.device = device }
}

/// The reply of `SetPolicy`.
public struct SetPolicyOutcome: Sendable, Equatable, Codable {
    public var device: String
    public var policyClass: String

    public init(device: String, policyClass: String) {
        self.device = device
        self.policyClass = policyClass
    }
}

/// The reply of `Read`: the characteristic's value (lowercase hex on the wire), and what its profile decoder made of it.
public struct ReadOutcome: Sendable, Equatable, Codable {
    public var value: [UInt8]
    public var decoded: DecodedValue?

    public init(value: [UInt8], decoded: DecodedValue? = nil) {
        self.value = value
        self.decoded = decoded
    }

    private enum CodingKeys: String, CodingKey { case value, observations, decodeError }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decodeHex(forKey: .value)
        decoded = try container.decodeDecoded(observations: .observations, error: .decodeError)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(HexBytes.encode(value), forKey: .value)
        try container.encodeDecoded(decoded, observations: .observations, error: .decodeError)
    }
}

/// The reply of `Write`, which has no parameters.
public struct WriteOutcome: Sendable, Equatable, Codable {
    public init() {}
}

/// The reply of `Reload`: a one-line summary of what changed.
public struct ReloadOutcome: Sendable, Equatable, Codable {
    public var summary: String

    public init(summary: String) { self.summary = summary }
}

/// The reply of `Metrics`: Prometheus text exposition.
public struct MetricsText: Sendable, Equatable, Codable {
    public var text: String

    public init(text: String) { self.text = text }
}

/// The reply of `Pair` and `Unpair`: where the device stands now, and a sentence saying what happens next.
public struct PairingOutcomeReply: Sendable, Equatable, Codable {
    public var device: String
    public var state: DeviceState
    public var note: String

    public init(device: String, state: DeviceState, note: String) {
        self.device = device
        self.state = state
        self.note = note
    }
}
