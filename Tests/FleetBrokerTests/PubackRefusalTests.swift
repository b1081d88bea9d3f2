import BrokerTestKit
import FleetBroker
import FleetTestKit
import Foundation
import Testing

/// PUBACK reason codes end to end: libmosquitto, the connection and the pump against Debian's mosquitto, with a
/// ``ReasonCodeProxy`` in between answering chosen publishes with the code under test (mosquitto 2.0 sends 0x87 and
/// 0x95 by itself, never 0x80, 0x83, 0x91 or 0x97 to a QoS 1 publish).
@Suite("PUBACK refusals against a real mosquitto", .serialized)
struct PubackRefusalTests {
    static let transient: [UInt8] = [0x80, 0x83, 0x91, 0x97]
    static let permanent: [UInt8] = [0x87, 0x90, 0x99]

    /// The `seq` of a reading payload.
    static func sequence(_ payload: [UInt8]) -> Int64? {
        (try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])?["seq"].flatMap { ($0 as? NSNumber)?.int64Value }
    }

    /// dev-0's readings pass; dev-1's are refused once each with a transient code (in turn), then pass; every tenth
    /// of dev-2's is refused with a permanent code every time it is published.
    @Test func transientRefusalsAreRetriedUntilDeliveredOnceAndPermanentOnesSettled() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: "fleetd/gw-rc/#")
        let proxy = try ReasonCodeProxy(broker: broker) { publish in
            guard let seq = Self.sequence(publish.payload) else { return nil }
            if publish.topic.hasPrefix("fleetd/gw-rc/dev-1/"), publish.attempt == 1 { return Self.transient[Int(seq) % Self.transient.count] }
            if publish.topic.hasPrefix("fleetd/gw-rc/dev-2/"), seq % 10 == 0 { return Self.permanent[Int(seq / 10) % Self.permanent.count] }
            return nil
        }
        var configuration = PublisherRig.configuration(broker, gateway: "gw-rc", version: .mqtt5)
        configuration.port = proxy.port
        let rig = try PublisherRig(configuration)
        rig.source.append(count: 300, devices: 3)
        rig.start()
        try await rig.waitUntilAllAcknowledged()
        let expected = ["dev-0": Int64(100), "dev-1": 100]
        try await subscriber.waitFor("every reading of dev-0 and dev-1") { ReadingLedger($0, base: "fleetd/gw-rc").isComplete(expected) }
        await rig.finish()

        let ledger = ReadingLedger(subscriber.messages(), base: "fleetd/gw-rc")
        #expect(ledger.duplicates == 0, "each reading arrives once: a refused publish was not delivered")
        #expect(ledger.sequences["dev-2"] == Set(1...100).subtracting(stride(from: 10, through: 100, by: 10)), "the permanently refused ones never arrive")
        let codes = proxy.refusals.map(\.code)
        #expect(codes.filter(Self.transient.contains).count == 100 && codes.filter(Self.permanent.contains).count == 10,
                "each permanent refusal answered once, never retried: \(codes.count) refusals")
        let statistics = rig.pump.statistics
        #expect(statistics.rejected == 10, "the permanent refusals are settled and counted")
        #expect(statistics.acknowledged == 290 && statistics.acknowledgedCursor == 300)
        #expect(statistics.republished == 100)
        let rejected = rig.reports.compactMap { if case .rejected(_, let error) = $0 { error.cause } else { nil } }
        #expect(Set(rejected.map(\.code)) == Set(Self.permanent.map(Int32.init)))
        #expect(rejected.contains(.reason(code: 0x99, text: "Payload format invalid")))
    }

    /// Mosquitto's own permanent refusal of an oversized payload (`message_size_limit`), without the proxy.
    @Test func mosquittosPacketTooLargeIsSettledNotRetried() async throws {
        let broker = try await MosquittoBroker(.init(extraConfiguration: ["message_size_limit 400"]))
        let rig = try PublisherRig(PublisherRig.configuration(broker, gateway: "gw-big", version: .mqtt5))
        rig.source.append(count: 20, devices: 2)
        let cursor = rig.source.lastCursor + 1
        rig.source.append([BrokerReading(cursor: cursor, device: "dev-0", characteristic: MemoryReadingSource.characteristic, sequence: 11,
                                         wallTime: Date(), session: 1, value: [UInt8](repeating: 7, count: 400))])
        rig.start()
        try await rig.waitUntilAllAcknowledged()
        let statistics = rig.pump.statistics
        #expect(statistics.rejected == 1 && statistics.acknowledged == 20 && statistics.republished == 0)
        guard case .rejected(let refused, let error) = rig.reports.first else { Issue.record("\(rig.reports)"); return }
        #expect(refused == cursor && error.cause == .reason(code: 0x95, text: "Packet too large"))
        await rig.finish()
    }
}
