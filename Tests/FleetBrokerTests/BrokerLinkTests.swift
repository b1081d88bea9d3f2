import BrokerTestKit
import FleetBroker
import FleetTestKit
import Foundation
import Policy
import Testing

/// The link's lifecycle against a real mosquitto: backoff, a broker restart, authentication, TLS, two gateways.
@Suite("the broker link against a real mosquitto", .serialized)
struct BrokerLinkTests {
    @Test func backsOffWithTheReconnectPolicyUntilTheBrokerIsThere() async throws {
        let broker = try await MosquittoBroker()
        broker.stop()
        let configuration = PublisherRig.configuration(broker, gateway: "gw-wait")
        let connection = try BrokerConnection(configuration)
        let log = BrokerEventLog(connection)
        connection.start()
        try await log.waitFor("four failed attempts") { _ in log.linkEvents.count >= 4 }
        try await broker.start()
        try await log.waitForSession(1, timeout: .seconds(30))

        let failures = log.linkEvents.prefix { if case .attemptFailed = $0 { true } else { false } }
        #expect(failures.count >= 4)
        // Every attempt here falls in the outage's first two minutes.
        let policy = configuration.reconnectPolicy
        for (index, event) in failures.enumerated() {
            guard case .attemptFailed(let error, let delay) = event else { continue }
            #expect(error.kind == .connectFailed)
            #expect(error.cause == .system(errno: ECONNREFUSED, text: String(cString: strerror(ECONNREFUSED))))
            #expect(error.message.contains("127.0.0.1:\(broker.port)"))
            #expect(policy.bounds(outageAge: .zero, attempt: index + 1).contains(delay), "attempt \(index + 1) waited \(delay)")
        }
        let status = connection.status
        #expect(status.failedAttempts == failures.count && status.phase == .connected && status.lastError?.kind == .connectFailed)
        await connection.shutdown()
    }

    /// The broker goes away mid-stream and comes back: the pump reconnects with backoff, readings that
    /// accumulated meanwhile go out, and the subscriber sees every device's sequence without a gap.
    @Test(arguments: [BrokerConfiguration.ProtocolVersion.mqtt311, .mqtt5])
    func aBrokerRestartLosesNoReading(version: BrokerConfiguration.ProtocolVersion) async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: "fleetd/gw-r/#", clientID: "sub-restart")
        let rig = try PublisherRig(PublisherRig.configuration(broker, gateway: "gw-r", version: version),
                                   pump: PublishPumpConfiguration(maxInFlight: 500, acknowledgeEvery: 100))
        rig.source.append(count: 20_000, devices: 8)
        rig.start()
        try await waitUntil("some readings acknowledged") { rig.source.acknowledged >= 1000 }
        broker.stop()
        try await rig.log.waitFor("the session to be lost") { if case .link(.lost) = $0 { true } else { false } }
        // The log hears of the loss on the network thread; the pump settles the PUBACKs that came before it and
        // empties its window on its own task, a moment later.
        try await waitUntil("the pump to take in the loss") {
            let statistics = rig.pump.statistics
            return statistics.inFlight == 0 && statistics.acknowledgedCursor == statistics.settledCursor
        }
        let acknowledgedWhileDown = rig.source.acknowledged
        rig.source.append(count: 5000, devices: 8)
        rig.pump.readingsAvailable()
        try await rig.log.waitFor("a failed attempt while the broker is away") { if case .link(.attemptFailed) = $0 { true } else { false } }
        #expect(rig.source.acknowledged == acknowledgedWhileDown, "nothing is acknowledged while the broker is away")
        try await broker.start()
        try await rig.log.waitForSession(2)
        try await rig.waitUntilAllAcknowledged(timeout: .seconds(60))
        let expected = rig.source.lastSequences
        try await subscriber.waitFor("every reading at the subscriber", timeout: .seconds(60)) {
            ReadingLedger($0, base: "fleetd/gw-r").isComplete(expected)
        }
        let ledger = ReadingLedger(subscriber.messages(), base: "fleetd/gw-r")
        #expect(ledger.missing(expected).isEmpty)
        let statistics = rig.pump.statistics
        #expect(statistics.sessions == 2 && statistics.acknowledgedCursor == 25_000)
        #expect(statistics.published == 25_000 + statistics.republished)
        let lost = rig.log.linkEvents.first { if case .lost = $0 { true } else { false } }
        guard case .lost(let error, let delay) = lost else { Issue.record("no lost event"); return }
        #expect(error.kind == .connectionLost && error.cause != nil)
        #expect(Backoff(configuration: PublisherRig.quickBackoff).bounds(afterFailures: 1).contains(delay))
        #expect(rig.log.linkEvents.contains(.connected(session: 2, isReconnect: true)))
        #expect(rig.connection.status.losses == 1 && rig.connection.status.reconnects == 1)
        await rig.finish()
    }

    /// docs/mqtt.md: a broker back within two minutes of the outage's start is tried again within a second. The
    /// default backoff (1 s doubling to 60 s), a real mosquitto stopped for about 3 s and started on the same port;
    /// the wait for the new session is a deadline of that second plus half a second for the connect itself.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func aBrokerBackAfterAShortOutageIsRetriedWithinASecond(seed: UInt64) async throws {
        let broker = try await MosquittoBroker()
        let configuration = BrokerConfiguration(host: broker.host, port: broker.port, gatewayID: "gw-back-\(seed)", keepAlive: .seconds(60),
                                                connectTimeout: .seconds(30), randomSeed: seed)
        let connection = try BrokerConnection(configuration)
        let log = BrokerEventLog(connection)
        let sessions = Recorded<(session: Int, at: ContinuousClock.Instant)>()
        let timing = connection.observe { event in
            if case .link(.connected(let session, _)) = event { sessions.append((session, .now)) }
        }
        defer { timing.cancel() }
        connection.start()
        try await log.waitForSession(1)
        broker.stop()
        let stopped = ContinuousClock.now
        try await log.waitFor("the session to be lost") { if case .link(.lost) = $0 { true } else { false } }
        try await waitUntil("an outage of 3 s with failed attempts in it", timeout: .seconds(20)) {
            ContinuousClock.now - stopped >= .seconds(3) && log.linkEvents.contains { if case .attemptFailed = $0 { true } else { false } }
        }
        try await broker.start()
        let back = ContinuousClock.now
        do {
            try await log.waitForSession(2, timeout: .milliseconds(1500))
        } catch {
            Issue.record("not reconnected within 1.5 s of the broker's return: \(log.linkEvents)")
        }
        let reconnected = sessions.values.first { $0.session == 2 }?.at
        let delays = log.linkEvents.compactMap { event -> Duration? in
            switch event {
            case .attemptFailed(_, let delay), .lost(_, let delay): delay
            default: nil
            }
        }
        print("seed \(seed): outage \(back - stopped), reconnected \(reconnected.map { $0 - back } ?? .seconds(-1)) after the broker's return; delays \(delays)")
        for delay in delays { #expect(delay <= .seconds(1), "a young outage waits at most 1 s: \(delays)") }
        await connection.shutdown()
    }

    /// A broker that stops answering (SIGSTOP: the socket stays open) is noticed by the keep-alive, not by TCP.
    @Test func aSilentBrokerIsLostByKeepAlive() async throws {
        let broker = try await MosquittoBroker()
        let connection = try BrokerConnection(PublisherRig.configuration(broker, gateway: "gw-silent", keepAlive: .seconds(5)))
        let log = BrokerEventLog(connection)
        connection.start()
        try await log.waitForSession(1)
        let frozen = ContinuousClock.now
        try broker.freeze()
        let lost = try await log.waitFor("the keep-alive to give up", timeout: .seconds(20)) { if case .link(.lost) = $0 { true } else { false } }
        let waited = ContinuousClock.now - frozen
        try broker.thaw()
        guard case .link(.lost(let error, _)) = lost else { return }
        #expect(error.kind == .connectionLost)
        guard case .library(let code, let text) = error.cause else { Issue.record("\(error)"); return }
        #expect(code == 19 && !text.isEmpty, "MOSQ_ERR_KEEPALIVE: \(error)")
        #expect(waited >= .seconds(4), "keep-alive is 5 s: \(waited)")
        try await log.waitForSession(2, timeout: .seconds(30))
        await connection.shutdown()
    }

    @Test(arguments: [BrokerConfiguration.ProtocolVersion.mqtt311, .mqtt5])
    func passwordAuthenticationFromACredentialsFile(version: BrokerConfiguration.ProtocolVersion) async throws {
        let broker = try await MosquittoBroker(.init(users: ["gw-auth": "right horse", "watcher": "w"]))
        let directory = try TemporaryDirectory(prefix: "fleet-broker-credentials")
        let good = directory.path + "/good", bad = directory.path + "/bad"
        try "username=gw-auth\npassword=right horse\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "username=gw-auth\npassword=wrong\n".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(chmod(good, 0o600) == 0 && chmod(bad, 0o600) == 0)

        var refusedConfiguration = PublisherRig.configuration(broker, gateway: "gw-auth", version: version)
        refusedConfiguration.credentialsFile = bad
        refusedConfiguration.allowPlaintextPassword = true  // mosquitto on 127.0.0.1 without TLS
        let refused = try BrokerConnection(refusedConfiguration)
        let refusedLog = BrokerEventLog(refused)
        refused.start()
        let failure = try await refusedLog.waitFor("the broker to refuse the password") { if case .link(.attemptFailed) = $0 { true } else { false } }
        await refused.shutdown()
        guard case .link(.attemptFailed(let error, _)) = failure else { return }
        #expect(error.kind == .connectionRefused)
        switch version {
        case .mqtt311: #expect(error.cause == .connack(code: 5, text: "Connection Refused: not authorised."))
        case .mqtt5: #expect(error.cause?.code == 0x86 || error.cause?.code == 0x87, "\(error)")
        }

        let subscriber = try await MosquittoSubscriber(broker: broker, filter: "fleetd/gw-auth/#", username: "watcher", password: "w")
        var configuration = PublisherRig.configuration(broker, gateway: "gw-auth", version: version)
        configuration.credentialsFile = good
        configuration.allowPlaintextPassword = true
        let rig = try PublisherRig(configuration)
        rig.source.append(count: 100, devices: 2)
        rig.start()
        try await rig.waitUntilAllAcknowledged()
        try await subscriber.waitFor("the readings") { ReadingLedger($0, base: "fleetd/gw-auth").total >= 100 }
        await rig.finish()
    }

    @Test func twoGatewaysOnOneBrokerKeepTheirTopicsAndStatusApart() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: "fleetd/#")
        let north = try ProbeProcess(broker: broker, gateway: "gw-north", readings: 300, devices: 3)
        let south = try ProbeProcess(broker: broker, gateway: "gw-south", readings: 200, devices: 3, extra: ["--mqtt5"])
        try await north.waitFor("acknowledged 300")
        try await south.waitFor("acknowledged 200")
        let expectedNorth: [String: Int64] = ["dev-0": 100, "dev-1": 100, "dev-2": 100]
        let expectedSouth: [String: Int64] = ["dev-0": 67, "dev-1": 67, "dev-2": 66]
        try await subscriber.waitFor("both gateways' readings") {
            ReadingLedger($0, base: "fleetd/gw-north").isComplete(expectedNorth) && ReadingLedger($0, base: "fleetd/gw-south").isComplete(expectedSouth)
        }
        let messages = subscriber.messages()
        #expect(ReadingLedger(messages, base: "fleetd/gw-north").total == 300, "no reading of the other gateway under gw-north")
        #expect(ReadingLedger(messages, base: "fleetd/gw-south").total == 200)
        #expect(!north.text.contains("lost") && !south.text.contains("lost"), "distinct client ids: neither takes over the other's session")

        try north.process.kill(signal: SIGKILL)
        try await waitUntil("gw-north's will") {
            try await MosquittoSubscriber.retained(on: "fleetd/gw-north/status", broker: broker)?.payload == "offline"
        }
        #expect(try await MosquittoSubscriber.retained(on: "fleetd/gw-south/status", broker: broker)?.payload == "online")
        try south.process.kill(signal: SIGTERM)
        #expect(await south.process.wait(timeout: .seconds(30)) == 0, "SIGTERM is a graceful shutdown: \(south.text)")
        #expect(try await MosquittoSubscriber.retained(on: "fleetd/gw-south/status", broker: broker)?.payload == "offline")
        #expect(south.text.contains("stopped"))
    }

    @Test func tlsWithACAFileAndWithAClientCertificate() async throws {
        let directory = try TemporaryDirectory(prefix: "fleet-broker-tls")
        let certificates = try TestCertificates.make(in: directory.path)
        for requireClientCertificate in [false, true] {
            let broker = try await MosquittoBroker(.init(tls: certificates, requireClientCertificate: requireClientCertificate))
            let subscriber = try await MosquittoSubscriber(broker: broker, filter: "fleetd/gw-tls/#")
            var configuration = PublisherRig.configuration(broker, gateway: "gw-tls")
            configuration.tls = BrokerTLS(caFile: certificates.caCertificate,
                                          certificateFile: requireClientCertificate ? certificates.clientCertificate : nil,
                                          keyFile: requireClientCertificate ? certificates.clientKey : nil)
            let rig = try PublisherRig(configuration)
            rig.source.append(count: 200, devices: 2)
            rig.start()
            try await rig.waitUntilAllAcknowledged()
            try await subscriber.waitFor("the readings over TLS") { ReadingLedger($0, base: "fleetd/gw-tls").isComplete(["dev-0": 100, "dev-1": 100]) }
            await rig.finish()
            #expect(broker.log.contains("gw-tls"))
        }
    }

    @Test func tlsRefusesABrokerSignedByAnotherCA() async throws {
        let directory = try TemporaryDirectory(prefix: "fleet-broker-tls")
        let other = directory.path + "/other"
        #expect(mkdir(other, 0o700) == 0)
        let certificates = try TestCertificates.make(in: directory.path)
        let stranger = try TestCertificates.make(in: other, name: "stranger")
        let broker = try await MosquittoBroker(.init(tls: certificates))
        var configuration = PublisherRig.configuration(broker, gateway: "gw-tls-bad")
        configuration.tls = BrokerTLS(caFile: stranger.caCertificate)
        let connection = try BrokerConnection(configuration)
        let log = BrokerEventLog(connection)
        connection.start()
        let failure = try await log.waitFor("the TLS handshake to fail") { if case .link(.attemptFailed) = $0 { true } else { false } }
        await connection.shutdown()
        guard case .link(.attemptFailed(let error, _)) = failure else { return }
        #expect(error.kind == .connectFailed)
        #expect(error.cause?.code == 8 || error.cause?.code == 23, "MOSQ_ERR_TLS or MOSQ_ERR_TLS_HANDSHAKE: \(error)")
        #expect(!log.linkEvents.contains { if case .connected = $0 { true } else { false } })
    }
}
