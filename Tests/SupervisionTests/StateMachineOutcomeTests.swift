@testable import Supervision
import Policy
import Testing

/// What the counters and the feed are made of: typed outcomes the machine returns beside its lifecycle
/// events, so that nothing is counted by reading log lines.
@Suite struct StateMachineOutcomeTests {
    let strap = Peripheral(1), other = Peripheral(2), critical = Peripheral(3)

    @Test func aLinkBackAfterALossIsAReconnectWithItsLatency() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        try driver.bringUp(strap)
        #expect(driver.history.outcomes.isEmpty, "a first link is no reconnect")
        let dropped = driver.linkDown(strap.object())
        let delay = try #require(dropped.scheduled.first?.after)
        let connect = try #require(driver.advance(by: delay).connects.first)
        driver.clock.advance(by: .milliseconds(250))
        let linked = driver.linkUp(strap.object()) + driver.connectFinished(connect)
        #expect(linked.outcomes == [.reconnected(strap.id, after: delay + .milliseconds(250))])
        let order = linked.compactMap { action -> String? in
            switch action {
            case .outcome: "reconnected"
            case .event(let event) where event.id == .connected: "connected"
            default: nil
            }
        }
        #expect(order == ["reconnected", "connected"], "the feed's marker comes before the link's event")
    }

    @Test func everyConnectFailureIsCountedByErrorClassEvenAStaleOne() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        let connect = try #require(driver.see(strap.object()).connects.first)
        let failed = driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        let expected = BlueZErrorClassifier.classify(FleetFixture.abortByLocal(connect.path).connectFailure).code
        #expect(failed.outcomes == [.connectFailed(strap.id, errorClass: expected)])
        let stale = driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        #expect(stale.outcomes == [.connectFailed(strap.id, errorClass: expected)], "BlueZ's answer is counted, the machine ignores it")
        #expect(stale.events.isEmpty)
    }

    @Test func anEvictionIsCountedByItsReason() throws {
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted(), critical.wanted(.critical)],
                                                           settings: FleetFixture.settings(capacity: 1)))
        driver.adapter()
        try driver.bringUp(strap)
        driver.clock.advance(by: .seconds(40))
        let admitted = driver.see(critical.object())
        let reason = try #require(admitted.events(.evicted).first?.reason)
        #expect(admitted.outcomes == [.evicted(strap.id, reason: reason)])
    }
}
