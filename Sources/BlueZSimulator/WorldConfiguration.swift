/// How BlueZ's `[GATT] Cache` setting (main.conf) treats an unbonded device's GATT objects on disconnect.
public enum GattCache: String, Sendable, Hashable {
    /// 5.66's built-in default: the database and its objects stay exported after the link drops.
    case always
    /// Cache only paired devices (gatt_cache_is_enabled: device_is_paired); others lose their objects.
    case yes
    /// Never cache: objects are removed with the link.
    case no

    /// Whether a device's GATT objects outlive its link (gatt_cache_cleanup, src/device.c 5.66).
    func keepsObjects(paired: Bool) -> Bool { self == .always || (self == .yes && paired) }
}

/// The fixed parameters of a simulated BlueZ: adapters, pool size, timings (all in simulated time).
public struct WorldConfiguration: Sendable, Hashable {
    public var adapters: Int
    /// Concurrent LE links (plus pending connects) per adapter; 5 as on CSR8510-class controllers.
    public var capacity: Int
    /// BlueZ's TemporaryTimeout (main.conf, 30 s default): an unconnected temporary device not seen for
    /// this long is removed.
    public var temporaryTimeout: Duration
    public var gattCache: GattCache
    /// From Connect to the link being up.
    public var connectLatency: Duration
    /// From Disconnect to the link being down.
    public var disconnectLatency: Duration
    /// One ATT request/response; a long read of N MTU-sized pieces takes N of these.
    public var attRoundTrip: Duration
    /// The kernel gives up an LE connection attempt to an absent or non-connectable device after this
    /// (HCI_LE_CONN_TIMEOUT, 20 s), and 5.66 reports it as le-connection-abort-by-local.
    public var leConnectionTimeout: Duration
    /// Whether a Connect's link-up is signalled (real controllers) or quiet (btvirt).
    public var linkUpOrder: LinkUpOrder
    /// The order of the failed Connect reply and the Connected signals for a stale bond (reply first, as on the rig).
    public var staleBondOrder: StaleBondOrder
    public var seed: UInt64

    public init(adapters: Int = 1, capacity: Int = 5, temporaryTimeout: Duration = .seconds(30), gattCache: GattCache = .yes,
                connectLatency: Duration = .milliseconds(60), disconnectLatency: Duration = .milliseconds(20),
                attRoundTrip: Duration = .milliseconds(8), leConnectionTimeout: Duration = .seconds(20),
                linkUpOrder: LinkUpOrder = .signalled, staleBondOrder: StaleBondOrder = .replyFirst, seed: UInt64 = 0x5eed) {
        self.adapters = adapters
        self.capacity = capacity
        self.temporaryTimeout = temporaryTimeout
        self.gattCache = gattCache
        self.connectLatency = connectLatency
        self.disconnectLatency = disconnectLatency
        self.attRoundTrip = attRoundTrip
        self.leConnectionTimeout = leConnectionTimeout
        self.linkUpOrder = linkUpOrder
        self.staleBondOrder = staleBondOrder
        self.seed = seed
    }
}
