/// One device of the fleet as `ListDevices` and `ShowDevice` report it.
public struct DeviceInfo: Sendable, Equatable {
    /// Stable identity id (what `DeviceReference` matches exactly or by prefix).
    public var id: String
    public var displayName: String
    /// Supervisor state name, e.g. `ready`, `connecting`, `backingOff`, `failed`.
    public var state: String
    /// Adapter holding the device's slot, if any.
    public var adapter: String?
    /// Current Bluetooth address, if known (private addresses rotate).
    public var address: String?
    public var rssi: Int?
    /// Seconds since the device was last heard from; nil when never seen.
    public var lastSeenSecondsAgo: Double?
    /// Attempt number within the current connection cycle.
    public var attempt: Int
    /// Seconds until the next connection attempt, when backing off.
    public var nextRetryInSeconds: Double?
    public var policyClass: String

    public init(id: String, displayName: String, state: String, adapter: String? = nil, address: String? = nil,
                rssi: Int? = nil, lastSeenSecondsAgo: Double? = nil, attempt: Int = 0,
                nextRetryInSeconds: Double? = nil, policyClass: String) {
        self.id = id
        self.displayName = displayName
        self.state = state
        self.adapter = adapter
        self.address = address
        self.rssi = rssi
        self.lastSeenSecondsAgo = lastSeenSecondsAgo
        self.attempt = attempt
        self.nextRetryInSeconds = nextRetryInSeconds
        self.policyClass = policyClass
    }

    public var json: [String: JSONValue] {
        ["id": .string(id), "displayName": .string(displayName), "state": .string(state),
         "adapter": .optional(adapter), "address": .optional(address), "rssi": .optional(rssi),
         "lastSeenSecondsAgo": .optional(lastSeenSecondsAgo), "attempt": .int(attempt),
         "nextRetryInSeconds": .optional(nextRetryInSeconds), "policyClass": .string(policyClass)]
    }

    public init(reading reader: ParameterReader) throws(VarlinkError) {
        id = try reader.string("id")
        displayName = try reader.string("displayName")
        state = try reader.string("state")
        adapter = try reader.optionalString("adapter")
        address = try reader.optionalString("address")
        rssi = try reader.optionalInt("rssi")
        lastSeenSecondsAgo = try reader.optionalDouble("lastSeenSecondsAgo")
        attempt = try reader.int("attempt")
        nextRetryInSeconds = try reader.optionalDouble("nextRetryInSeconds")
        policyClass = try reader.string("policyClass")
    }
}

extension DeviceInfo: ReferableDevice {}
