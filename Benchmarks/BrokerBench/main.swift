// BrokerBench: QoS 1 publish throughput to a local mosquitto (readings/s counted at the PUBACK that advances
// the source's cursor) and the catch-up rate of a backlog published after the broker returns. One
// `name: value unit` line per figure. The broker is Debian's /usr/sbin/mosquitto on a loopback port with no
// subscriber, so the figures are the gateway's side: encoding, libmosquitto, the socket, the broker's PUBACK.
// BROKER_BENCH_WINDOW=N sets the publish window (default 1000); BROKER_BENCH_TCP_NODELAY=1 turns Nagle off
// on the broker.
import BrokerTestKit
import FleetBroker
import FleetTestKit
import Foundation
import Policy
#if canImport(Glibc)
import Glibc
#endif

let publishCount = 50_000
let backlogCount = 100_000
let devices = 16
/// The publish window (the pump's and libmosquitto's in-flight limit); BROKER_BENCH_WINDOW overrides it.
let window = ProcessInfo.processInfo.environment["BROKER_BENCH_WINDOW"].flatMap(Int.init) ?? 1000

func figure(_ name: String, _ value: Double, _ unit: String, decimals: Int = 0) {
    print("\(name): \(String(format: "%.\(decimals)f", value)) \(unit)")
    fflush(nil)
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// A source whose acknowledgements can be awaited exactly.
struct Publisher {
    let connection: BrokerConnection
    let source: MemoryReadingSource
    let pump: PublishPump
    let acknowledged: AsyncStream<Int64>
    let links: AsyncStream<BrokerLinkEvent>
    let task: Task<Void, Never>

    init(broker: MosquittoBroker, version: BrokerConfiguration.ProtocolVersion) throws {
        var configuration = BrokerConfiguration(host: broker.host, port: broker.port, gatewayID: "bench-\(version.rawValue)",
                                                protocolVersion: version, maxInFlight: window, randomSeed: 1)
        configuration.backoff = BackoffConfiguration(base: .milliseconds(50), cap: .milliseconds(200), floor: .milliseconds(20), recoveryWindow: .zero)
        connection = try BrokerConnection(configuration)
        let (acknowledged, cursors) = AsyncStream.makeStream(of: Int64.self)
        self.acknowledged = acknowledged
        source = MemoryReadingSource { cursors.yield($0) }
        links = connection.linkEvents()
        pump = PublishPump(source: source, publisher: ReadingPublisher(connection: connection),
                           configuration: PublishPumpConfiguration(maxInFlight: window, readBatch: 256, acknowledgeEvery: 1000)) { report in
            FileHandle.standardError.write(Data("BrokerBench: \(report)\n".utf8))
        }
        connection.start()
        let pump = self.pump
        task = Task { await pump.run() }
    }

    func waitForLink(_ match: (BrokerLinkEvent) -> Bool) async {
        for await event in links where match(event) { return }
    }

    func waitUntilAcknowledged(_ cursor: Int64) async {
        for await value in acknowledged where value >= cursor { return }
    }

    func finish() async {
        pump.stop()
        await task.value
        await connection.shutdown()
    }
}

func isConnected(_ event: BrokerLinkEvent) -> Bool { if case .connected = event { true } else { false } }

/// BROKER_BENCH_TCP_NODELAY=1 runs the broker with `set_tcp_nodelay true` (see docs/mqtt.md).
let broker = try await MosquittoBroker(.init(tcpNoDelay: ProcessInfo.processInfo.environment["BROKER_BENCH_TCP_NODELAY"] == "1"))
for version in [BrokerConfiguration.ProtocolVersion.mqtt311, .mqtt5] {
    let publisher = try Publisher(broker: broker, version: version)
    await publisher.waitForLink(isConnected)
    let label = version == .mqtt5 ? "mqtt5" : "mqtt311"
    let cpuBefore = cpuSeconds()
    let start = ContinuousClock.now
    let last = publisher.source.append(count: publishCount, devices: devices)
    publisher.pump.readingsAvailable()
    await publisher.waitUntilAcknowledged(last)
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    figure("broker_publish_qos1_\(label)", Double(publishCount) / seconds, "readings/s")
    figure("broker_publish_cpu_per_reading_\(label)", (cpuSeconds() - cpuBefore) / Double(publishCount) * 1e6, "us", decimals: 1)

    guard version == .mqtt311 else { await publisher.finish(); continue }
    // Catch-up: the broker goes away, a backlog piles up in the source, the broker returns.
    broker.stop()
    await publisher.waitForLink { if case .lost = $0 { true } else { false } }
    let backlogLast = publisher.source.append(count: backlogCount, devices: devices)
    publisher.pump.readingsAvailable()
    let brokerBack = ContinuousClock.now
    try await broker.start()
    await publisher.waitForLink(isConnected)
    let reconnected = ContinuousClock.now
    await publisher.waitUntilAcknowledged(backlogLast)
    let caughtUp = ContinuousClock.now - reconnected
    let catchUpSeconds = Double(caughtUp.components.seconds) + Double(caughtUp.components.attoseconds) / 1e18
    let reconnect = reconnected - brokerBack
    figure("broker_catchup_\(backlogCount / 1000)k_backlog", Double(backlogCount) / catchUpSeconds, "readings/s")
    figure("broker_catchup_\(backlogCount / 1000)k_backlog_time", catchUpSeconds, "s", decimals: 2)
    figure("broker_reconnect_after_restart", Double(reconnect.components.seconds) * 1000 + Double(reconnect.components.attoseconds) / 1e15, "ms")
    await publisher.finish()
}
broker.stop()
