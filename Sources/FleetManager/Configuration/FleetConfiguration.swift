import Identity
import Pairing
import Policy

/// Everything fleetd's configuration file says, typed and validated: what to keep linked, through which
/// adapters, how identities are recognised and how hard each policy class is retried.
///
/// Values come from ``parse(_:file:)`` or ``load(path:)``; a key the file leaves out keeps its value from
/// ``defaults``. `deploy/fleetd.conf` lists every key with that default, and `docs/configuration.md`
/// explains them.
public struct FleetConfiguration: Sendable, Hashable {
    // [daemon]
    /// Deprecated (`[daemon] snapshot`): the JSON state file of a fleetd before the SQLite store. Imported once
    /// into the store if it exists, then renamed aside; the store goes beside it unless `store` is set. nil:
    /// `snapshot.json` beside the store (see ``resolvedSnapshotPath``).
    public var snapshotPath: String? = nil
    /// The SQLite store (the fleet's state and the outbox); nil: see ``resolvedStorePath``.
    public var storePath: String? = nil
    /// Keys the file set that are deprecated (e.g. `[daemon] snapshot`): fleetd logs a warning for each.
    public var deprecatedKeys: [String] = []
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
    /// The capability fleetd's agent registers with (`agent-capability`); nil (`auto`) derives it from the
    /// devices' pairing (``AgentRegistration/plan(for:requestDefault:capability:)``).
    public var agentCapability: AgentCapability? = nil

    // [outbox]
    /// The outbox in a file of its own; nil keeps it in the store (see ``resolvedOutboxPath``).
    public var outboxPath: String? = nil
    /// The longest a reading waits for its batch's commit.
    public var outboxCommitDelay: Duration = .milliseconds(100)
    /// Readings older than this are dropped; nil keeps them whatever their age.
    public var outboxMaxAge: Duration? = .seconds(7 * 86_400)
    /// At most this many readings are kept (the oldest go first); nil is unbounded.
    public var outboxMaxRows: Int? = 1_000_000
    /// `[outbox] racp-delete`: after a complete RACP sync, delete the device's records up to the mark (docs/records.md).
    /// Off by default: a meter's memory is the only other copy of a reading until a consumer has it.
    public var racpDelete = false

    // [mqtt]
    /// Where readings are published; nil (no `host`) publishes nothing.
    public var broker: BrokerSettings? = nil

    /// The store file in force: `[daemon] store`; else `fleetd.db` beside the deprecated `snapshot` when that is
    /// set (a configuration that moved the snapshot keeps its directory); else `/var/lib/fleetd/fleetd.db`.
    public var resolvedStorePath: String {
        storePath ?? snapshotPath.map { Self.sibling(of: $0, named: "fleetd.db") } ?? "/var/lib/fleetd/fleetd.db"
    }

    /// The JSON snapshot imported once at start if present: `[daemon] snapshot`, else `snapshot.json` beside the
    /// store (where fleetd before the store wrote it by default: `/var/lib/fleetd/snapshot.json`).
    public var resolvedSnapshotPath: String { snapshotPath ?? Self.sibling(of: resolvedStorePath, named: "snapshot.json") }

    static func sibling(of path: String, named name: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return name }
        return String(path[...slash]) + name
    }

    /// The outbox file in force: `[outbox] path`, else the store file (one file for state and readings).
    public var resolvedOutboxPath: String { outboxPath ?? resolvedStorePath }

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
