@testable import FleetManager
import Supervision
import Synchronization
import Testing

/// The feed behind `fleetctl watch`: numbered entries, counted notifications, and no entry made for nobody.
@Suite("Event feed")
struct EventFeedTests {
    @Test("with no subscriber, entries are numbered and notifications counted, but no text is made")
    func nobodyListening() async throws {
        let feed = EventFeed()
        let texts = Atomic<Int>(0)
        func text(_ s: String) -> String {
            texts.add(1, ordering: .relaxed)
            return s
        }
        for n in 0..<3 {
            feed.publish(device: DeviceID("strap"), kind: .notification(characteristic: "2a37", value: [UInt8(n)]), text: text("value"))
        }
        #expect(texts.load(ordering: .relaxed) == 0)
        #expect(feed.notificationsReceived == 3)

        let entries = feed.subscribe()
        feed.publish(device: DeviceID("strap"), kind: .reconnected, text: text("reconnected"))
        feed.close()
        var seen: [FeedEntry] = []
        for await entry in entries { seen.append(entry) }
        #expect(seen.map(\.sequence) == [4], "a subscriber's first number says how many went by before it")
        #expect(seen.map(\.text) == ["reconnected"])
        #expect(texts.load(ordering: .relaxed) == 1)
        #expect(feed.notificationsReceived == 3)
    }
}
