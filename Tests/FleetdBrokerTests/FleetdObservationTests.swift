import BlueZSimulator
import BrokerTestKit
import FleetTestKit
import Foundation
import GATTProfiles
import Testing

/// Readings, not bytes, end to end: one simulated device per standard measurement, laid out by the simulator from
/// a ground truth; fleetd arms their profiles by itself (no `subscribe` in its configuration), stores the raw
/// bytes, decodes at read-out and publishes to Debian's mosquitto; a subscriber decodes the payload's
/// `observation` as a consumer would and compares each reading with its truth.
@Suite("decoded observations on a real broker", .serialized)
struct FleetdObservationTests {
    /// Stream → (simulator service, measurement characteristic).
    static let devices: [(SimulatedMeasurement, service: String, characteristic: String)] = [
        (.heartRate, "heart-rate-rr", "2a37"), (.bloodPressure, "blood-pressure", "2a35"), (.temperature, "thermometer", "2a1c"),
        (.glucose, "glucose-meter", "2a18"), (.pulseOximetry, "pulse-oximeter", "2a5f"), (.weight, "weight-scale", "2a9d"),
        (.cyclingSpeedCadence, "cycling-speed-cadence", "2a5b"), (.runningSpeedCadence, "running-speed-cadence", "2a53"),
        (.cyclingPower, "cycling-power", "2a63"), (.bodyComposition, "body-composition", "2a9c"),
        (.continuousGlucose, "continuous-glucose", "2aa7"),
    ]
    static let readingsEach = 12

    static func id(_ i: Int) -> String { "addr-B000000000\(String(format: "%02X", i + 1))" }

    static var scenario: String {
        "adapters 1\ncapacity 12\n" + devices.enumerated().map { i, d in
            "device d\(i + 1) address=B0:00:00:00:00:\(String(format: "%02X", i + 1)) name=\"\(d.service)\" profile=\(d.service) "
                + "notify-every=0.25 interval=0.2 rssi=-50"
        }.joined(separator: "\n")
    }

    static func configuration(_ broker: MosquittoBroker) -> String {
        "[adapters]\ncapacity = 12\n\n" + devices.indices.map { "[device \"\(id($0))\"]\nclass = critical\n" }.joined(separator: "\n")
            + "\n[mqtt]\nhost = \(broker.host)\nport = \(broker.port)\ngateway-id = gw-obs\nkeep-alive = 5s\n"
    }

    /// The measurement readings of device `i`, each once (QoS 1 may deliver twice), in cursor order.
    static func readings(_ messages: [SubscribedMessage], device i: Int) -> [(cursor: Int, payload: [String: Any])] {
        let topic = "fleetd/gw-obs/\(id(i))/0000\(devices[i].characteristic)-0000-1000-8000-00805f9b34fb"
        var byCursor: [Int: [String: Any]] = [:]
        for message in messages where message.topic == topic {
            guard let object = try? JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any],
                  let cursor = object["cursor"] as? Int, object["kind"] as? String != "read" else { continue }
            byCursor[cursor] = object
        }
        return byCursor.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    @Test("every standard measurement reaches the broker decoded, equal to the simulator's ground truth, none lost")
    func observationsMatchTheGroundTruth() async throws {
        let broker = try await MosquittoBroker()
        let harness = try await FleetHarness(scenario: Self.scenario, configuration: Self.configuration(broker), startFleetd: false)
        defer { harness.stop() }
        let subscriber = try await MosquittoSubscriber(broker: broker, filter: "fleetd/gw-obs/#")
        defer { subscriber.stop() }
        try await harness.startDaemon()
        do {
            try await subscriber.waitFor("\(Self.readingsEach) measurements of every device", timeout: .seconds(60)) { messages in
                Self.devices.indices.allSatisfy { Self.readings(messages, device: $0).count >= Self.readingsEach }
            }
        } catch {
            let counts = Self.devices.indices.map { "\(Self.devices[$0].service): \(Self.readings(subscriber.messages(), device: $0).count)" }
            let topics = Set(subscriber.messages().map(\.topic)).sorted()
            throw TestKitError("\(error); measurements \(counts); topics \(topics)\n--- fleetd ---\n\(harness.logTail(40))")
        }
        let messages = subscriber.messages()
        for (i, device) in Self.devices.enumerated() {
            // The simulator numbers a characteristic's notifications from 0 for as long as it runs, and sends them
            // only while fleetd is subscribed; one link per device here, so reading k is notification k.
            for (k, reading) in Self.readings(messages, device: i).enumerated() {
                let truth = device.0.truth(number: UInt64(k))
                let json = try JSONSerialization.data(withJSONObject: try #require(reading.payload["observation"], "\(device.service) #\(k) not decoded: \(reading.payload)"))
                let observation = try JSONDecoder().decode(Observation.self, from: json)
                for (metric, text) in truth.quantities {
                    let expected = try #require(DecimalNumber(parsing: text))
                    #expect(observation.quantity(metric)?.value == .number(expected),
                            "\(device.service) #\(k): \(metric) \(String(describing: observation.quantity(metric)?.value)), truth \(text)")
                }
                #expect(observation.deviceTime?.description == truth.deviceTime, "\(device.service) #\(k)")
                #expect(observation.record == truth.record, "\(device.service) #\(k)")
                #expect(Set(truth.flags).isSubset(of: observation.flags), "\(device.service) #\(k): \(observation.flags), truth \(truth.flags)")
                // The raw bytes travel beside the observations: what the simulator sent.
                #expect(reading.payload["value"] as? String == device.0.value(number: UInt64(k)).map { String(format: "%02x", $0) }.joined())
            }
        }
    }
}
