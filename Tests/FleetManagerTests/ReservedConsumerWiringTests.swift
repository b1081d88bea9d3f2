import FleetManager
import FleetProtocol
import Testing

/// fleetd's own consumers use names the control socket refuses to clients (issue 41, point 3).
@Suite struct ReservedConsumerWiringTests {
    @Test func thePublishersConsumerNameIsReserved() {
        #expect(ReservedConsumerName.rule(reserving: BrokerForwarder.consumerName) == "mqtt")
    }
}
