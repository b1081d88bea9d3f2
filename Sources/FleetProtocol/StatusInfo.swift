/// The reply of `Status`: the daemon, its adapters and how the wanted devices are doing.
public struct StatusInfo: Sendable, Equatable, Codable {
    public var daemon: DaemonInfo
    public var adapters: [AdapterInfo]
    public var counts: DeviceCounts
    /// The link to the fleet's MQTT broker; nil when fleetd publishes to none.
    public var broker: BrokerLinkInfo?

    public init(daemon: DaemonInfo, adapters: [AdapterInfo], counts: DeviceCounts, broker: BrokerLinkInfo? = nil) {
        self.daemon = daemon
        self.adapters = adapters
        self.counts = counts
        self.broker = broker
    }
}

/// The daemon process as `Status` reports it.
public struct DaemonInfo: Sendable, Equatable, Codable {
    public var version: String
    public var uptimeSeconds: Double
    public var state: DaemonState

    public init(version: String, uptimeSeconds: Double, state: DaemonState) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.state = state
    }
}

/// One Bluetooth adapter and its connection slots.
public struct AdapterInfo: Sendable, Equatable, Codable {
    /// e.g. `hci0`.
    public var name: String
    public var address: String?
    public var powered: Bool
    public var slotsUsed: Int
    public var slotsCapacity: Int

    public init(name: String, address: String? = nil, powered: Bool, slotsUsed: Int, slotsCapacity: Int) {
        self.name = name
        self.address = address
        self.powered = powered
        self.slotsUsed = slotsUsed
        self.slotsCapacity = slotsCapacity
    }
}

/// How many wanted devices are in each condition.
public struct DeviceCounts: Sendable, Equatable, Codable {
    public var wanted: Int
    public var ready: Int
    public var backingOff: Int
    public var failed: Int

    public init(wanted: Int, ready: Int, backingOff: Int, failed: Int) {
        self.wanted = wanted
        self.ready = ready
        self.backingOff = backingOff
        self.failed = failed
    }
}
