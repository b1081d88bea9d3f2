/// The reply of `Status`: the daemon, its adapters and how the wanted devices are doing.
public struct StatusInfo: Sendable, Equatable {
    public var daemon: DaemonInfo
    public var adapters: [AdapterInfo]
    public var counts: DeviceCounts

    public init(daemon: DaemonInfo, adapters: [AdapterInfo], counts: DeviceCounts) {
        self.daemon = daemon
        self.adapters = adapters
        self.counts = counts
    }

    public var json: [String: JSONValue] {
        ["daemon": .object(daemon.json), "adapters": .array(adapters.map { .object($0.json) }), "counts": .object(counts.json)]
    }

    public init(reading reader: ParameterReader) throws(VarlinkError) {
        daemon = try DaemonInfo(reading: reader.record("daemon"))
        var adapters: [AdapterInfo] = []
        for record in try reader.records("adapters") { adapters.append(try AdapterInfo(reading: record)) }
        self.adapters = adapters
        counts = try DeviceCounts(reading: reader.record("counts"))
    }
}

/// The daemon process as `Status` reports it.
public struct DaemonInfo: Sendable, Equatable {
    public var version: String
    public var uptimeSeconds: Double
    /// `starting`, `running`, `degraded` or `stopping`.
    public var state: String

    public init(version: String, uptimeSeconds: Double, state: String) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.state = state
    }

    public var json: [String: JSONValue] {
        ["version": .string(version), "uptimeSeconds": .number(uptimeSeconds), "state": .string(state)]
    }

    public init(reading reader: ParameterReader) throws(VarlinkError) {
        version = try reader.string("version")
        uptimeSeconds = try reader.double("uptimeSeconds")
        state = try reader.string("state")
    }
}

/// One Bluetooth adapter and its connection slots.
public struct AdapterInfo: Sendable, Equatable {
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

    public var json: [String: JSONValue] {
        ["name": .string(name), "address": .optional(address), "powered": .bool(powered),
         "slotsUsed": .int(slotsUsed), "slotsCapacity": .int(slotsCapacity)]
    }

    public init(reading reader: ParameterReader) throws(VarlinkError) {
        name = try reader.string("name")
        address = try reader.optionalString("address")
        powered = try reader.bool("powered")
        slotsUsed = try reader.int("slotsUsed")
        slotsCapacity = try reader.int("slotsCapacity")
    }
}

/// How many wanted devices are in each condition.
public struct DeviceCounts: Sendable, Equatable {
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

    public var json: [String: JSONValue] {
        ["wanted": .int(wanted), "ready": .int(ready), "backingOff": .int(backingOff), "failed": .int(failed)]
    }

    public init(reading reader: ParameterReader) throws(VarlinkError) {
        wanted = try reader.int("wanted")
        ready = try reader.int("ready")
        backingOff = try reader.int("backingOff")
        failed = try reader.int("failed")
    }
}
