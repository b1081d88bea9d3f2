import BrokerTestKit
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// fleetd on the simulator publishing to Debian's mosquitto: an independent `mosquitto_sub` with a persistent
/// session checks that each device's seq arrives without a gap (duplicates allowed: QoS 1 is at-least-once)
/// through broker outages, a SIGKILL of fleetd and a retention overflow, and that gateways share a broker.
@Suite("fleetd publishing to a real broker", .serialized)
struct FleetdPublishingTests {
    @Test("the broker stopped and restarted: readings wait in the outbox and arrive in order, without a gap")
    func brokerStopAndRestart() async throws {
        let broker = try await MosquittoBroker()
        let fleet = try await BrokerFleet(broker: broker, gateway: "gw-a")
        defer { fleet.harness.stop() }
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: fleet.base + "/#")
        defer { subscriber.stop() }
        try await fleet.harness.startDaemon()
        try await fleet.waitForReadings(subscriber, atLeast: 5)
        try await BrokerFleet.waitForRetained("online", on: fleet.base + "/status", broker: broker)
        try await fleet.waitForRetainedState(BrokerFleet.ids[0], "ready", broker: broker)

        broker.stop()
        try await fleet.waitForLink("the link down and a backlog of 30") { link in
            link["state"]?.stringValue != "connected" && (link["backlog"]?.intValue ?? 0) >= 30
        }
        let status = try await fleet.harness.fleetctl(["status"])
        #expect(status.stdout.contains("BROKER") && status.stdout.contains("gw-a"), "fleetctl status: \(status.stdout)")
        try await broker.start()
        try await fleet.waitForLink("the link back and the backlog published") { link in
            link["state"]?.stringValue == "connected" && (link["reconnects"]?.intValue ?? 0) >= 1 && (link["backlog"]?.intValue ?? 99) < 10
        }
        let metrics = try await fleet.harness.call(.metrics)["text"]?.stringValue ?? ""
        #expect(metrics.contains("fleetd_mqtt_reconnects_total 1"), "\(metrics)")
        #expect(metrics.contains("fleetd_mqtt_connected 1"))
        let log = fleet.harness.log()
        #expect(log.contains("broker 127.0.0.1:\(broker.port) lost"), "no 'broker lost' line")
        #expect(log.contains("is back"), "no 'broker back' line")
        _ = try await fleet.stopAndCheckContinuity(subscriber)
        // A clean stop retains offline itself.
        try await BrokerFleet.waitForRetained("offline", on: fleet.base + "/status", broker: broker)
    }

    @Test("fleetd SIGKILLed while publishing: the will says offline; after a restart nothing is missing, duplicates allowed")
    func fleetdKilledWhilePublishing() async throws {
        let broker = try await MosquittoBroker()
        let fleet = try await BrokerFleet(broker: broker, gateway: "gw-kill", interval: 0.05)
        defer { fleet.harness.stop() }
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: fleet.base + "/#")
        defer { subscriber.stop() }
        try await fleet.harness.startDaemon()
        try await fleet.waitForReadings(subscriber, atLeast: 20)
        try await fleet.harness.killDaemon(signal: SIGKILL)
        try await BrokerFleet.waitForRetained("offline", on: fleet.base + "/status", broker: broker)
        let before = ReadingLedger(subscriber.messages(), base: fleet.base).total
        try await fleet.harness.startDaemon()
        try await BrokerFleet.waitForRetained("online", on: fleet.base + "/status", broker: broker)
        try await subscriber.waitFor("readings after the restart", timeout: .seconds(40)) {
            ReadingLedger($0, base: fleet.base).total >= before + 60
        }
        let (ledger, _) = try await fleet.stopAndCheckContinuity(subscriber)
        print("after SIGKILL: \(ledger.total) readings received, \(ledger.duplicates) duplicate(s)")
    }

    /// docs/deployment.md: "fleetd stopped (SIGTERM) and started … no duplicate". The broker is frozen so that the
    /// stop comes with readings in flight; it thaws once fleetd is stopping, and their PUBACKs come during the drain.
    @Test("fleetd stopped (SIGTERM) with readings in flight and started again: no reading is published twice")
    func cleanStopPublishesNothingTwice() async throws {
        let broker = try await MosquittoBroker()
        let fleet = try await BrokerFleet(broker: broker, gateway: "gw-term", interval: 0.05)
        defer { fleet.harness.stop() }
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: fleet.base + "/#")
        defer { subscriber.stop() }
        try await fleet.harness.startDaemon()
        try await fleet.waitForReadings(subscriber, atLeast: 20)
        try broker.freeze()
        defer { try? broker.thaw() }
        try await fleet.waitForLink("readings waiting for their PUBACK") { ($0["backlog"]?.intValue ?? 0) >= 20 }
        let harness = fleet.harness
        async let exit = harness.signalDaemon(SIGTERM)
        try await waitUntil("fleetd to begin its stop") { harness.log().contains("stopping") }
        try broker.thaw()
        #expect(try await exit == 0)
        let before = ReadingLedger(subscriber.messages(), base: fleet.base).total
        try await fleet.harness.startDaemon()
        try await subscriber.waitFor("readings after the restart", timeout: .seconds(40)) {
            ReadingLedger($0, base: fleet.base).total >= before + 60
        }
        let (ledger, _) = try await fleet.stopAndCheckContinuity(subscriber)
        #expect(ledger.duplicates == 0, "\(ledger.duplicates) of \(ledger.total) readings arrived twice across clean stops")
    }

    @Test("retention overflows while the broker is away: the dropped readings are reported and counted, the rest arrive")
    func retentionOverflow() async throws {
        let broker = try await MosquittoBroker()
        let fleet = try await BrokerFleet(broker: broker, gateway: "gw-small", interval: 0.05, extra: "[outbox]\nmax-rows = 20\ncommit-delay = 20ms\n")
        defer { fleet.harness.stop() }
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: fleet.base + "/#")
        defer { subscriber.stop() }
        try await fleet.harness.startDaemon()
        try await fleet.waitForReadings(subscriber, atLeast: 5)
        broker.stop()
        do {
            try await waitUntil("retention to drop 30 readings", timeout: .seconds(40)) {
                let text = try await fleet.harness.call(.metrics)["text"]?.stringValue ?? ""
                let dropped = text.split(separator: "\n").first { $0.hasPrefix("fleetd_outbox_dropped_retention_total ") }
                return (dropped.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0) >= 30
            }
        } catch {
            let text = try await fleet.harness.call(.metrics)["text"]?.stringValue ?? ""
            throw TestKitError("\(error)\n\(text.split(separator: "\n").filter { $0.hasPrefix("fleetd_outbox") || $0.hasPrefix("fleetd_mqtt") }.joined(separator: "\n"))\n\(fleet.harness.logTail(20))")
        }
        try await broker.start()
        try await fleet.waitForLink("the link back and the loss counted") { link in
            link["state"]?.stringValue == "connected" && (link["lost"]?.intValue ?? 0) > 0
        }
        let lost = try await fleet.link()["lost"]?.intValue ?? 0
        let metrics = try await fleet.harness.call(.metrics)["text"]?.stringValue ?? ""
        #expect(metrics.contains("fleetd_mqtt_lost_total \(lost)"))
        #expect(fleet.harness.log().contains("dropped by the outbox's retention before they were published"))
        try await fleet.waitForReadings(subscriber, atLeast: 20)
        let (_, missing) = try await fleet.stopAndCheckContinuity(subscriber, allowGap: true)
        let missed = missing.values.map(\.count).reduce(0, +)
        #expect(missed > 0, "retention dropped readings, yet the subscriber misses none")
        // The cursor may lag the PUBACKs a little, so a reading counted lost may have reached the broker.
        #expect(missed <= lost, "the subscriber misses \(missed) readings, fleetd counted \(lost)")
    }

    @Test("two gateways with different ids publish to one broker without clashing")
    func twoGatewaysOneBroker() async throws {
        let broker = try await MosquittoBroker()
        let ward3 = try await BrokerFleet(broker: broker, gateway: "ward-3", interval: 0.2)
        defer { ward3.harness.stop() }
        let ward4 = try await BrokerFleet(broker: broker, gateway: "ward-4", interval: 0.2)
        defer { ward4.harness.stop() }
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: "fleetd/#")
        defer { subscriber.stop() }
        try await ward3.harness.startDaemon()
        try await ward4.harness.startDaemon()
        try await ward3.waitForReadings(subscriber, atLeast: 10)
        try await ward4.waitForReadings(subscriber, atLeast: 10)
        try await BrokerFleet.waitForRetained("online", on: "fleetd/ward-3/status", broker: broker)
        try await BrokerFleet.waitForRetained("online", on: "fleetd/ward-4/status", broker: broker)
        // The same device ids on both gateways, under separate topics; neither session displaced the other.
        for fleet in [ward3, ward4] {
            let link = try await fleet.link()
            #expect(link["state"]?.stringValue == "connected")
            #expect(link["reconnects"]?.intValue == 0, "\(fleet.gateway) reconnected: \(link)")
        }
        #expect(!broker.log.contains("already connected"), "a client id clashed:\n\(broker.log)")
        _ = try await ward3.stopAndCheckContinuity(subscriber)
        _ = try await ward4.stopAndCheckContinuity(subscriber)
        try await BrokerFleet.waitForRetained("offline", on: "fleetd/ward-3/status", broker: broker)
        try await BrokerFleet.waitForRetained("offline", on: "fleetd/ward-4/status", broker: broker)
    }

    @Test("fleetctl forget deletes the device's retained state on the broker; the others keep theirs")
    func forgetClearsRetainedState() async throws {
        let broker = try await MosquittoBroker()
        let ward = try await BrokerFleet(broker: broker, gateway: "ward-5", interval: 0.5)
        defer { ward.harness.stop() }
        try await ward.harness.startDaemon()
        for id in BrokerFleet.ids { try await ward.waitForRetainedState(id, "ready", broker: broker) }
        let forgotten = BrokerFleet.id(1)
        let forget = try await ward.harness.fleetctl(["forget", forgotten])
        #expect(forget.code == 0, "\(forget)")
        try await waitUntil("\(forgotten)'s retained state deleted", timeout: .seconds(20)) {
            try await MosquittoSubscriber.retained(on: ward.base + "/" + forgotten + "/state", broker: broker) == nil
        }
        try await ward.waitForRetainedState(BrokerFleet.id(2), "ready", broker: broker)
    }
}
