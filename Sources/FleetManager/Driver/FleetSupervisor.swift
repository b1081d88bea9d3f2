import FleetPlatform
import FoundationEssentials
import Identity
import Policy
import Supervision

/// The actor that drives `FleetStateMachine`: it feeds it BlueZ's events, timer fires and I/O results, and
/// performs the actions it returns (D-Bus calls in their own tasks, timers as sleeping tasks, snapshots,
/// logs, sd_notify). It is the only place where time, randomness and I/O meet the state machine.
public actor FleetSupervisor {
    /// How the supervisor behaves around the state machine.
    public struct Options: Sendable {
        public var scanServiceUUIDs: [String]
        public var duplicateData: Bool
        public var leaveLinksOnExit: Bool
        /// How long start-up waits for adopted links to be re-subscribed before READY=1.
        public var readyTimeout: Duration
        public var snapshotCoalescing: Duration
        /// node_exporter textfile-collector path (`*.prom`), rewritten every `metricsInterval`.
        public var metricsTextfile: String?
        public var metricsInterval: Duration
        /// `[outbox] racp-delete = yes`: records up to the mark are deleted on the device after a complete sync.
        public var racpDelete = false

        public init(scanServiceUUIDs: [String] = [], duplicateData: Bool = false, leaveLinksOnExit: Bool = true,
                    readyTimeout: Duration = .seconds(30), snapshotCoalescing: Duration = .milliseconds(100),
                    metricsTextfile: String? = nil, metricsInterval: Duration = .seconds(15)) {
            self.metricsTextfile = metricsTextfile
            self.metricsInterval = metricsInterval
            self.scanServiceUUIDs = scanServiceUUIDs
            self.duplicateData = duplicateData
            self.leaveLinksOnExit = leaveLinksOnExit
            self.readyTimeout = readyTimeout
            self.snapshotCoalescing = snapshotCoalescing
        }
    }

    var machine: FleetStateMachine
    var tree = BlueZTree()
    /// What the tree made of the event being taken.
    var treeChanges = TreeChangeBuffer()
    public let client: BlueZClient
    let logger: Logger
    let notifier: ServiceNotifier
    /// The fleet's state in the SQLite store; nil keeps it in memory only.
    var store: FleetStateStore?
    /// The last state write failed (a full disk): logged once, retried until one succeeds.
    var stateWriteFailing = false
    /// What the next save must look at: the devices named by the actions performed since the last save, and
    /// what a failed save did not write (`FleetSupervisor+Persistence`).
    var unsaved = UnsavedChanges()
    /// The durable outbox every delivered value is appended to; nil runs without one.
    public let readings: ReadingRecorder?
    /// Publishes the outbox to the fleet's MQTT broker; nil publishes nothing. Its status and metrics join ours.
    public let broker: BrokerForwarder?
    public let feed: EventFeed
    public let metrics: FleetMetrics
    /// What `Status` reports of this actor's state, published for readers outside it (`FleetSupervisor+Status`).
    public let statusBoard: StatusBoard
    /// The devices whose values pass through undecoded (`profile = none`), for consumers outside the actor.
    public let rawProfileDevices = RawProfileDevices()
    /// Each device's Device Information as its last link read it, for ShowDevice.
    public let deviceInformation = DeviceInformationBoard()
    /// Set while a batch of events or a reconciliation is applied: its end publishes once, not every change in it.
    var statusPublicationDeferred = false
    let options: Options
    let clock: any SupervisorClock
    let startedAt: Duration
    var timers: [TimerID: Task<Void, Never>] = [:]
    /// Keeps each adapter's Connect behind the Disconnects asked for before it.
    var callOrder = AdapterCallOrder()
    var persistScheduled = false
    var lastStatus = ""
    var statusScheduled = false
    var initialSetUps: Set<DeviceID> = []
    var readyWaiter: CheckedContinuation<Void, Never>?
    public private(set) var isReady = false
    var stopping = false
    var eventTask: Task<Void, Never>?
    /// bluetoothd's signal stream, for how far the connection has delivered into it (`caughtUp(to:)`).
    var bluezEvents: BlueZEvents?
    /// The arrival of the last signal the event loop has taken (handled, or found to be no event).
    var handledArrival: UInt64 = 0
    /// Replies waiting for the event loop to take every signal sent before them (`caughtUp(to:)`).
    var arrivalWaiters: [(mark: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    /// False while bluetoothd is not on the bus (absent at start, or between its exit and its return).
    var bluezOnBus = true
    /// The bus connection ended under fleetd: it stops feeding the watchdog and its service fails.
    var busLost = false
    var busLostWaiters: [Int: CheckedContinuation<Void, any Error>] = [:]
    var nextBusLostWaiter = 0
    /// The RACP sync running on each device's link (`FleetSupervisor+Records`), and the last run's number.
    var recordSyncs: [DeviceID: RecordSyncRun] = [:]
    var recordSyncGeneration: UInt64 = 0
    /// `racp-delete = yes`: records up to the mark are deleted on the device after a complete sync.
    var recordSyncDeletes = false

    /// `clock` gives the state machine its `now` and runs its timers; tests pass a manual one.
    public init(machine: FleetStateMachine, client: BlueZClient, logger: Logger, notifier: ServiceNotifier = ServiceNotifier(),
                store: FleetStateStore?, options: Options = Options(), clock: any SupervisorClock = SystemSupervisorClock(),
                feed: EventFeed? = nil, metrics: FleetMetrics = FleetMetrics(), readings: ReadingRecorder? = nil,
                broker: BrokerForwarder? = nil) {
        self.readings = readings
        self.broker = broker
        recordSyncDeletes = options.racpDelete
        self.machine = machine
        self.client = client
        self.logger = logger
        self.notifier = notifier
        self.store = store
        self.options = options
        self.clock = clock
        startedAt = clock.now()
        self.feed = feed ?? EventFeed(clock: clock)
        self.metrics = metrics
        statusBoard = StatusBoard(Self.statusEntry(counts: machine.counts, machine: machine, tree: BlueZTree(), isReady: false, stopping: false))
        rawProfileDevices.publish(from: machine)
    }

    /// Policy time (see `SupervisorClock`): monotonic, so a wall-clock step changes no decision.
    nonisolated func now() -> Duration { clock.now() }

    /// Restores the snapshot, reads BlueZ's tree, adopts existing links, re-subscribes, sends READY=1, then
    /// follows BlueZ's events until `stop()`.
    public func start() async throws(BlueZError) {
        restoreSnapshot()
        rawProfileDevices.publish(from: machine)
        let events = try await client.events()
        bluezEvents = events
        do {
            try await reconcile()
        } catch where Self.meansBlueZAbsent(error) {
            bluezAbsentAtStart(error)
        }
        initialSetUps = Set(machine.devices.values.filter { $0.phase == .resolving || $0.phase == .connected }.map(\.id))
        if !initialSetUps.isEmpty {
            let deadline = options.readyTimeout
            Task { [weak self] in
                try? await Task.sleep(for: deadline)
                await self?.releaseReadyWaiter()
            }
            await withCheckedContinuation { readyWaiter = $0 }
        }
        isReady = true
        publishStatus()
        let counts = machine.counts
        notifier.ready(status: statusLine(counts))
        logger.notice("fleetd is ready: \(statusLine(counts))", id: FleetMessageID.started.rawValue,
                      metadata: ["wanted": String(counts.wanted), "ready": String(counts.ready)])
        eventTask = Task { [weak self] in
            for await batch in events.batches {
                guard let self else { return }
                await self.handle(batch)
            }
            await self?.eventsEnded()
        }
    }

    /// Writes the Prometheus text to the textfile collector's directory, atomically (node_exporter must
    /// never read half a file) and world-readable (the unit's UMask is 0077).
    public func writeMetricsTextfile() {
        guard let path = options.metricsTextfile else { return }
        do {
            try AtomicFile.replace(path, with: Data(prometheusText().utf8), mode: 0o644)
        } catch {
            logger.warning("cannot write metrics to \(path): \(error)", metadata: ["path": path, "reason": "metrics-write-failed"])
        }
    }

    func releaseReadyWaiter() {
        readyWaiter?.resume()
        readyWaiter = nil
    }

    /// Reads the whole object tree and feeds it through the state machine (at start and after bluetoothd restarts).
    func reconcile() async throws(BlueZError) {
        tree = try await client.objects()
        reportProblems()
        let now = now()
        deferringStatusPublication {
            machine.beginReconciliation()
            for change in tree.reconciliation { perform(machine.apply(change, now: now)) }
            perform(machine.endReconciliation(now: now))
        }
    }

    /// Graceful shutdown: stop following events, flush the snapshot, leave or drop links as configured.
    public func stop() async {
        guard !stopping else { return }
        stopping = true
        publishStatus()
        notifier.stopping(status: "stopping")
        logger.notice("fleetd is stopping", id: FleetMessageID.stopping.rawValue)
        eventTask?.cancel()
        releaseArrivalWaiters()
        for task in timers.values { task.cancel() }
        timers.removeAll()
        // The last save compares everything: cheap once, and the file is exactly the state fleetd exits with.
        unsaved.insertEverything()
        writeSnapshot()
        readings?.close(logger: logger)
        if !options.leaveLinksOnExit {
            for device in machine.devices.values {
                guard let path = device.linkPath else { continue }
                do {
                    try await client.disconnect(device: path.rawValue)
                } catch {
                    logger.warning("stopping: disconnecting \(device.id) failed: \(error)", metadata: ["device": device.id.rawValue])
                }
            }
        }
        feed.close()
    }

    func restoreSnapshot() {
        guard let store else { return }
        for problem in store.unreadable {
            logger.error("state store \(store.path): \(problem); the row is skipped", id: FleetMessageID.snapshotRejected.rawValue,
                         metadata: ["path": store.path, "reason": "unreadable-row"])
        }
        let saved = store.saved
        guard !saved.devices.isEmpty || !saved.registry.entries.isEmpty || !saved.evictions.isEmpty else {
            logger.info("no saved state in \(store.path); starting from the configuration")
            return
        }
        machine.restore(saved)
        logger.notice("restored \(saved.devices.count) device(s) and \(saved.registry.entries.count) identities from \(store.path)",
                      id: FleetMessageID.snapshotRestored.rawValue, metadata: ["path": store.path])
        // What the configuration changed (or skipped rows) is written at once, not at the next change.
        schedulePersist()
    }

    func statusLine(_ counts: FleetStateMachine.Counts) -> String {
        (bluezOnBus ? "" : "waiting for bluetoothd (org.bluez is not on the bus); ") + "\(counts.wanted) wanted, \(counts.ready) ready, \(counts.backingOff) backing off, \(counts.connecting) connecting, \(counts.waiting) waiting for adapter, \(counts.failed) failed"
    }

    /// WATCHDOG=1, sent from inside the actor: proof that the supervisor's loop is not stuck.
    /// Not sent once the bus is lost: the process is alive but cannot reach BlueZ, which the watchdog
    /// must not vouch for. Returns whether the supervisor vouched for itself (true also when no service manager
    /// listens: the decision, not the delivery).
    @discardableResult public func watchdogPing() -> Bool {
        guard !busLost else { return false }
        notifier.watchdog()
        return true
    }

    func reportProblems() {
        for problem in tree.problems {
            logger.warning("malformed BlueZ reply: \(problem)", id: FleetMessageID.malformedReply.rawValue,
                           metadata: ["path": problem.path, "reason": "malformed-property"])
        }
        tree.problems.removeAll()
    }
}
