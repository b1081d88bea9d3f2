import Identity
import Policy

/// Everything fleetd's configuration file says, typed and validated: what to keep linked, through which
/// adapters, how identities are recognised and how hard each policy class is retried.
///
/// Values come from ``parse(_:file:)`` or ``load(path:)``; a key the file leaves out keeps its value from
/// ``defaults``. `deploy/fleetd.conf` lists every key with that default, and `docs/configuration.md`
/// explains them.
public struct FleetConfiguration: Sendable, Hashable {
    // [daemon]
    public var snapshotPath: String
    public var controlSocket: String
    /// The group allowed to connect to the control socket; empty leaves the socket to root alone.
    public var controlGroup: String
    /// One of `trace debug info notice warning error critical`.
    public var logLevel: String
    /// One of `auto journal stderr`.
    public var logTarget: String
    /// Leave links up on exit, so a restarted fleetd adopts them instead of reconnecting every device.
    public var leaveLinksOnExit: Bool
    public var evictionHoldOff: Duration
    public var setUpTimeout: Duration
    /// Where to write Prometheus metrics for node_exporter's textfile collector; nil writes none.
    public var metricsTextfile: String?
    /// Ask BlueZ to make fleetd's pairing agent the default agent (`agent-default`), so that bluetoothd's own
    /// security elevations (a GATT call refused for lack of encryption) ask it too. BlueZ 5.66 makes the first
    /// agent registered the default anyway when there is none.
    public var agentDefault = false

    // [outbox]
    /// The outbox file; nil means `outbox.db` in the snapshot's directory (see ``resolvedOutboxPath``).
    public var outboxPath: String? = nil
    /// The longest a reading waits for its batch's commit.
    public var outboxCommitDelay: Duration = .milliseconds(100)
    /// Readings older than this are dropped; nil keeps them whatever their age.
    public var outboxMaxAge: Duration? = .seconds(7 * 86_400)
    /// At most this many readings are kept (the oldest go first); nil is unbounded.
    public var outboxMaxRows: Int? = 1_000_000

    // [mqtt]
    /// Where readings are published; nil (no `host`) publishes nothing.
    public var broker: BrokerSettings? = nil

    /// The outbox file in force: `[outbox] path`, else `outbox.db` beside the snapshot.
    public var resolvedOutboxPath: String {
        if let outboxPath { return outboxPath }
        guard let slash = snapshotPath.lastIndex(of: "/") else { return "outbox.db" }
        return String(snapshotPath[...slash]) + "outbox.db"
    }

    // [adapters], [adapter "hciN"]

    /// Adapter names to use; empty means every adapter BlueZ has.
    public var adapters: [String]
    public var defaultCapacity: Int
    /// Per-adapter pools that differ from `defaultCapacity`.
    public var capacity: [String: Int]

    // [scan]
    /// Discovery filter, lowercase 128-bit UUIDs; empty means no UUID filter.
    public var scanServiceUUIDs: [String]
    /// Whether discovery asks BlueZ for every advert (`DuplicateData`); `auto` in the file is resolved here.
    public var duplicateData: Bool

    // [identity], [identity "name"]
    /// The rules in file order; `IdentityResolver` orders them by kind itself.
    public var identityRules: [IdentityRule]

    // [policy "class"]
    public var policy: PolicyConfiguration

    // [device "id"]
    /// Wanted devices in file order.
    public var devices: [ConfiguredDevice]

    /// The configuration of an empty file.
    public static let defaults = FleetConfiguration(
        snapshotPath: "/var/lib/fleetd/snapshot.json",
        controlSocket: "/run/fleetd/io.fleetd.sock",
        controlGroup: "fleetd",
        logLevel: "info",
        logTarget: "auto",
        leaveLinksOnExit: true,
        evictionHoldOff: .seconds(60),
        setUpTimeout: .seconds(30),
        metricsTextfile: nil,
        adapters: [],
        defaultCapacity: 5,
        capacity: [:],
        scanServiceUUIDs: [],
        duplicateData: false,
        identityRules: [.identityAddress],
        policy: PolicyConfiguration(),
        devices: [])
}
