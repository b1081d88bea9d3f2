// fleetd's composition root: parse the command line, read the configuration, build the D-Bus connection,
// the supervisor and the control socket, and run them as services of one ServiceGroup until a signal.
import Dispatch
import FleetControlServer
import FleetManager
import FleetPlatform
import FleetProtocol
import FleetSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Supervision
import Synchronization

// Caught before anything else: a reload's SIGHUP that comes while fleetd is still starting (restoring its state,
// adopting BlueZ's links) is kept for the SignalService below, instead of ending the daemon by default.
let hangups = CaughtSignals([SIGHUP])
let version = FleetRelease.version
let environment = ProcessInfo.processInfo.environment

/// Writes `message` to standard error before exiting. A failed write has nowhere left to be reported.
func writeError(_ message: String) {
    FileDescriptor.borrowing(STDERR_FILENO) { standardError in try? standardError.writeAll(message.utf8) }
}

let arguments: DaemonArguments
do {
    arguments = try DaemonArguments.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    writeError("fleetd: \(error)\n")
    exit(error.exitCode)
}
if arguments.showHelp { print(DaemonArguments.help); exit(0) }
if arguments.showVersion { print("fleetd \(version)"); exit(0) }
if let path = arguments.checkConfig {
    do {
        let checked = try FleetConfiguration.load(path: path)
        print("\(path): OK: \(checked.devices.count) device(s), \(checked.identityRules.count) identity rule(s), capacity \(checked.defaultCapacity) per adapter")
        exit(0)
    } catch {
        writeError("fleetd: \(error)\n")
        exit(3)
    }
}

func loadConfiguration(_ path: String) throws(ConfigError) -> FleetConfiguration {
    if !FileManager.default.fileExists(atPath: path) && path == DaemonArguments().configPath { return .defaults }
    return try FleetConfiguration.load(path: path)
}

var configuration: FleetConfiguration
do {
    configuration = try loadConfiguration(arguments.configPath)
} catch {
    writeError("fleetd: \(error)\n")
    exit(3)
}
if let snapshot = arguments.snapshotPath { configuration.snapshotPath = snapshot }
if let store = arguments.storePath { configuration.storePath = store }
if let socket = arguments.socketPath { configuration.controlSocket = socket }
if let outbox = arguments.outboxPath { configuration.outboxPath = outbox }

let target = arguments.logTarget ?? configuration.logTarget
let destination = target == "auto" ? LogDestination.automatic : (LogDestination(rawValue: target) ?? .automatic)
let level = LogLevel(name: arguments.logLevel ?? configuration.logLevel) ?? .info
let logger = Logger(label: "fleetd", level: level, handler: destination.handler(identifier: "fleetd", environment: environment))

for key in configuration.deprecatedKeys {
    logger.warning("\(arguments.configPath): \(key) is deprecated: the state lives in the SQLite store \(configuration.resolvedStorePath) ([daemon] store); the JSON file \(configuration.resolvedSnapshotPath) is only imported once if present",
                   metadata: ["reason": "deprecated-key"])
}
if arguments.snapshotPath != nil {
    logger.warning("--snapshot is deprecated: the state lives in the SQLite store \(configuration.resolvedStorePath) (--store); the JSON file \(configuration.resolvedSnapshotPath) is only imported once if present",
                   metadata: ["reason": "deprecated-option"])
}

let bus: DBusConnection
do {
    bus = try arguments.busAddress.map { address throws(DBusError) in try DBusConnection(address: address) } ?? DBusConnection.system()
} catch {
    logger.critical("cannot connect to the D-Bus system bus: \(error)")
    exit(1)
}

func wanted(_ configuration: FleetConfiguration) -> [WantedDevice] {
    configuration.devices.map {
        WantedDevice(id: DeviceID($0.id), name: $0.name, policyClass: $0.policyClass, subscribe: $0.subscribe, readOnConnect: $0.read,
                     standardProfiles: $0.standardProfiles)
    }
}

let settings = FleetStateMachine.Settings(policy: configuration.policy, capacity: configuration.capacity,
                                          defaultCapacity: configuration.defaultCapacity, adapters: configuration.adapters,
                                          evictionHoldOff: configuration.evictionHoldOff, setUpTimeout: configuration.setUpTimeout)
// Handed to the supervisor with `take()`: main.swift's top-level variables live as long as the process, so a
// `let machine` kept the machine's first value (a kilobyte per wanted device) beside the supervisor's, and the
// supervisor's first change copied the whole device table (2.4 MiB of heap at 1 000 devices; issue 18).
var initialMachine: FleetStateMachine?
do {
    initialMachine = try FleetStateMachine(settings: settings, rules: configuration.identityRules, wanted: wanted(configuration),
                                    seed: UInt64.random(in: .min ... .max))
} catch {
    logger.critical("invalid identity rules: \(error)")
    exit(3)
}
var options = FleetSupervisor.Options(scanServiceUUIDs: configuration.scanServiceUUIDs, duplicateData: configuration.duplicateData,
                                      leaveLinksOnExit: configuration.leaveLinksOnExit, metricsTextfile: configuration.metricsTextfile)
options.racpDelete = configuration.racpDelete
/// Set when the outbox met a fault retrying cannot cure: the stop it starts exits with status 1.
let outboxFailed = Atomic<Bool>(false)
// The state, then the outbox (StoreOpening: one move-aside per file with every connection closed; no READY without
// an outbox, so start-up waits here while it cannot be opened, saying why in STATUS= and feeding the watchdog).
let stores = await StoreOpening.open(statePath: configuration.resolvedStorePath, snapshotPath: configuration.resolvedSnapshotPath,
                                     outboxPath: configuration.resolvedOutboxPath, outbox: configuration.outboxSettings,
                                     logger: logger, onIncurable: { _ in
    // An orderly stop (state saved, broker told), then exit status 1: Restart=on-failure brings fleetd back and its
    // start-up check moves a corrupt outbox aside (issue 41, point 5).
    outboxFailed.store(true, ordering: .relaxed)
    kill(getpid(), SIGTERM)
}) { status in
    _ = ServiceNotifier().notify(["STATUS=\(status)", "WATCHDOG=1"])
}
let state = stores.state
let readings: ReadingRecorder? = stores.readings
let broker: BrokerForwarder?
do {
    broker = try BrokerForwarder.open(configuration.broker, outbox: readings?.outbox, logger: logger)
} catch {
    logger.critical("[mqtt]: \(error)", id: FleetMessageID.configRejected.rawValue, metadata: ["reason": error.description])
    exit(3)
}
let supervisor = FleetSupervisor(machine: initialMachine.take()!, client: BlueZClient(bus: bus), logger: logger,
                                 store: state, options: options, readings: readings,
                                 broker: broker)
await supervisor.configurePairing(configuration.pairing)

/// The configuration in force, shared by SIGHUP and `fleetctl reload`.
final class ConfigurationHolder: Sendable {
    private let current: Mutex<FleetConfiguration>
    init(_ configuration: FleetConfiguration) { current = Mutex(configuration) }
    var value: FleetConfiguration {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
let holder = ConfigurationHolder(configuration)
let configPath = arguments.configPath

// The agent exists whether or not anything pairs, so that a reload can ask for one (or another capability).
// Registered after the supervisor has read BlueZ's tree, so the agent can tell wanted devices from strangers.
let agentService = PairingAgentService(
    agent: PairingAgent(tree: DBusObjectTree(connection: bus, objectManagerPath: "/io/fleetd"), registration: configuration.agentRegistration,
                        logger: logger) { path in await supervisor.pairingCandidate(path: path) },
    logger: logger, passkeyFiles: configuration.passkeyFiles)

@Sendable func reload() async throws -> String {
    let fresh = try loadConfiguration(configPath)
    let previous = Set(holder.value.devices.map { DeviceID($0.id) })
    let summary = try await supervisor.reload(rules: fresh.identityRules, wanted: wanted(fresh), previouslyConfigured: previous)
    await supervisor.configurePairing(fresh.pairing)
    await agentService.reconfigure(fresh.agentRegistration, passkeyFiles: fresh.passkeyFiles)
    holder.value = fresh
    return summary
}

let backend = SupervisorControlBackend(supervisor: supervisor, version: version, reloader: reload)
let service = FleetService(backend: backend, info: ServiceInfo(version: version), log: { logger.notice("control: \($0)") })
let controlSocket = configuration.controlSocket
func makeServer(group: String?) throws -> VarlinkServer {
    try VarlinkServer(configuration: .init(socketPath: controlSocket, socketMode: 0o660, controlGroup: group,
                                           inheritedDescriptor: ListeningSocket.activationDescriptor(environment: environment, pid: getpid())),
                      service: service)
}
let server: VarlinkServer
do {
    server = try makeServer(group: configuration.controlGroup.isEmpty ? nil : configuration.controlGroup)
} catch {
    logger.warning("control socket with group '\(configuration.controlGroup)' failed (\(error)); serving root only")
    do {
        server = try makeServer(group: nil)
    } catch {
        logger.critical("cannot open the control socket \(configuration.controlSocket): \(error)")
        exit(1)
    }
}
logger.info("control socket at \(configuration.controlSocket)")

// Started in this order and stopped in reverse: the control socket is up before start-up begins, so READY=1
// (sent when the supervisor has started) means fleetctl can already reach us; on SIGTERM the supervisor
// flushes its state while the control socket and the bus are still open.
var services: [any Service] = [
    ClosingService { bus.close() },
    ClosingService { server.stop() },
    SupervisorService(supervisor),
]
if let broker { services.append(BrokerService(broker, supervisor: supervisor)) }
services.append(agentService)
if options.metricsTextfile != nil { services.append(MetricsTextfileService(supervisor, interval: options.metricsInterval)) }
services.append(WatchdogService(supervisor))
services.append(SignalService(hangups) { _ in
    ServiceNotifier().reloading()
    do {
        let summary = try await reload()
        logger.notice("SIGHUP: \(summary)")
    } catch {
        logger.error("SIGHUP: configuration rejected, keeping the old one: \(error)", id: FleetMessageID.configRejected.rawValue)
    }
    ServiceNotifier().ready()
})
let group = ServiceGroup(services: services, gracefulShutdownSignals: [SIGTERM, SIGINT]) { cause in
    if case .signal(let number) = cause { logger.notice("received signal \(number); stopping") }
}
do {
    try await group.run()
} catch let error as BusLostError {
    logger.critical("stopped: \(error)")
    exit(1)
} catch let error as ServiceGroupError {
    logger.critical("stopped: \(error)")
    exit(1)
} catch {
    logger.critical("cannot start: \(error)")
    exit(1)
}
exit(outboxFailed.load(ordering: .relaxed) ? 1 : 0)
