/// One device of the fleet as `ListDevices` and `ShowDevice` report it.
public struct DeviceInfo: Sendable, Equatable, Codable {
    /// Stable identity id (what a device reference matches exactly or by prefix).
    public var id: String
    public var displayName: String
    public var state: DeviceState
    /// Adapter holding the device's slot, if any.
    public var adapter: String?
    /// Current Bluetooth address, if known (private addresses rotate).
    public var address: String?
    public var rssi: Int?
    /// Seconds since the device was last heard from; nil when never seen.
    public var lastSeenSecondsAgo: Double?
    /// `attempt`: connect attempts in the current cycle, since the device was last ready (0 while ready).
    public var attempt: Int
    /// `failures`: consecutive failures counted against the class's retry budget (failed connects, links lost
    /// before ready); cleared when a session reaches ready. A session that reached ready and ended is not one.
    public var failures: Int
    /// Seconds until the next connection attempt, when backing off.
    public var nextRetryInSeconds: Double?
    public var policyClass: String
    /// The adapter holding the device's bond (its keys); nil when it is not bonded.
    public var bondAdapter: String?

    public init(id: String, displayName: String, state: DeviceState, adapter: String? = nil, address: String? = nil,
                rssi: Int? = nil, lastSeenSecondsAgo: Double? = nil, attempt: Int = 0, failures: Int = 0,
                nextRetryInSeconds: Double? = nil, policyClass: String, bondAdapter: String? = nil) {
        self.bondAdapter = bondAdapter
        self.id = id
        self.displayName = displayName
        self.state = state
        self.adapter = adapter
        self.address = address
        self.rssi = rssi
        self.lastSeenSecondsAgo = lastSeenSecondsAgo
        self.attempt = attempt
        self.failures = failures
        self.nextRetryInSeconds = nextRetryInSeconds
        self.policyClass = policyClass
    }
}

/// The reply of `ListDevices`.
public struct DeviceList: Sendable, Equatable, Codable {
    public var devices: [DeviceInfo]

    public init(devices: [DeviceInfo]) { self.devices = devices }
}
