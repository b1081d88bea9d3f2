import FleetBroker
import FleetPlatform
import FleetProtocol
import FleetStore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Supervision
import Synchronization

/// fleetd's readings on their way to the fleet's MQTT broker: the outbox's `mqtt` consumer feeds a
/// ``PublishPump`` over a ``BrokerConnection``; device states are retained as they change; the link's losses and
/// returns are logged with their MESSAGE_IDs.
///
/// Nothing here runs on the supervisor: the connection has its own network thread, the pump its own task, and
/// the supervisor is only asked for its device list when a session comes up (to retain every state at once).
/// Store-and-forward: the consumer's cursor moves only as far as the broker acknowledged (PUBACK), so a
/// broker outage, a restart or a SIGKILL of fleetd costs duplicates at most, never a gap, as long as
/// retention keeps the readings (what it drops first is counted and logged).
public final class BrokerForwarder: Sendable {
    /// The outbox consumer whose cursor is the broker's acknowledgement.
    public static let consumerName = "mqtt"

    public let connection: BrokerConnection
    let publisher: ReadingPublisher
    let pump: PublishPump
    let source: OutboxReadingSource
    let logger: Logger
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let pumpTask = Mutex<Task<Void, Never>?>(nil)
    /// The last state retained per device, so a state is published once per change.
    private let retainedStates = Mutex<[String: String]>([:])
    /// Forgotten devices whose retained state the broker may still hold: deleted at once, or at the next
    /// session when the link is down (not across a restart of fleetd).
    private let pendingClears = Mutex<Set<String>>([])

    /// Validates `configuration` (reading the credentials and TLS files) and registers the outbox consumer;
    /// ``start(feed:devices:)`` connects.
    public init(configuration: BrokerConfiguration, outbox: Outbox, logger: Logger,
                pumpConfiguration: PublishPumpConfiguration = PublishPumpConfiguration()) throws(BrokerError) {
        connection = try BrokerConnection(configuration)
        publisher = ReadingPublisher(connection: connection)
        self.logger = logger
        let base = connection.topics.base
        source = OutboxReadingSource(outbox: outbox, consumer: Self.consumerName) { gap, fresh in
            logger.warning("broker \(base): \(fresh) reading(s) were dropped by the outbox's retention before they were published (\(gap)); subscribers see a gap in their seq",
                           id: FleetMessageID.brokerReadingsDropped.rawValue,
                           metadata: ["reason": "retention dropped \(fresh) unpublished reading(s)", "topic": base])
        }
        var pumpConfiguration = pumpConfiguration
        pumpConfiguration.maxInFlight = min(pumpConfiguration.maxInFlight, configuration.maxInFlight)
        pump = PublishPump(source: source, publisher: publisher, configuration: pumpConfiguration) { report in
            Self.log(report, base: base, logger: logger)
        }
        do {
            try source.register()
        } catch {
            logger.error("cannot register the outbox consumer '\(Self.consumerName)': \(error); the pump retries at its next poll",
                         metadata: ["reason": "outbox-consumer"])
        }
    }

    /// Connects and starts publishing: the pump, the wake-up on every committed outbox batch, the retained
    /// device states from `feed`, and the link's log lines. `devices` gives every device's state when a
    /// session comes up.
    public func start(feed: EventFeed, rawDevices: RawProfileDevices, devices: @escaping @Sendable () async -> [DeviceInfo]) {
        source.rawDevices.withLock { $0 = rawDevices }
        let links = connection.linkEvents()
        let lifecycle = feed.subscribe()
        let (pump, source, connection) = (self.pump, self.source, self.connection)
        pumpTask.withLock { $0 = Task { await pump.run() } }
        let wake = Task {
            // A reading is readable once its batch committed: ring the pump then, not at append.
            while !Task.isCancelled, let subscription = source.outbox.subscribe() {
                for await _ in subscription.batches { pump.readingsAvailable() }
            }
        }
        let link = Task { [self] in
            var everConnected = false
            var reportedDown = false
            for await event in links {
                switch event {
                case .connected(let session, _):
                    if everConnected {
                        logger.notice("broker \(describe) is back (session \(session)); publishing the backlog",
                                      id: FleetMessageID.brokerBack.rawValue, metadata: ["topic": connection.topics.base])
                    } else {
                        logger.notice("connected to broker \(describe) as gateway \(connection.configuration.gatewayID)",
                                      metadata: ["topic": connection.topics.base])
                    }
                    everConnected = true
                    reportedDown = false
                    await retainAll(devices())
                case .lost(let error, let retryIn):
                    reportedDown = true
                    logger.warning("broker \(describe) lost: \(error); readings wait in the outbox, reconnecting in \(retryIn)",
                                   id: FleetMessageID.brokerLost.rawValue, metadata: ["reason": error.description, "topic": connection.topics.base])
                case .attemptFailed(let error, let retryIn):
                    if reportedDown {
                        logger.debug("broker \(describe): attempt failed: \(error); next in \(retryIn)")
                    } else {
                        reportedDown = true
                        logger.warning("broker \(describe) unreachable: \(error); readings wait in the outbox, retrying in \(retryIn)",
                                       id: FleetMessageID.brokerLost.rawValue, metadata: ["reason": error.description, "topic": connection.topics.base])
                    }
                case .stopped:
                    return
                }
            }
        }
        let statesTask = Task { [self] in
            for await entry in lifecycle {
                guard case .lifecycle(_, let phase) = entry.kind else { continue }
                retain(device: entry.device.rawValue, state: DeviceState(phase).rawValue, at: entry.time)
            }
        }
        tasks.withLock { $0 = [wake, link, statesTask] }
        connection.start()
    }

    /// Stops publishing in order: the pump publishes nothing new and waits (up to its drain timeout, 5 s) for the
    /// PUBACKs of what is in flight, tells the outbox the last acknowledged cursor, then the connection retains
    /// `offline` and disconnects (or, if the broker does not answer, leaves the will to say so). So a clean stop
    /// costs no duplicate after the restart.
    public func stop() async {
        pump.stop()
        await pumpTask.withLock { $0 }?.value
        await connection.shutdown()
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }

    var describe: String { "\(connection.configuration.host):\(connection.configuration.port)" }

    /// `fleetctl forget`: the device's retained state is deleted on the broker (an empty retained message), so
    /// dashboards stop showing a device this gateway no longer has.
    public func forget(device: String) {
        retainedStates.withLock { _ = $0.removeValue(forKey: device) }
        pendingClears.withLock { _ = $0.insert(device) }
        clearForgotten()
    }

    private func clearForgotten() {
        for device in pendingClears.withLock({ Array($0) }) {
            do {
                try publisher.clearState(device: device)
                pendingClears.withLock { _ = $0.remove(device) }
            } catch {
                if error.kind != .notConnected && error.kind != .shutDown {
                    logger.warning("cannot clear the retained state of \(device) on the broker: \(error)", metadata: ["device": device])
                }
            }
        }
    }

    private func retainAll(_ devices: [DeviceInfo]) {
        clearForgotten()
        retainedStates.withLock { $0.removeAll() }
        let now = Date()
        for device in devices { retain(device: device.id, state: device.state.rawValue, at: now) }
    }

    /// Retains a device's state if it changed. Not connected: the next session retains every state anyway.
    private func retain(device: String, state: String, at time: Date) {
        let changed = retainedStates.withLock { states -> Bool in
            guard states[device] != state else { return false }
            states[device] = state
            return true
        }
        guard changed else { return }
        do {
            try publisher.publish(RetainedDeviceState(device: device, state: state, wallTime: time))
        } catch {
            retainedStates.withLock { _ = $0.removeValue(forKey: device) }
            if error.kind != .notConnected && error.kind != .shutDown {
                logger.warning("cannot retain the state of \(device) on the broker: \(error)", metadata: ["device": device])
            }
        }
    }

    static func log(_ report: PublishPumpReport, base: String, logger: Logger) {
        switch report {
        case .rejected(let cursor, let error):
            logger.warning("broker refused reading \(cursor) on \(base): \(error); skipped", metadata: ["reason": "mqtt-rejected"])
        case .refusedForNow(let cursor, let error):
            logger.warning("broker refused reading \(cursor) on \(base) for now: \(error); publishing it again at the next poll",
                           metadata: ["reason": "mqtt-refused-for-now"])
        case .unpublishable(let cursor, let error):
            logger.warning("reading \(cursor) cannot be published on \(base): \(error); skipped", metadata: ["reason": "mqtt-unpublishable"])
        case .publishFailed(let error):
            logger.warning("publishing to the broker failed: \(error); retrying at the next poll", metadata: ["reason": "mqtt-publish-failed"])
        case .sourceFailed(let operation, let message):
            logger.warning("the outbox failed the broker publisher's \(operation): \(message); retrying at the next poll",
                           metadata: ["reason": "mqtt-outbox-failed"])
        }
    }

    /// The link and its backlog, for `fleetctl status`.
    public func linkInfo(outbox stats: OutboxStats? = nil) -> BrokerLinkInfo {
        let status = connection.status
        let pumped = pump.statistics
        let stats = stats ?? source.outbox.stats()
        let consumer = stats.consumers.first { $0.name == Self.consumerName }
        let backlog = consumer.map { Int($0.unacknowledged) } ?? Int(max(0, stats.lastCommittedID - stats.droppedThroughID))
        let oldest = consumer?.oldestUnacknowledgedWallNanoseconds.map { max(0, Date().timeIntervalSince1970 - Double($0) / 1e9) }
        let state: BrokerLinkInfo.LinkState
        switch status.phase {
        case .idle, .connecting: state = .connecting
        case .connected: state = .connected
        case .waiting: state = .waiting
        case .stopped: state = .stopped
        }
        return BrokerLinkInfo(broker: describe, gateway: connection.configuration.gatewayID, topicBase: connection.topics.base, state: state,
                              reconnects: status.reconnects, published: pumped.published, acknowledged: pumped.acknowledged,
                              backlog: backlog, oldestUnpublishedSeconds: oldest, lost: Int(source.lost),
                              lastError: status.lastError?.description)
    }

    /// The Prometheus families of the broker link.
    public func metricsText() -> String {
        FleetMetricsText.render(broker: linkInfo(), pump: pump.statistics, link: connection.status)
    }
}

extension BrokerForwarder {
    /// The forwarder `[mqtt]` asks for, or nil: none configured, or no outbox to forward from (logged as an
    /// error: publishing without store-and-forward would lose readings silently). Throws what libmosquitto or
    /// the files refuse, naming `gateway-id` when the host name it defaulted to cannot be a topic level.
    public static func open(_ settings: BrokerSettings?, outbox: Outbox?, logger: Logger,
                            hostName: String = BrokerForwarder.shortHostName()) throws(BrokerError) -> BrokerForwarder? {
        guard let settings else { return nil }
        guard let outbox else {
            logger.error("[mqtt] is configured but the outbox is unavailable; publishing nothing (readings are published from the outbox only)",
                         metadata: ["reason": "mqtt-without-outbox"])
            return nil
        }
        do {
            return try BrokerForwarder(configuration: settings.brokerConfiguration(hostName: hostName), outbox: outbox, logger: logger)
        } catch where settings.gatewayID == nil && error.kind == .invalidTopicSegment {
            throw BrokerError(error.kind, "[mqtt] gateway-id defaults to the host name, which cannot be one: \(error.message); set gateway-id")
        }
    }

    /// This machine's host name up to its first dot, the default gateway id.
    public static func shortHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "gateway" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(name.split(separator: ".").first ?? "gateway")
    }
}
