import BrokerTestKit
@testable import FleetBroker
import Testing

/// The pump's state machine driven by synthetic connection events: no broker, no clock, no task. The PUBACKs are
/// built by ``BrokerEvent/answer(to:reason:broker:)``, as the connection builds them from libmosquitto's callback.
@Suite struct PumpCycleTests {
    /// Hands out message ids in one session and records what was published, in order.
    final class StubPublisher: @unchecked Sendable {
        // @unchecked: used by the one test task that drives the cycle.
        var session = 1
        var nextID: Int32 = 1
        var published: [(cursor: Int64, id: PublishID)] = []

        func publish(_ reading: BrokerReading) throws(BrokerError) -> PublishID {
            let id = PublishID(session: session, messageID: nextID)
            nextID += 1
            published.append((reading.cursor, id))
            return id
        }

        func id(of cursor: Int64) -> PublishID? { published.last { $0.cursor == cursor }?.id }
    }

    struct Rig {
        let source = MemoryReadingSource()
        let publisher = StubPublisher()
        let reports = Recorded<PublishPumpReport>()
        var cycle: PumpCycle

        init(readings: Int, configuration: PublishPumpConfiguration = PublishPumpConfiguration(maxInFlight: 10, acknowledgeEvery: 1000)) {
            source.append(count: readings, devices: 2)
            let (publisher, reports) = (self.publisher, self.reports)
            cycle = PumpCycle(source: source, configuration: configuration, report: { reports.append($0) }) {
                (reading) throws(BrokerError) -> PublishID in try publisher.publish(reading)
            }
            cycle.start()
        }

        /// Handles one inbox; returns whether the pump would end now.
        @discardableResult
        mutating func handle(_ events: [BrokerEvent] = [], readingsAvailable: Bool = false, tick: Bool = false, stop: Bool = false) -> Bool {
            cycle.handle(PumpInbox(events: events, readingsAvailable: readingsAvailable, tick: tick, stop: stop))
        }

        /// The PUBACK of the last publish of `cursor` with reason `code`.
        func puback(_ cursor: Int64, _ code: Int32 = 0) -> BrokerEvent {
            .answer(to: publisher.id(of: cursor)!, reason: code, broker: "test:1883")
        }

        var publishedCursors: [Int64] { publisher.published.map(\.cursor) }
    }

    /// MQTT 5.0 §3.4.2.1: 0x97 "Quota exceeded" means an imposed limit was reached, not that the message is wrong.
    @Test(arguments: [0x80, 0x83, 0x91, 0x97] as [Int32])
    func aTransientRefusalIsPublishedAgainAtTheNextPollAndHoldsTheCursor(code: Int32) {
        var rig = Rig(readings: 5)
        rig.handle([.link(.connected(session: 1, isReconnect: false))])
        #expect(rig.publishedCursors == [1, 2, 3, 4, 5])
        rig.handle([rig.puback(1), rig.puback(2, code), rig.puback(3), rig.puback(4), rig.puback(5)])
        #expect(rig.cycle.statistics.rejected == 0, "0x\(String(code, radix: 16)) is not a permanent refusal")
        #expect(rig.cycle.statistics.settledCursor == 1, "reading 2 is not settled: the cursor stays below it")
        #expect(rig.source.acknowledged <= 1)
        rig.handle(readingsAvailable: true)
        #expect(rig.publishedCursors == [1, 2, 3, 4, 5], "no republication before the next poll: not a hot loop")
        rig.handle(tick: true)
        #expect(rig.publishedCursors == [1, 2, 3, 4, 5, 2], "the refused reading goes out again at the poll")
        #expect(rig.cycle.statistics.republished == 1)
        rig.handle([rig.puback(2)])
        #expect(rig.cycle.statistics.settledCursor == 5 && rig.source.acknowledged == 5)
        #expect(rig.cycle.statistics.acknowledged == 5 && rig.cycle.statistics.inFlight == 0)
    }

    @Test func aReadingRefusedAgainWaitsForAnotherPollEachTime() {
        var rig = Rig(readings: 3)
        rig.handle([.link(.connected(session: 1, isReconnect: false))])
        rig.handle([rig.puback(1), rig.puback(2, 0x97), rig.puback(3)])
        for round in 1...3 {
            rig.handle(tick: true)
            #expect(rig.publishedCursors.filter { $0 == 2 }.count == round + 1)
            rig.handle([rig.puback(2, 0x97)])
            rig.handle(readingsAvailable: true)
            #expect(rig.publishedCursors.filter { $0 == 2 }.count == round + 1, "round \(round): republished before the poll")
        }
        #expect(rig.cycle.statistics.settledCursor == 1 && rig.cycle.statistics.rejected == 0)
    }

    @Test func newReadingsWaitWhileTheBrokerPushesBack() {
        var rig = Rig(readings: 4, configuration: PublishPumpConfiguration(maxInFlight: 2, acknowledgeEvery: 1000))
        rig.handle([.link(.connected(session: 1, isReconnect: false))])
        #expect(rig.publishedCursors == [1, 2])
        rig.handle([rig.puback(1, 0x97), rig.puback(2)])
        #expect(rig.publishedCursors == [1, 2], "quota exceeded: nothing new goes out before the next poll")
        rig.handle(tick: true)
        #expect(rig.publishedCursors == [1, 2, 1], "2 is settled, but behind 1 the window is full")
        rig.handle([rig.puback(1)])
        #expect(rig.publishedCursors == [1, 2, 1, 3, 4] && rig.cycle.statistics.settledCursor == 2)
        #expect(rig.cycle.statistics.refusedForNow == 1 && rig.cycle.statistics.republished == 1)
        guard case .refusedForNow(1, let error) = rig.reports.values.first else { Issue.record("\(rig.reports.values)"); return }
        #expect(error.kind == .publishRefusedForNow && error.cause?.code == 0x97)
    }

    /// MQTT 5.0 §3.4.2.1: 0x87 "Not authorized", 0x90 "Topic Name invalid", 0x99 "Payload format invalid" would be
    /// answered the same way again.
    @Test(arguments: [0x87, 0x90, 0x99] as [Int32])
    func aPermanentRefusalIsSettledCountedAndReported(code: Int32) {
        var rig = Rig(readings: 3)
        rig.handle([.link(.connected(session: 1, isReconnect: false))])
        rig.handle([rig.puback(1), rig.puback(2, code), rig.puback(3)])
        #expect(rig.cycle.statistics.rejected == 1 && rig.cycle.statistics.acknowledged == 2)
        #expect(rig.cycle.statistics.settledCursor == 3 && rig.source.acknowledged == 3)
        rig.handle(tick: true)
        #expect(rig.publishedCursors == [1, 2, 3], "a permanent refusal is never published again")
        guard case .rejected(let cursor, let error) = rig.reports.values.first else { Issue.record("\(rig.reports.values)"); return }
        #expect(cursor == 2 && error.kind == .publishRejected && error.cause?.code == code)
    }

    /// docs/deployment.md: a clean stop commits the cursor of what the broker acknowledged, so a restart publishes
    /// nothing twice. The stop waits for the PUBACKs of what is on the wire.
    @Test func aStopWaitsForThePubacksInFlightAndPublishesNothingNew() {
        var rig = Rig(readings: 8, configuration: PublishPumpConfiguration(maxInFlight: 5, acknowledgeEvery: 1000))
        rig.handle([.link(.connected(session: 1, isReconnect: false))])
        rig.handle([rig.puback(1)])
        #expect(rig.publishedCursors == [1, 2, 3, 4, 5, 6])
        let ended = rig.handle(stop: true)
        #expect(!ended, "five publishes await their PUBACK")
        let stillDraining = rig.handle([rig.puback(2), rig.puback(4)], readingsAvailable: true, tick: true)
        #expect(!stillDraining)
        #expect(rig.publishedCursors == [1, 2, 3, 4, 5, 6], "nothing new goes out once the stop is asked for")
        let drained = rig.handle([rig.puback(3), rig.puback(5), rig.puback(6)])
        #expect(drained, "every PUBACK is in: the pump ends")
        rig.cycle.flushAcknowledgements(force: true)
        #expect(rig.source.acknowledged == 6, "the cursor covers everything the broker acknowledged")
    }

    @Test func aDrainEndsAtItsDeadlineOrWhenTheSessionGoesWithWhatWasAcknowledged() {
        var rig = Rig(readings: 4)
        rig.handle([.link(.connected(session: 1, isReconnect: false))])
        rig.handle([rig.puback(1), rig.puback(3)], stop: true)
        let expired = rig.cycle.handle(PumpInbox(stop: true, drainExpired: true))
        #expect(expired)
        rig.cycle.flushAcknowledgements(force: true)
        #expect(rig.source.acknowledged == 1, "2 never answered: the next run publishes it (and 3, 4) again")

        var lost = Rig(readings: 4)
        lost.handle([.link(.connected(session: 1, isReconnect: false))])
        let draining = lost.handle(stop: true)
        let ended = lost.handle([lost.puback(1), .link(.lost(BrokerError(.connectionLost, "gone"), retryIn: .seconds(1)))])
        #expect(!draining && ended, "no PUBACK comes after the session ended")
        lost.cycle.flushAcknowledgements(force: true)
        #expect(lost.source.acknowledged == 1)
    }

    @Test func aStopDoesNotWaitForReadingsRefusedForNowNorRepublishesThem() {
        var rig = Rig(readings: 3)
        rig.handle([.link(.connected(session: 1, isReconnect: false))])
        rig.handle([rig.puback(1), rig.puback(2, 0x97)])
        let draining = rig.handle(tick: true, stop: true)
        #expect(!draining && rig.publishedCursors == [1, 2, 3], "3 awaits its PUBACK; 2 is not sent again during the stop")
        let ended = rig.handle([rig.puback(3)])
        #expect(ended)
        rig.cycle.flushAcknowledgements(force: true)
        #expect(rig.source.acknowledged == 1)
    }

    @Test func aStopWithoutASessionEndsAtOnce() {
        var rig = Rig(readings: 3)
        let ended = rig.handle(stop: true)
        #expect(ended && rig.publishedCursors.isEmpty)
    }

    @Test func aLostSessionForgetsThePendingRetriesAndRepublishesFromTheCursor() {
        var rig = Rig(readings: 3)
        rig.handle([.link(.connected(session: 1, isReconnect: false))])
        rig.handle([rig.puback(1), rig.puback(2, 0x97)])
        rig.handle([.link(.lost(BrokerError(.connectionLost, "gone"), retryIn: .seconds(1)))])
        rig.publisher.session = 2
        rig.handle([.link(.connected(session: 2, isReconnect: true))])
        #expect(rig.publishedCursors == [1, 2, 3, 2, 3], "after the reconnect: everything after the acknowledged cursor, once")
        rig.handle(tick: true)
        #expect(rig.publishedCursors == [1, 2, 3, 2, 3], "the retry of the old session is not sent on top")
    }
}
