import BrokerTestKit
import FleetBroker
import FleetTestKit
import Policy
import Synchronization

/// A BrokerConnection, its event log, an in-memory source and a running PublishPump, as fleetd will wire them.
final class PublisherRig: Sendable {
    /// Quick reconnects so a broker restart costs the test well under a second.
    static let quickBackoff = BackoffConfiguration(base: .milliseconds(50), cap: .milliseconds(400), floor: .milliseconds(20),
                                                   stableAfter: .seconds(60), recoveryWindow: .zero)

    /// The keep-alive and the connect timeout are long because the client runs in the test process: a stall of it
    /// longer than 1.5 keep-alives (7.5 s at 5 s) makes mosquitto drop the client, and a test counting sessions sees
    /// one too many; one longer than the connect timeout during a CONNECT fails the attempt.
    static func configuration(_ broker: MosquittoBroker, gateway: String, version: BrokerConfiguration.ProtocolVersion = .mqtt311,
                              keepAlive: Duration = .seconds(60)) -> BrokerConfiguration {
        BrokerConfiguration(host: broker.host, port: broker.port, gatewayID: gateway, protocolVersion: version,
                            keepAlive: keepAlive, connectTimeout: .seconds(30), backoff: quickBackoff, randomSeed: 17)
    }

    let connection: BrokerConnection
    let log: BrokerEventLog
    let source: MemoryReadingSource
    let pump: PublishPump
    private let recordedReports = Recorded<PublishPumpReport>()
    private let running = Mutex<Task<Void, Never>?>(nil)

    /// `source` may be another rig's, to play a restart of the gateway on the same outbox.
    init(_ configuration: BrokerConfiguration, source: MemoryReadingSource = MemoryReadingSource(),
         pump pumpConfiguration: PublishPumpConfiguration = PublishPumpConfiguration(maxInFlight: 200, acknowledgeEvery: 64)) throws {
        connection = try BrokerConnection(configuration)
        log = BrokerEventLog(connection)
        self.source = source
        pump = PublishPump(source: source, publisher: ReadingPublisher(connection: connection), configuration: pumpConfiguration) {
            [recordedReports] report in recordedReports.append(report)
        }
    }

    var reports: [PublishPumpReport] { recordedReports.values }

    func start() {
        connection.start()
        let pump = self.pump
        running.withLock { $0 = Task { await pump.run() } }
    }

    /// Waits until the source's cursor reaches its last reading.
    func waitUntilAllAcknowledged(timeout: Duration = .seconds(30)) async throws {
        let last = source.lastCursor
        try await waitUntil("the source's cursor to reach \(last) (at \(source.acknowledged))", timeout: timeout) { self.source.acknowledged == last }
    }

    func finish() async {
        pump.stop()
        await running.withLock { $0 }?.value
        await connection.shutdown()
    }
}
