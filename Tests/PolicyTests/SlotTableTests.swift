import Testing
@testable import Policy

@Suite("SlotTable")
struct SlotTableTests {
    /// A table of `capacity` links of `policyClass`, each up since `linkedAt` with activity at `activity[i]`.
    func fullTable(_ policyClass: PolicyClass, capacity: Int = 3, linkedAt: Duration = .zero, activity: [Duration]) throws -> SlotTable {
        var table = try SlotTable(adapter: "hci0", capacity: capacity)
        for (index, seen) in activity.enumerated() {
            table.linkUp(device: "\(policyClass)-\(index)", policyClass: policyClass, rssi: -60, now: linkedAt)
            table.recordActivity(device: "\(policyClass)-\(index)", now: seen)
        }
        return table
    }

    @Test func aCriticalDeviceAtAFullPoolOfNormalLinksEvictsTheLeastRecentlyActive() throws {
        let table = try fullTable(.normal, activity: [.seconds(500), .seconds(100), .seconds(300)])
        let decision = table.admit(device: "irk-ward3", policyClass: .critical, now: .seconds(940))
        #expect(decision == .evict(victim: "normal-1", decision.reason))
        #expect(decision.reason.code == .evictLowerClass)
        #expect(decision.reason.message == "evicted normal-1 (normal, idle 14 min) to admit irk-ward3 (critical) on hci0")
    }

    @Test func theLowestClassGoesFirstThenActivityThenRSSI() throws {
        var table = try SlotTable(adapter: "hci0", capacity: 4)
        table.linkUp(device: "n-old", policyClass: .normal, rssi: -90, now: .zero)
        table.linkUp(device: "o-strong", policyClass: .opportunistic, rssi: -40, now: .zero)
        table.linkUp(device: "o-weak", policyClass: .opportunistic, rssi: -85, now: .zero)
        table.linkUp(device: "o-unknown", policyClass: .opportunistic, rssi: nil, now: .zero)
        table.recordActivity(device: "o-strong", now: .seconds(50))
        table.recordActivity(device: "o-weak", now: .seconds(50))
        table.recordActivity(device: "o-unknown", now: .seconds(60))
        // Same class and activity: the weaker signal goes.
        if case let .evict(victim, _) = table.admit(device: "c", policyClass: .critical, now: .seconds(100)) {
            #expect(victim == "o-weak")
        } else {
            Issue.record("expected an eviction")
        }
        table.linkDown(device: "o-weak")
        table.linkUp(device: "n-2", policyClass: .normal, rssi: -50, now: .zero)
        // The older activity wins over RSSI.
        if case let .evict(victim, _) = table.admit(device: "c", policyClass: .critical, now: .seconds(100)) {
            #expect(victim == "o-strong")
        } else {
            Issue.record("expected an eviction")
        }
    }

    @Test func aCriticalDeviceNeverEvictsAnotherCritical() throws {
        let table = try fullTable(.critical, activity: [.zero, .zero, .zero])
        let decision = table.admit(device: "irk-new", policyClass: .critical, now: .seconds(3600))
        #expect(decision == .wait(decision.reason))
        #expect(decision.reason.code == .fullNoLowerClass)
    }

    @Test func aNormalDeviceNeverEvictsAnotherNormal() throws {
        let table = try fullTable(.normal, activity: [.zero, .zero, .zero])
        #expect(table.admit(device: "n-new", policyClass: .normal, now: .seconds(3600)).reason.code == .fullNoLowerClass)
    }

    @Test func anOpportunisticDeviceNeverEvictsAnyone() throws {
        for policyClass in PolicyClass.allCases {
            let table = try fullTable(policyClass, activity: [.zero, .zero, .zero])
            let decision = table.admit(device: "o-new", policyClass: .opportunistic, now: .seconds(3600))
            #expect(decision == .wait(decision.reason))
            #expect(decision.reason.code == .fullOpportunisticNeverEvicts)
        }
    }

    @Test func aLinkYoungerThanItsHoldTimeIsNotEvicted() throws {
        let table = try fullTable(.opportunistic, linkedAt: .seconds(100), activity: [.seconds(100), .seconds(100), .seconds(100)])
        let early = table.admit(device: "c", policyClass: .critical, now: .seconds(129))
        #expect(early.reason.code == .fullHeldByHysteresis)
        #expect(early.reason.retryAt == .seconds(130))
        if case .evict = table.admit(device: "c", policyClass: .critical, now: .seconds(130)) {} else {
            Issue.record("a link past its hold time should be evictable")
        }
    }

    @Test func twoDevicesDoNotFlapOverOneSlot() throws {
        // A critical device evicts an opportunistic one; the evicted one comes back and must not push it out,
        // and a second critical arrival cannot evict the fresh critical link either.
        var table = try SlotTable(adapter: "hci0", capacity: 1)
        table.linkUp(device: "opp", policyClass: .opportunistic, rssi: -70, now: .zero)
        guard case let .evict(victim, _) = table.admit(device: "crit", policyClass: .critical, now: .seconds(40)) else {
            Issue.record("expected an eviction"); return
        }
        table.linkDown(device: victim)
        #expect(table.admit(device: "crit", policyClass: .critical, now: .seconds(40)).reason.code == .freeSlot)
        table.linkUp(device: "crit", policyClass: .critical, rssi: -70, now: .seconds(40))
        #expect(table.admit(device: "opp", policyClass: .opportunistic, now: .seconds(41)).reason.code == .fullOpportunisticNeverEvicts)
        #expect(table.admit(device: "crit-2", policyClass: .critical, now: .seconds(41)).reason.code == .fullNoLowerClass)
    }

    @Test func onlyOneConnectIsInFlightPerAdapter() throws {
        var table = try SlotTable(adapter: "hci0", capacity: 5)
        #expect(table.admit(device: "a", policyClass: .normal, now: .zero).reason.code == .freeSlot)
        try table.connectStarted(device: "a", policyClass: .normal, now: .zero)
        let second = table.admit(device: "b", policyClass: .critical, now: .zero)
        #expect(second == .wait(second.reason) && second.reason.code == .connectInFlight)
        #expect(second.reason.message.contains("already connecting a"))
        #expect(throws: PolicyError.self) { try table.connectStarted(device: "b", policyClass: .critical, now: .zero) }
        table.linkUp(device: "a", policyClass: .normal, rssi: -50, now: .milliseconds(30))
        #expect(table.connectInFlight == nil)
        #expect(table.admit(device: "b", policyClass: .critical, now: .seconds(1)).reason.code == .freeSlot)
        #expect(table.admit(device: "a", policyClass: .normal, now: .seconds(1)).reason.code == .alreadyLinked)
    }

    @Test func theConnectInFlightTakesASlot() throws {
        var table = try SlotTable(adapter: "hci0", capacity: 2)
        table.linkUp(device: "a", policyClass: .normal, rssi: nil, now: .zero)
        try table.connectStarted(device: "b", policyClass: .normal, now: .zero)
        #expect(table.freeSlots == 0)
        table.connectFinished(device: "b")
        #expect(table.freeSlots == 1)
    }

    @Test func capacityLearningLowersTheCapacityAndTheNextAdmissionRespectsIt() throws {
        var table = try SlotTable(adapter: "hci0", capacity: 7)
        for index in 0..<5 { table.linkUp(device: "n\(index)", policyClass: .normal, rssi: -60, now: .zero) }
        try table.connectStarted(device: "n5", policyClass: .normal, now: .seconds(1))
        // BlueZ answered org.bluez.Error.Failed: le-connection-concurrent-connection-limit.
        table.connectFinished(device: "n5")
        let change = table.reportLimitReached(now: .seconds(1))
        #expect(change?.oldCapacity == 7 && change?.newCapacity == 5)
        #expect(change?.message == "hci0 reported full at 5 links; capacity lowered from 7 to 5")
        #expect(table.capacity == 5 && table.configuredCapacity == 7)
        #expect(table.admit(device: "n5", policyClass: .normal, now: .seconds(2)).reason.code == .fullNoLowerClass)
        #expect(table.reportLimitReached(now: .seconds(3)) == nil)
        #expect(throws: PolicyError.self) { try table.connectStarted(device: "n5", policyClass: .normal, now: .seconds(3)) }
    }

    @Test func capacityNeverDropsBelowOneAndInvalidCapacitiesAreRejected() throws {
        var table = try SlotTable(adapter: "hci1", capacity: 3)
        _ = table.reportLimitReached(now: .zero)
        #expect(table.capacity == 1)
        #expect(throws: PolicyError.self) { try SlotTable(adapter: "hci1", capacity: 0) }
    }

    @Test func anAdapterResetDropsEveryLinkAndTheConnectInFlight() throws {
        var table = try SlotTable(adapter: "hci0", capacity: 4)
        table.linkUp(device: "a", policyClass: .normal, rssi: nil, now: .zero)
        table.linkUp(device: "b", policyClass: .critical, rssi: nil, now: .zero)
        try table.connectStarted(device: "c", policyClass: .normal, now: .zero)
        #expect(table.adapterReset().map(\.device) == ["a", "b"])
        #expect(table.links.isEmpty && table.connectInFlight == nil && table.freeSlots == 4)
    }

    @Test func anAdapterWithAFreeSlotIsPreferredThenTheBestRSSI() {
        let candidates = [
            AdapterCandidate(adapter: "hci0", hasFreeSlot: false, recentRSSI: -40),
            AdapterCandidate(adapter: "hci1", hasFreeSlot: true, recentRSSI: -80),
            AdapterCandidate(adapter: "hci2", hasFreeSlot: true, recentRSSI: -65),
            AdapterCandidate(adapter: "hci3", hasFreeSlot: true, recentRSSI: nil),
        ]
        let choice = AdapterChoice.choose(for: "irk-ward3", among: candidates)
        #expect(choice?.adapter == "hci2")
        #expect(choice?.message == "irk-ward3 goes through hci2 (a free slot, -65 dBm; 4 candidate(s))")
        let allFull = candidates.map { AdapterCandidate(adapter: $0.adapter, hasFreeSlot: false, recentRSSI: $0.recentRSSI) }
        #expect(AdapterChoice.choose(for: "x", among: allFull)?.adapter == "hci0")
        #expect(AdapterChoice.choose(for: "x", among: []) == nil)
    }

    @Test func fewerFailedConnectsComeBeforeABetterSignal() {
        let candidates = [
            AdapterCandidate(adapter: "hci0", hasFreeSlot: true, recentRSSI: -40, recentFailures: 2),
            AdapterCandidate(adapter: "hci1", hasFreeSlot: true, recentRSSI: -80, recentFailures: 1),
            AdapterCandidate(adapter: "hci2", hasFreeSlot: false, recentRSSI: -30, recentFailures: 0),
        ]
        let choice = AdapterChoice.choose(for: "x", among: candidates)
        #expect(choice?.adapter == "hci1", "a free slot first, then the fewest failures")
        #expect(choice?.message == "x goes through hci1 (a free slot, 1 failed connect(s) there, -80 dBm; 3 candidate(s))")
    }
}
