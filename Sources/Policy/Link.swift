/// One established connection held in a ``SlotTable``: which device, its class, and what eviction looks at.
public struct Link: Sendable, Hashable {
    /// The fleet identity id (opaque to Policy).
    public let device: String
    public let policyClass: PolicyClass
    /// When the link came up; a link younger than its class's minimum hold time is not evicted.
    public let linkedAt: Duration
    /// The last time the device did something useful (a notification, a read): the least recently active
    /// link is evicted first.
    public var lastActivity: Duration
    /// The last RSSI seen, in dBm; `nil` when unknown, which counts as the weakest.
    public var rssi: Int?

    public init(device: String, policyClass: PolicyClass, linkedAt: Duration, lastActivity: Duration? = nil, rssi: Int? = nil) {
        self.device = device
        self.policyClass = policyClass
        self.linkedAt = linkedAt
        self.lastActivity = lastActivity ?? linkedAt
        self.rssi = rssi
    }
}

/// The connect an adapter is currently running (at most one: BlueZ answers a second with InProgress).
public struct PendingConnect: Sendable, Hashable {
    public let device: String
    public let policyClass: PolicyClass
    public let startedAt: Duration
}
