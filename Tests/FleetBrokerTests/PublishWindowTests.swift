import FleetBroker
import FleetPlatform
import Policy
import Testing

@Suite struct PublishWindowTests {
    func id(_ n: Int32, session: Int = 1) -> PublishID { PublishID(session: session, messageID: n) }

    @Test func advancesOnlyOverAContiguousAcknowledgedPrefix() {
        var window = PublishWindow(capacity: 10, acknowledgedCursor: 10)
        for (cursor, message) in [(11, 1), (12, 2), (13, 3)] { window.published(cursor: Int64(cursor), id: id(Int32(message))) }
        #expect(window.inFlight == 3 && window.room == 7 && window.publishedCursor == 13)
        #expect(window.acknowledge(id(2)) == 12)
        #expect(window.acknowledgedCursor == 10, "12 is acknowledged but 11 is not: the cursor must stay")
        #expect(window.acknowledge(id(1)) == 11)
        #expect(window.acknowledgedCursor == 12)
        #expect(window.inFlight == 1)
        #expect(window.acknowledge(id(3)) == 13)
        #expect(window.acknowledgedCursor == 13 && window.isEmpty)
    }

    @Test func ignoresUnknownAndRepeatedAcknowledgements() {
        var window = PublishWindow(capacity: 4, acknowledgedCursor: 0)
        window.published(cursor: 1, id: id(1))
        #expect(window.acknowledge(id(1, session: 2)) == nil, "the same message id in another session is another message")
        #expect(window.acknowledge(id(9)) == nil)
        #expect(window.acknowledge(id(1)) == 1)
        #expect(window.acknowledge(id(1)) == nil)
        #expect(window.acknowledgedCursor == 1)
    }

    @Test func restartForgetsInFlightAndRewindsToTheAcknowledgedCursor() {
        var window = PublishWindow(capacity: 8, acknowledgedCursor: 100)
        for n in 1...5 { window.published(cursor: 100 + Int64(n), id: id(Int32(n))) }
        _ = window.acknowledge(id(1))
        _ = window.acknowledge(id(2))
        _ = window.acknowledge(id(4))
        #expect(window.acknowledgedCursor == 102)
        window.restart()
        #expect(window.isEmpty && window.publishedCursor == 102 && window.acknowledgedCursor == 102)
        #expect(window.acknowledge(id(3)) == nil, "a PUBACK of the ended session must not count")
        window.published(cursor: 103, id: id(1, session: 2))
        #expect(window.acknowledge(id(1, session: 2)) == 103)
        #expect(window.acknowledgedCursor == 103)
    }

    @Test func unpublishableReadingsDoNotHoldTheCursorBack() {
        var window = PublishWindow(capacity: 8, acknowledgedCursor: 0)
        window.published(cursor: 1, id: id(1))
        #expect(window.settleUnpublished(cursor: 2) == nil, "still behind cursor 1")
        window.published(cursor: 5, id: id(2))
        #expect(window.acknowledge(id(1)) == 1)
        #expect(window.acknowledgedCursor == 2)
        #expect(window.acknowledge(id(2)) == 5)
        #expect(window.acknowledgedCursor == 5, "cursors need not be contiguous")
    }

    /// Random interleavings of publishes and out-of-order acknowledgements, checked against the definition:
    /// the cursor is the highest one with every cursor at or below it acknowledged.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func matchesTheDefinitionUnderRandomOrder(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var window = PublishWindow(capacity: 64, acknowledgedCursor: 0)
        var outstanding: [(PublishID, Int64)] = []
        var acknowledged = Set<Int64>()
        var next: Int64 = 1
        var message: Int32 = 1
        for _ in 0..<20_000 {
            if window.room > 0 && (outstanding.isEmpty || Int.random(in: 0..<3, using: &random) > 0) {
                let publishID = id(message)
                message = message == 65_535 ? 1 : message + 1
                window.published(cursor: next, id: publishID)
                outstanding.append((publishID, next))
                next += 1
            } else {
                let (publishID, cursor) = outstanding.remove(at: Int.random(in: 0..<outstanding.count, using: &random))
                #expect(window.acknowledge(publishID) == cursor)
                acknowledged.insert(cursor)
                var expected = window.acknowledgedCursor
                while acknowledged.contains(expected + 1) { expected += 1 }
                #expect(window.acknowledgedCursor == expected)
                #expect(outstanding.allSatisfy { $0.1 > window.acknowledgedCursor })
            }
        }
    }
}

@Suite struct PublishWindowRetryTests {
    func id(_ n: Int32) -> PublishID { PublishID(session: 1, messageID: n) }

    /// The table in PublishWindow's documentation, row by row.
    @Test func aReadingRefusedForNowKeepsItsPlaceUntilItIsAnsweredAgain() {
        var window = PublishWindow(capacity: 4, acknowledgedCursor: 10)
        for n in 1...3 { window.published(cursor: 10 + Int64(n), id: id(Int32(n))) }
        #expect(window.acknowledge(id(1)) == 11)
        #expect(window.acknowledge(id(3)) == 13)
        #expect(window.refusedForNow(id(2)) == 12)
        #expect(window.acknowledgedCursor == 11 && window.inFlight == 2 && window.awaitingAnswer == 0)
        #expect(window.acknowledge(id(2)) == nil, "the refused id is answered; it is not in flight any more")
        let acknowledgedOne = window.republished(cursor: 13, id: id(9))
        #expect(!acknowledgedOne, "13 was acknowledged, not refused")
        let refusedOne = window.republished(cursor: 12, id: id(4))
        #expect(refusedOne)
        let again = window.republished(cursor: 12, id: id(5))
        #expect(!again, "12 is already out again")
        #expect(window.awaitingAnswer == 1 && window.publishedCursor == 13)
        #expect(window.acknowledge(id(4)) == 12)
        #expect(window.acknowledgedCursor == 13 && window.isEmpty)
    }

    @Test func aRefusedReadingGoneFromTheSourceHoldsNothingBack() {
        var window = PublishWindow(capacity: 4, acknowledgedCursor: 0)
        window.published(cursor: 1, id: id(1))
        window.published(cursor: 2, id: id(2))
        _ = window.refusedForNow(id(1))
        _ = window.acknowledge(id(2))
        let settled = window.abandon(cursor: 2)
        #expect(settled == nil, "only a reading waiting to be published again can be abandoned")
        let advanced = window.abandon(cursor: 1)
        #expect(advanced == 2)
        #expect(window.isEmpty)
    }

    @Test func aRestartForgetsTheRefusals() {
        var window = PublishWindow(capacity: 4, acknowledgedCursor: 0)
        window.published(cursor: 1, id: id(1))
        _ = window.refusedForNow(id(1))
        window.restart()
        let republished = window.republished(cursor: 1, id: id(2))
        #expect(!republished && window.isEmpty && window.publishedCursor == 0)
    }
}
