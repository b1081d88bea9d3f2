import FleetBroker
import Testing

@Suite struct ReadingTopicsTests {
    @Test func buildsTheDocumentedTopics() throws {
        let topics = try ReadingTopics(gateway: "ward-3")
        #expect(topics.status == "fleetd/ward-3/status")
        #expect(topics.everything == "fleetd/ward-3/#")
        #expect(try topics.reading(device: "mfr-0059-0a1b", characteristic: "00002a37-0000-1000-8000-00805f9b34fb")
                == "fleetd/ward-3/mfr-0059-0a1b/00002a37-0000-1000-8000-00805f9b34fb")
        #expect(try topics.deviceState(device: "addr-AABBCCDDEEFF") == "fleetd/ward-3/addr-AABBCCDDEEFF/state")
        let nested = try ReadingTopics(prefix: "hospital/north/fleetd", gateway: "gw 1")
        #expect(nested.status == "hospital/north/fleetd/gw 1/status")
    }

    @Test(arguments: ["a/b", "a+b", "#", "", "x\u{0}y", "tab\there", String(repeating: "x", count: 129)])
    func rejectsIdsThatAreNotOneTopicLevel(_ id: String) throws {
        let topics = try ReadingTopics(gateway: "gw")
        #expect(!TopicSegment.isValid(id))
        for attempt in [{ _ = try topics.reading(device: id, characteristic: "2a37") },
                        { _ = try topics.reading(device: "dev", characteristic: id) },
                        { _ = try topics.deviceState(device: id) },
                        { _ = try ReadingTopics(gateway: id) }] as [() throws -> Void] {
            let error = #expect(throws: BrokerError.self) { try attempt() }
            #expect(error?.kind == .invalidTopicSegment)
        }
    }

    @Test func namesTheOffendingFieldAndCharacter() throws {
        let topics = try ReadingTopics(gateway: "gw")
        let error = #expect(throws: BrokerError.self) { try topics.reading(device: "bed/12", characteristic: "2a37") }
        #expect(error?.message.contains("device id 'bed/12'") == true)
        #expect(error?.message.contains("'/'") == true)
        let control = #expect(throws: BrokerError.self) { try ReadingTopics(gateway: "g\u{1}w") }
        #expect(control?.message.contains("U+0001") == true)
        #expect(control?.message.contains("gateway id") == true)
    }

    @Test func rejectsReservedPrefixesAndTheStateCharacteristic() throws {
        #expect(throws: BrokerError.self) { try ReadingTopics(prefix: "$SYS", gateway: "gw") }
        #expect(throws: BrokerError.self) { try ReadingTopics(prefix: "fleetd/", gateway: "gw") }
        #expect(throws: BrokerError.self) { try ReadingTopics(prefix: "", gateway: "gw") }
        let topics = try ReadingTopics(gateway: "gw")
        #expect(throws: BrokerError.self) { try topics.reading(device: "dev", characteristic: "state") }
        #expect(try topics.deviceState(device: "status") == "fleetd/gw/status/state", "four levels: never the gateway status")
    }

    @Test func acceptsFleetIdsAndUnicode() {
        for id in ["mfr-0059-0a1b2c3d4e5f", "svc-180d-01020304", "irk-ward.3_bed-12", "addr-AABBCCDDEEFF", "Bett Nr. 3 – Süd", "$dev"] {
            #expect(TopicSegment.isValid(id), "\(id)")
        }
    }
}
