import Testing
import Identity

@Suite struct TwinDecisionTests {
    let a = try! BluetoothAddress("4A:00:00:00:00:01", type: .random)
    let b = try! BluetoothAddress("4A:00:00:00:00:02", type: .random)
    let c = try! BluetoothAddress("4A:00:00:00:00:03", type: .random)

    @Test func mostRecentAdvertWins() throws {
        let d = try #require(TwinDecision(live: [
            LiveAddress(address: a, lastAdvert: .seconds(10), isConnected: false),
            LiveAddress(address: b, lastAdvert: .seconds(30), isConnected: false),
            LiveAddress(address: c, lastAdvert: .seconds(20), isConnected: false),
        ]))
        #expect(d.current.address == b)
        #expect(d.stale.map(\.address) == [c, a])
        #expect(d.hasTwins)
    }

    @Test func connectedBeatsFresherUnconnected() throws {
        let d = try #require(TwinDecision(live: [
            LiveAddress(address: a, lastAdvert: .seconds(10), isConnected: true),
            LiveAddress(address: b, lastAdvert: .seconds(99), isConnected: false),
        ]))
        #expect(d.current.address == a)
        #expect(d.stale.map(\.address) == [b])
    }

    @Test func answerDoesNotDependOnListOrder() throws {
        let live = [
            LiveAddress(address: b, lastAdvert: .seconds(5), isConnected: false),
            LiveAddress(address: a, lastAdvert: .seconds(5), isConnected: false),
            LiveAddress(address: c, lastAdvert: .seconds(1), isConnected: false),
        ]
        let forward = try #require(TwinDecision(live: live))
        let backward = try #require(TwinDecision(live: live.reversed()))
        #expect(forward == backward)
        #expect(forward.current.address == a)
    }

    @Test func singleAddressHasNoTwinsAndEmptyHasNoDecision() throws {
        #expect(TwinDecision(live: []) == nil)
        let d = try #require(TwinDecision(live: [LiveAddress(address: a, lastAdvert: .zero, isConnected: false)]))
        #expect(!d.hasTwins)
    }

    @Test func duplicateReportsOfOneAddressAreNotTwins() throws {
        let d = try #require(TwinDecision(live: [
            LiveAddress(address: a, lastAdvert: .seconds(1), isConnected: false),
            LiveAddress(address: a, lastAdvert: .seconds(2), isConnected: false),
        ]))
        #expect(d.current.lastAdvert == .seconds(2))
        #expect(!d.hasTwins)
    }
}
