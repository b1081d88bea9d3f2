/// One row of `devices`: a device fleetd wants (or wanted), with its backoff progress. Plain values: the
/// supervisor maps its own types onto them, so FleetStore needs nothing of fleetd's.
///
/// A field added later (e.g. a bond) goes in as an optional here, a nullable column in a new migration, and one
/// more entry in `StateStore.deviceColumns`: rows written before it read back as nil.
public struct DeviceRow: Sendable, Equatable {
    public var id: String
    public var name: String?
    /// The policy class (`critical`, `normal`, …).
    public var policyClass: String
    /// Characteristic UUIDs subscribed on every connect.
    public var subscribe: [String]
    public var readOnConnect: [String]
    public var wanted: Bool
    /// From the configuration (true), from `fleetctl connect` (false), not recorded (nil).
    public var configured: Bool?
    public var lastAddresses: [String]
    public var failures: Int
    public var gaveUp: Bool
    public var lastReason: String?
    /// The adapter (`hciN`) holding the device's bond; nil when none is known (schema 3).
    public var bondAdapter: String?
    /// Why the device waits for `fleetctl pair`; nil when it does not (schema 3).
    public var needsPairing: String?

    public init(id: String, name: String? = nil, policyClass: String, subscribe: [String] = [], readOnConnect: [String] = [],
                wanted: Bool, configured: Bool? = nil, lastAddresses: [String] = [], failures: Int = 0, gaveUp: Bool = false,
                lastReason: String? = nil, bondAdapter: String? = nil, needsPairing: String? = nil) {
        self.bondAdapter = bondAdapter
        self.needsPairing = needsPairing
        self.id = id
        self.name = name
        self.policyClass = policyClass
        self.subscribe = subscribe
        self.readOnConnect = readOnConnect
        self.wanted = wanted
        self.configured = configured
        self.lastAddresses = lastAddresses
        self.failures = failures
        self.gaveUp = gaveUp
        self.lastReason = lastReason
    }
}

/// One row of `identities`: an identity registry entry.
public struct IdentityRow: Sendable, Equatable {
    /// The stable id (`mfr-…`, `svc-…`, `irk-…`, `addr-…`).
    public var id: String
    /// For `addr-` identities, the type the id does not carry (`public`, `random`); nil otherwise.
    public var addressType: String?
    public var displayName: String?
    /// Most recent first, each `AA:BB:CC:DD:EE:FF`, with `/random` appended for a random address.
    public var addresses: [String]
    /// The supervisor's clock (nanoseconds since the Unix epoch at fleetd's start, counted monotonically).
    public var firstSeenNanoseconds: Int64
    public var lastSeenNanoseconds: Int64

    public init(id: String, addressType: String? = nil, displayName: String? = nil, addresses: [String] = [],
                firstSeenNanoseconds: Int64, lastSeenNanoseconds: Int64) {
        self.id = id
        self.addressType = addressType
        self.displayName = displayName
        self.addresses = addresses
        self.firstSeenNanoseconds = firstSeenNanoseconds
        self.lastSeenNanoseconds = lastSeenNanoseconds
    }
}

/// One row of `evictions`: who was disconnected to make room for whom, and when.
public struct EvictionRow: Sendable, Equatable {
    public var victim: String
    public var admitted: String
    public var reason: String
    public var atNanoseconds: Int64

    public init(victim: String, admitted: String, reason: String, atNanoseconds: Int64) {
        self.victim = victim
        self.admitted = admitted
        self.reason = reason
        self.atNanoseconds = atNanoseconds
    }
}

/// What one save changes: rows to write, rows to delete, and (when it changed) the whole eviction log, which is
/// short (at most 100) and capped at its old end, so it is rewritten rather than diffed.
public struct FleetStateChange: Sendable, Equatable {
    public var devices: [DeviceRow]
    public var removedDevices: [String]
    public var identities: [IdentityRow]
    public var removedIdentities: [String]
    /// nil leaves the stored log as it is.
    public var evictions: [EvictionRow]?

    public init(devices: [DeviceRow] = [], removedDevices: [String] = [], identities: [IdentityRow] = [],
                removedIdentities: [String] = [], evictions: [EvictionRow]? = nil) {
        self.devices = devices
        self.removedDevices = removedDevices
        self.identities = identities
        self.removedIdentities = removedIdentities
        self.evictions = evictions
    }

    public var isEmpty: Bool {
        devices.isEmpty && removedDevices.isEmpty && identities.isEmpty && removedIdentities.isEmpty && evictions == nil
    }

    /// How many rows the change writes or deletes.
    public var rowCount: Int {
        devices.count + removedDevices.count + identities.count + removedIdentities.count + (evictions.map { $0.count + 1 } ?? 0)
    }
}

/// Everything the fleet tables hold: what a restart restores.
public struct StoredFleetState: Sendable, Equatable {
    /// Ordered by id.
    public var devices: [DeviceRow]
    /// Ordered by id.
    public var identities: [IdentityRow]
    /// Oldest first.
    public var evictions: [EvictionRow]

    public init(devices: [DeviceRow] = [], identities: [IdentityRow] = [], evictions: [EvictionRow] = []) {
        self.devices = devices
        self.identities = identities
        self.evictions = evictions
    }

    public var isEmpty: Bool { devices.isEmpty && identities.isEmpty && evictions.isEmpty }
}
