import BrokerTestKit
import FleetProtocol
import FleetTestKit
import Foundation
import Testing

/// The publisher's consumer `mqtt` belongs to fleetd: a control client cannot acknowledge it forward over the
/// backlog the broker has not yet taken, so the backlog still goes out with nothing lost (issue 41, point 3).
@Suite("the mqtt consumer is fleetd's own", .serialized)
struct FleetdReservedConsumerTests {
    @Test("fleetctl watch --consumer mqtt and Acknowledge(mqtt) are refused; the backlog is published without a gap")
    func theMQTTConsumerCannotBeMovedFromTheControlSocket() async throws {
        let broker = try await MosquittoBroker()
        let fleet = try await BrokerFleet(broker: broker, gateway: "gw-reserved")
        defer { fleet.harness.stop() }
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: fleet.base + "/#")
        defer { subscriber.stop() }
        try await fleet.harness.startDaemon()
        try await fleet.waitForReadings(subscriber, atLeast: 5)

        broker.stop()
        try await fleet.waitForLink("the link down and a backlog of 30") { link in
            link["state"]?.stringValue != "connected" && (link["backlog"]?.intValue ?? 0) >= 30
        }
        // What an operator might type: it would print the backlog and acknowledge it for the publisher.
        let watched = try await fleet.harness.fleetctl(["watch", "--consumer", "mqtt", "--count", "1000", "--timeout", "3", "--json"])
        #expect(watched.code == 2, "refused as bad usage: \(watched)")
        #expect(watched.stderr.contains("mqtt") && watched.stderr.contains("reserved"), "\(watched.stderr)")
        #expect(watched.stdout.isEmpty, "nothing of the publisher's backlog was shown")
        let last = try await fleet.harness.call(.status)["outbox"]?.objectValue?["lastCursor"]?.intValue ?? 0
        var refusal: String?
        do {
            _ = try await fleet.harness.call(.acknowledge, ["consumer": .string("mqtt"), "cursor": .int(last)])
        } catch {
            refusal = String(describing: error)
        }
        #expect(refusal?.contains("mqtt") == true && refusal?.contains("reserved") == true, "Acknowledge(mqtt) is refused: \(String(describing: refusal))")

        try await broker.start()
        try await fleet.waitForLink("the link back and the backlog published") { link in
            link["state"]?.stringValue == "connected" && (link["backlog"]?.intValue ?? 99) < 10
        }
        #expect(try await fleet.link()["lost"]?.intValue == 0)
        // Every reading reaches the subscriber: none was skipped by a foreign acknowledgement.
        _ = try await fleet.stopAndCheckContinuity(subscriber)
    }
}
