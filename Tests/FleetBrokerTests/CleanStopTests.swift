import BrokerTestKit
import FleetBroker
import FleetTestKit
import Foundation
import Testing

/// docs/deployment.md, "What survives what": fleetd stopped (SIGTERM) and started publishes no reading twice. The
/// gateway is played by a rig whose successor reads the same source, as fleetd's next run reads the same outbox.
@Suite("a clean stop against a real mosquitto", .serialized)
struct CleanStopTests {
    /// The broker is frozen while the window fills, so the stop comes with hundreds of publishes in flight; it thaws once
    /// the stop is under way and its PUBACKs come during the drain.
    @Test(arguments: [BrokerConfiguration.ProtocolVersion.mqtt311, .mqtt5])
    func aCleanStopWaitsForThePubacksInFlightSoTheNextRunPublishesNothingTwice(version: BrokerConfiguration.ProtocolVersion) async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: "fleetd/gw-drain/#")
        let configuration = PublisherRig.configuration(broker, gateway: "gw-drain", version: version)
        let pump = PublishPumpConfiguration(maxInFlight: 500, acknowledgeEvery: 100)
        let first = try PublisherRig(configuration, pump: pump)
        first.source.append(count: 2_000, devices: 8)
        first.start()
        try await first.waitUntilAllAcknowledged()
        try broker.freeze()
        // The rest is appended only once the broker is frozen: appended before, a fast broker could acknowledge so
        // much of it before the freeze that fewer than 375 remained to fill the window (a failure seen in the suite).
        first.source.append(count: 18_000, devices: 8)
        // The pump refills only when a quarter of the window is free, so a frozen broker leaves 375…500 in flight.
        try await waitUntil("the window filled") { first.pump.statistics.inFlight >= 375 }
        let stopping = Task { await first.finish() }
        try broker.thaw()
        await stopping.value
        let acknowledgedAtStop = first.source.acknowledged
        #expect(first.pump.statistics.inFlight == 0, "the stop waited for every PUBACK in flight")
        #expect(acknowledgedAtStop == first.pump.statistics.settledCursor)

        let second = try PublisherRig(configuration, source: first.source, pump: pump)
        second.start()
        try await second.waitUntilAllAcknowledged(timeout: .seconds(60))
        await second.finish()
        let expected = first.source.lastSequences
        try await subscriber.waitFor("every reading at the subscriber", timeout: .seconds(60)) {
            ReadingLedger($0, base: "fleetd/gw-drain").isComplete(expected)
        }
        let ledger = ReadingLedger(subscriber.messages(), base: "fleetd/gw-drain")
        #expect(ledger.duplicates == 0, "\(ledger.duplicates) reading(s) published twice across the clean stop at cursor \(acknowledgedAtStop)")
        #expect(ledger.total == 20_000)
        #expect(second.pump.statistics.republished == 0)
    }
}
