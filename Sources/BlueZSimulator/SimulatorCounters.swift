import FleetPlatform

/// What clients did to the simulator, for tests to assert on (exposed as a{sv} of `t` by Counters()).
public struct SimulatorCounters: Sendable, Hashable {
    public var connectsAttempted: UInt64 = 0
    public var connectsFailed: UInt64 = 0
    public var linksUp: UInt64 = 0
    /// Links that dropped without the client asking (faults, power-off, removal).
    public var linksLost: UInt64 = 0
    /// Links the client closed with Disconnect.
    public var disconnects: UInt64 = 0
    public var notificationsSent: UInt64 = 0
    public var reads: UInt64 = 0
    public var writes: UInt64 = 0
    public var devicesAdded: UInt64 = 0
    public var devicesRemoved: UInt64 = 0

    public init() {}

    /// The D-Bus form: every counter as `t` under its CamelCase name.
    public var dictionary: [String: DBusValue] {
        [
            "ConnectsAttempted": .uint64(connectsAttempted), "ConnectsFailed": .uint64(connectsFailed),
            "LinksUp": .uint64(linksUp), "LinksLost": .uint64(linksLost), "Disconnects": .uint64(disconnects),
            "NotificationsSent": .uint64(notificationsSent), "Reads": .uint64(reads), "Writes": .uint64(writes),
            "DevicesAdded": .uint64(devicesAdded), "DevicesRemoved": .uint64(devicesRemoved),
        ]
    }

    mutating func add(_ keyPath: WritableKeyPath<SimulatorCounters, UInt64>) { self[keyPath: keyPath] &+= 1 }
}
