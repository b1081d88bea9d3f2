import FleetProtocol
import Testing

@Suite struct ReservedConsumerNameTests {
    @Test func reservedNamesAndPrefixesAreFoundInAnyASCIICase() {
        #expect(ReservedConsumerName.rule(reserving: "mqtt") == "mqtt")
        #expect(ReservedConsumerName.rule(reserving: "Mqtt") == "mqtt")
        #expect(ReservedConsumerName.rule(reserving: "fhir") == "fhir")
        #expect(ReservedConsumerName.rule(reserving: "fleetd") == "fleetd*")
        #expect(ReservedConsumerName.rule(reserving: "FleetD-export") == "fleetd*")
        #expect(ReservedConsumerName.rule(reserving: "_") == "_*")
        #expect(ReservedConsumerName.rule(reserving: "_audit") == "_*")
    }

    @Test func otherNamesAreFree() {
        for name in ["archiver", "dashboard", "mqtt2", "mqtt-bridge", "my-fhir", "fleet", "a_b", "grafana"] {
            #expect(ReservedConsumerName.rule(reserving: name) == nil, "\(name)")
        }
        #expect(ReservedConsumerName.rules == ["mqtt", "fhir", "fleetd*", "_*"])
    }
}
