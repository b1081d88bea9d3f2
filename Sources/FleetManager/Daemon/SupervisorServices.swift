import FleetPlatform

/// The supervisor as a service: started means the snapshot is restored, BlueZ's tree adopted (or bluetoothd
/// found absent and awaited) and READY=1 sent; a graceful shutdown stops it in order (STOPPING=1, snapshot
/// flushed, links left or dropped as configured), a cancellation abandons it. Losing the bus fails it with
/// `BusLostError`, so the group shuts down and fleetd exits non-zero.
public struct SupervisorService: Service {
    public let supervisor: FleetSupervisor

    public init(_ supervisor: FleetSupervisor) { self.supervisor = supervisor }

    public func start() async throws { try await supervisor.start() }

    public func run() async throws {
        let supervisor = self.supervisor
        do {
            try await cancelWhenGracefulShutdown {
                try await supervisor.untilBusLost()
                throw BusLostError()
            }
        } catch let error as BusLostError {
            await supervisor.stop()
            throw error
        }
        await supervisor.stop()
    }
}

/// Rewrites the node_exporter textfile every `interval`, and once more on the way out.
public struct MetricsTextfileService: Service {
    public let supervisor: FleetSupervisor
    public let interval: Duration

    public init(_ supervisor: FleetSupervisor, interval: Duration) {
        self.supervisor = supervisor
        self.interval = interval
    }

    public func run() async throws {
        let (supervisor, interval) = (self.supervisor, self.interval)
        try await cancelWhenGracefulShutdown {
            while true {
                await supervisor.writeMetricsTextfile()
                try await Task.sleep(for: interval)
            }
        }
        await supervisor.writeMetricsTextfile()
    }
}

/// Sends WATCHDOG=1 at half systemd's interval, through the supervisor actor: the ping proves the
/// supervisor's loop is not stuck, not merely that the process is alive. Idle when the watchdog is off.
public struct WatchdogService: Service {
    public let supervisor: FleetSupervisor
    public let interval: Duration?

    public init(_ supervisor: FleetSupervisor, interval: Duration? = ServiceNotifier().watchdogInterval()) {
        self.supervisor = supervisor
        self.interval = interval
    }

    public func run() async throws {
        guard let interval else { return try await gracefulShutdown() }
        let supervisor = self.supervisor
        try await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: interval / 2)
                await supervisor.watchdogPing()
            }
        }
    }
}

/// Publishing to the fleet's MQTT broker, started once the supervisor is ready and stopped before it (so the
/// outbox is still open when the publisher records its last acknowledged cursor).
public struct BrokerService: Service {
    public let forwarder: BrokerForwarder
    public let supervisor: FleetSupervisor

    public init(_ forwarder: BrokerForwarder, supervisor: FleetSupervisor) {
        self.forwarder = forwarder
        self.supervisor = supervisor
    }

    public func start() async throws {
        let supervisor = self.supervisor
        forwarder.start(feed: supervisor.feed, rawDevices: supervisor.rawProfileDevices) { await supervisor.deviceInfos() }
    }

    public func run() async throws {
        try? await gracefulShutdown()
        await forwarder.stop()
    }
}
