import BrokerTestKit
import FleetBroker
import FleetTestKit
import Foundation
import Policy
import Testing

/// Against Debian's mosquitto, started per test on a free loopback port.
@Suite("publishing to a real mosquitto", .serialized)
struct BrokerPublishTests {
    @Test(arguments: [BrokerConfiguration.ProtocolVersion.mqtt311, .mqtt5])
    func qos1PublishesArriveAndPubacksAdvanceTheCursor(version: BrokerConfiguration.ProtocolVersion) async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: "fleetd/gw-q/#")
        let rig = try PublisherRig(PublisherRig.configuration(broker, gateway: "gw-q", version: version))
        rig.source.append(count: 3000, devices: 6)
        rig.start()
        try await rig.waitUntilAllAcknowledged()
        let expected = rig.source.lastSequences
        try await subscriber.waitFor("every reading at the subscriber") { ReadingLedger($0, base: "fleetd/gw-q").isComplete(expected) }

        let ledger = ReadingLedger(subscriber.messages(), base: "fleetd/gw-q")
        #expect(ledger.missing(expected).isEmpty)
        #expect(ledger.malformed.isEmpty)
        #expect(ledger.topics["dev-3"] == ["fleetd/gw-q/dev-3/\(MemoryReadingSource.characteristic)"])
        let calls = rig.source.acknowledgeCalls
        #expect(calls == calls.sorted() && calls.last == 3000)
        #expect(calls.count < 3000 / 32, "acknowledgements are batched (\(calls.count) calls)")
        let statistics = rig.pump.statistics
        #expect(statistics.acknowledged == 3000 && statistics.published == 3000 && statistics.republished == 0)
        #expect(statistics.acknowledgedCursor == 3000 && statistics.inFlight == 0 && statistics.sessions == 1)
        #expect(rig.reports.isEmpty)
        let first = subscriber.messages().first { !$0.topic.contains("/_marker/") }
        #expect(first?.topic == "fleetd/gw-q/status" && first?.payload == "online", "the status goes out before any reading")

        await rig.finish()
        #expect(rig.log.linkEvents == [.connected(session: 1, isReconnect: false), .stopped])
        let status = try await MosquittoSubscriber.retained(on: "fleetd/gw-q/status", broker: broker)
        #expect(status?.payload == "offline" && status?.retained == true, "a shutdown leaves the retained status offline")
        #expect(rig.connection.status.phase == .stopped)
        #expect(throws: BrokerError.self) { try rig.connection.publish(topic: "fleetd/gw-q/x", payload: []) }
    }

    @Test func publishReturnsTheIdItsPubackCarries() async throws {
        let broker = try await MosquittoBroker()
        let connection = try BrokerConnection(PublisherRig.configuration(broker, gateway: "gw-id"))
        let log = BrokerEventLog(connection)
        let early = #expect(throws: BrokerError.self) { try connection.publish(topic: "fleetd/gw-id/x", payload: [1]) }
        #expect(early?.kind == .notConnected)
        connection.start()
        try await log.waitForSession(1)
        #expect(connection.status.phase == .connected && connection.status.session == 1)
        var ids: [PublishID] = []
        for n in 0..<50 { ids.append(try connection.publish(topic: "fleetd/gw-id/n", payload: Array("\(n)".utf8))) }
        #expect(Set(ids).count == 50 && ids.allSatisfy { $0.session == 1 })
        try await log.waitFor("50 PUBACKs") { _ in log.events.filter { if case .acknowledged = $0 { true } else { false } }.count == 50 }
        let acknowledged = log.events.compactMap { if case .acknowledged(let id) = $0 { id } else { nil } }
        #expect(Set(acknowledged) == Set(ids), "exactly the returned ids are acknowledged; the status publish is not reported")
        let invalid = #expect(throws: BrokerError.self) { try connection.publish(topic: "fleetd/+/x", payload: []) }
        #expect(invalid?.kind == .messageInvalid)
        #expect(invalid?.cause?.code == 3, "MOSQ_ERR_INVAL, with its own text: \(String(describing: invalid))")
        await connection.shutdown()
        await connection.shutdown()
    }

    @Test func theLastWillIsRetainedOfflineWhenThePublisherIsKilled() async throws {
        let broker = try await MosquittoBroker()
        let probe = try ProbeProcess(broker: broker, gateway: "gw-will", readings: 500)
        try await probe.waitFor("acknowledged 500")
        let online = try await MosquittoSubscriber.retained(on: "fleetd/gw-will/status", broker: broker)
        #expect(online?.payload == "online" && online?.retained == true)
        try probe.process.kill(signal: SIGKILL)
        try await waitUntil("the broker to publish the will") {
            try await MosquittoSubscriber.retained(on: "fleetd/gw-will/status", broker: broker)?.payload == "offline"
        }
        #expect(broker.log.contains("gw-will"))
    }

    @Test func aRejectedPublishIsReportedAndDoesNotHoldTheCursor() async throws {
        // The ACL lets anonymous clients publish dev-0's readings only; under MQTT 5 mosquitto answers the others
        // with PUBACK reason 0x87 (not authorized).
        let broker = try await MosquittoBroker(.init(acl: [
            "topic readwrite fleetd/gw-acl/status", "topic readwrite fleetd/gw-acl/dev-0/#",
            "topic readwrite fleetd/gw-acl/_marker/#", "topic read fleetd/#",
        ]))
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: "fleetd/gw-acl/#")
        let rig = try PublisherRig(PublisherRig.configuration(broker, gateway: "gw-acl", version: .mqtt5))
        rig.source.append(count: 40, devices: 2)
        rig.start()
        try await rig.waitUntilAllAcknowledged()
        let statistics = rig.pump.statistics
        #expect(statistics.rejected == 20 && statistics.acknowledged == 20)
        let rejected = rig.reports.compactMap { if case .rejected(let cursor, let error) = $0 { (cursor, error) } else { nil } }
        #expect(rejected.map(\.0) == Array(stride(from: 2, through: 40, by: 2)))
        #expect(rejected.first?.1.kind == .publishRejected)
        #expect(rejected.first?.1.cause == .reason(code: 0x87, text: "Not authorized"))
        try await subscriber.waitFor("dev-0's 20 readings") { ReadingLedger($0, base: "fleetd/gw-acl").isComplete(["dev-0": 20]) }
        #expect(ReadingLedger(subscriber.messages(), base: "fleetd/gw-acl").sequences["dev-1"] == nil)
        await rig.finish()
    }

    @Test func unpublishableReadingsAreSettledAndReported() async throws {
        let broker = try await MosquittoBroker()
        let rig = try PublisherRig(PublisherRig.configuration(broker, gateway: "gw-bad"))
        rig.source.append(count: 10, devices: 2)
        let date = Date()
        rig.source.append([BrokerReading(cursor: 11, device: "bed/12", characteristic: "2a37", sequence: 1, wallTime: date, session: 1, value: [1]),
                           BrokerReading(cursor: 12, device: "dev-0", characteristic: "2a37", sequence: 6, wallTime: date, session: 1, value: [2])])
        rig.start()
        try await rig.waitUntilAllAcknowledged()
        #expect(rig.pump.statistics.unpublishable == 1 && rig.pump.statistics.acknowledged == 11)
        guard case .unpublishable(let cursor, let error) = try #require(rig.reports.first) else { Issue.record("\(rig.reports)"); return }
        #expect(cursor == 11 && error.kind == .invalidTopicSegment && error.message.contains("bed/12"))
        await rig.finish()
    }
}

/// fleet-broker-probe in a child process, its output in a file of the broker's directory.
struct ProbeProcess {
    let process: ChildProcess
    let output: String

    init(broker: MosquittoBroker, gateway: String, readings: Int, devices: Int = 4, extra: [String] = []) throws {
        output = broker.directory.path + "/probe-\(gateway).out"
        process = try ChildProcess(BuildProducts.path("fleet-broker-probe"),
                                   ["--port", String(broker.port), "--gateway", gateway, "--readings", String(readings),
                                    "--devices", String(devices)] + extra, stdout: output, stderr: output)
    }

    var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

    func waitFor(_ line: String, timeout: Duration = .seconds(20)) async throws {
        try await waitUntil("fleet-broker-probe to print '\(line)'", timeout: timeout) {
            guard process.isRunning || text.split(separator: "\n").contains(Substring(line)) else {
                throw TestKitError("fleet-broker-probe exited: \(text)")
            }
            return text.split(separator: "\n").contains(Substring(line))
        }
    }
}
