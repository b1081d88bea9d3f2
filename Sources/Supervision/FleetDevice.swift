import Policy

/// A device the operator wants kept connected, named by its stable identity id (e.g. `mfr-0059-0a1b2c3d4e5f`).
public struct WantedDevice: Sendable, Hashable, Codable {
    public var id: DeviceID
    public var name: String?
    public var policyClass: PolicyClass
    /// Characteristic UUIDs (lowercase, 128-bit) to subscribe to on every connect.
    public var subscribe: [String]
    /// Characteristic UUIDs to read once on every connect.
    public var readOnConnect: [String]
    /// With no `subscribe` and no `readOnConnect`: arm the standard profile characteristics the device offers
    /// (the driver knows which those are; the machine only hears what was armed). False: `profile = none`.
    public var standardProfiles: Bool

    public init(id: DeviceID, name: String? = nil, policyClass: PolicyClass = .normal, subscribe: [String] = [], readOnConnect: [String] = [],
                standardProfiles: Bool = true) {
        self.id = id
        self.name = name
        self.policyClass = policyClass
        self.subscribe = subscribe
        self.readOnConnect = readOnConnect
        self.standardProfiles = standardProfiles
    }

    /// Whether set-up arms the device's standard profiles: nothing configured and profiles not turned off.
    public var armsStandardProfiles: Bool { standardProfiles && subscribe.isEmpty && readOnConnect.isEmpty }

    private enum CodingKeys: String, CodingKey { case id, name, policyClass, subscribe, readOnConnect, standardProfiles }

    // An older fleetd's JSON snapshot has no `standardProfiles`: the default applies.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(DeviceID.self, forKey: .id), name: try c.decodeIfPresent(String.self, forKey: .name),
                  policyClass: try c.decode(PolicyClass.self, forKey: .policyClass), subscribe: try c.decode([String].self, forKey: .subscribe),
                  readOnConnect: try c.decode([String].self, forKey: .readOnConnect),
                  standardProfiles: try c.decodeIfPresent(Bool.self, forKey: .standardProfiles) ?? true)
    }
}

extension PolicyClass: Codable {}

/// Where a fleet device is in its life: `unknown → discovered → connecting → connected → resolving → ready`,
/// with the detours the issue names.
public enum DevicePhase: Sendable, Hashable, CustomStringConvertible {
    /// Wanted but not seen on any adapter yet.
    case unknown
    /// Seen and eligible: waiting for its adapter's turn or a slot.
    case discovered
    case connecting
    /// Linked; waiting for BlueZ to resolve services.
    case connected
    /// Services resolved; subscriptions and reads on connect are being set up.
    case resolving
    case ready
    case backoff(until: Duration)
    /// Disconnected to free a slot; not reconnected before `until`.
    case evicted(until: Duration)
    case disconnecting
    /// The adapter is off: paused, no attempt burnt.
    case waitingForAdapter
    /// Not wanted any more (operator Disconnect) — kept for its history.
    case idle
    case failed(reason: String)
    /// Linked, and pairing (Device1.Pair) before set-up or before retrying a refused GATT call.
    case pairing
    /// Stopped until an operator pairs it (`fleetctl pair`): a wrong passkey, or a stale bond under
    /// `re-pair = manual`.
    case needsPairing(reason: String)

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .discovered: "discovered"
        case .connecting: "connecting"
        case .connected: "connected"
        case .resolving: "resolving"
        case .ready: "ready"
        case .backoff: "backoff"
        case .evicted: "evicted"
        case .disconnecting: "disconnecting"
        case .waitingForAdapter: "waiting-for-adapter"
        case .idle: "idle"
        case .failed: "failed"
        case .pairing: "pairing"
        case .needsPairing: "needs-pairing"
        }
    }

    /// Whether a link is up (or being set up) in this phase.
    public var hasLink: Bool {
        switch self {
        case .connected, .resolving, .ready, .disconnecting, .pairing: true
        default: false
        }
    }
}

/// One Device1 object (an address under an adapter) that resolved to a fleet device.
public struct Sighting: Sendable, Hashable {
    public var path: DevicePath
    public var address: String
    public var addressType: String
    public var rssi: Int?
    /// When BlueZ last said anything of this object (a link going down, the object coming back with its
    /// adapter's power included).
    public var lastSeen: Duration
    public var connected: Bool
    public var servicesResolved: Bool
    /// BlueZ's `Bonded` on this object: its adapter holds keys for the device.
    public var bonded = false
    /// When the peripheral itself was last heard at this address: an advert (`DeviceReport.heard`) or a link.
    /// Nil when never: an object BlueZ keeps from before (a device it connected once is not temporary and
    /// outlives a power cycle) says nothing of whether the peripheral still answers there.
    public var lastHeard: Duration? = nil

    public var adapter: AdapterID { path.adapter }

    /// The sightings at an address the peripheral has not been heard to leave: those whose address was heard
    /// last (ties kept), or all when none was heard. A peripheral that rotated away from an address (an RPA, an
    /// Android phone's random address) no longer answers there: a connect would wait out the kernel's 20 s LE
    /// connection timeout, hold the adapter's one connect slot meanwhile, and count a failure the device never
    /// had (soak seed 202: after a power cycle the adapter's kept object of the old address looked free and
    /// fresh, while another adapter had heard the new one).
    public static func atCurrentAddresses(_ sightings: [Sighting]) -> [Sighting] {
        guard let newest = sightings.lazy.compactMap(\.lastHeard).max() else { return sightings }
        let current = sightings.filter { $0.lastHeard == newest }.map(\.address)
        return sightings.filter { current.contains($0.address) }
    }
}

/// The supervisor's view of one fleet device.
public struct FleetDevice: Sendable {
    public let id: DeviceID
    public var wanted: WantedDevice
    public var displayName: String?
    public var isWanted: Bool
    public var phase: DevicePhase = .unknown
    /// Every live Device1 object of this identity, by path (rotating addresses and duplicates fold here).
    public var sightings: [DevicePath: Sighting] = [:]
    /// The Device1 path of the link (or connect attempt).
    public var linkPath: DevicePath?
    public var reconnect: ReconnectState
    /// `attempt`: connect attempts in the current cycle, i.e. since the device was last ready (1 for the first
    /// Connect of a cycle, 0 while ready). Not the budget count: that is `reconnect.failures` (`failures`).
    public var attempt: Int = 0
    /// Whether fleetd.conf lists this device (as opposed to one added with `fleetctl connect`). A device that
    /// was configured and is no longer listed does not come back from the snapshot: configuration wins.
    public var configured: Bool
    public var totalAttempts: Int = 0
    public var nextRetry: Duration?
    public var lastSeen: Duration?
    public var lastReason: String?
    /// The live timer, if any; a fire with any other id is stale.
    public var timer: TimerID?
    /// Token of the connect in flight; a result for another token is stale.
    public var connectToken: UInt64?
    public var linkUpAt: Duration?
    /// When the last link went down; a link up after it is a reconnect, and the time between its latency.
    public var linkDownAt: Duration?
    /// Set while the first reconciliation adopts this device's existing link.
    public var adopted = false
    /// The reconnect state just before the last failure, when it happened and on which adapter. BlueZ reports
    /// the links of an adapter that powers off (or goes away with bluetoothd) as dropped a moment before it
    /// reports the adapter; those failures are taken back so that an adapter outage never burns attempts.
    public var beforeLastFailure: (state: ReconnectState, at: Duration, adapter: AdapterID?)?
    /// Stale-twin paths already asked to disconnect, so each is asked once.
    public var twinDisconnects: Set<DevicePath> = []
    /// While evicted and still linked: the device whose admission this eviction makes room for, which must
    /// not evict a second victim on another adapter meanwhile.
    public var evictedFor: DeviceID?
    /// Its bond (which adapter holds its keys) and the pairing in progress (FleetDevice+Pairing.swift).
    public var bond = BondState()
    /// What set-up has done on the current link (reset at every link-up).
    public var linkSetUp = LinkSetUp()
    /// Connects that failed through each adapter since the device was last ready. The next attempt prefers an
    /// adapter with fewer, so a controller that keeps refusing it (full, or flaky) is not retried while another
    /// one can reach the device.
    public var failedConnects: [AdapterID: Int] = [:]

    init(wanted: WantedDevice, isWanted: Bool, configured: Bool, configuration: PolicyConfiguration) {
        id = wanted.id
        self.wanted = wanted
        displayName = wanted.name
        self.isWanted = isWanted
        self.configured = configured
        reconnect = ReconnectState(policyClass: wanted.policyClass, configuration: configuration)
    }

    public var policyClass: PolicyClass { wanted.policyClass }
    /// The adapter holding the link (or attempt).
    public var adapter: AdapterID? { linkPath?.adapter }
    public var address: String? { (linkPath.flatMap { sightings[$0] } ?? bestSighting)?.address }
    public var rssi: Int? { (linkPath.flatMap { sightings[$0] } ?? bestSighting)?.rssi }

    /// The sighting to show and to clear stale state on: a linked one, else the one heard most recently, else the
    /// one BlueZ spoke of last.
    public var bestSighting: Sighting? {
        func rank(_ s: Sighting) -> (Int, Int, Duration, Duration) {
            (s.connected ? 1 : 0, s.lastHeard == nil ? 0 : 1, s.lastHeard ?? .zero, s.lastSeen)
        }
        return sightings.values.max { rank($0) < rank($1) }
    }
}

/// What set-up has done on one link. Set-up can run twice on a link (a GATT call refused for lack of
/// security pairs, then set-up runs again): the second run continues the first's reading session and does
/// not read again what the first already read, so a read on connect is recorded once per link.
public struct LinkSetUp: Sendable, Hashable {
    /// The reading session of the link: the token of its first set-up; nil before it.
    public var session: UInt64?
    /// Characteristics read on connect on this link.
    public var read: Set<String> = []
    /// Standard profile characteristics the driver armed on this link (a device with no configured subscriptions):
    /// their values are delivered like configured ones.
    public var armed: Set<String> = []

    public init() {}
}
