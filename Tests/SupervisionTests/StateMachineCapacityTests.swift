@testable import Supervision
import Policy
import Testing

/// BlueZ 5.66 reports a full controller as `le-connection-abort-by-local`; fleetd learns the real pool
/// size from two different devices failing that way at one link count, but never from one flaky device.
@Suite struct StateMachineCapacityTests {
    @Test func twoDevicesAbortingAtOneLinkCountLowerTheCapacity() throws {
        let a = Peripheral(1), b = Peripheral(2), c = Peripheral(3)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted(), c.wanted()], settings: FleetFixture.settings(capacity: 5)))
        driver.adapter()
        try driver.bringUp(a)
        let first = try #require(driver.see(b.object()).connects.first)
        let once = driver.connectFinished(first, error: FleetFixture.abortByLocal(first.path))
        #expect(once.events(.capacityLowered).isEmpty, "one abort is not evidence of a full pool")
        let second = try #require(driver.see(c.object()).connects.first)
        let twice = driver.connectFinished(second, error: FleetFixture.abortByLocal(second.path))
        #expect(twice.events(.capacityLowered).filter { $0.device == nil }.count == 1)
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.capacity == 1)
    }

    @Test func oneFlakyDeviceNeverLowersTheCapacity() throws {
        let a = Peripheral(1), b = Peripheral(2)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted()], settings: FleetFixture.settings(capacity: 5)))
        driver.adapter()
        try driver.bringUp(a)
        var connect = try #require(driver.see(b.object()).connects.first)
        for _ in 1...4 {
            let failed = driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
            #expect(failed.events(.capacityLowered).isEmpty)
            connect = try #require(driver.advance(by: .seconds(61)).connects.first)
        }
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.capacity == 5)
    }

    /// Found by the soak (seed 2, invariant 4): hci1 powers off; its device moves to hci0, which holds a link
    /// fleetd does not know of (a connect a killed fleetd left pending), so the controller is full while fleetd's
    /// table shows a free slot. hci0 answers `le-connection-abort-by-local` twice, then a second device's
    /// connect aborts at the same link count and the pool is learned full. Those aborts were the pool's, not the
    /// devices': the failures they counted are taken back, and the second device's is not counted.
    @Test func abortsThatTeachAFullPoolAreNotTheDevicesFailures() throws {
        let hci0 = FleetFixture.hci0, hci1 = FleetFixture.hci1
        let a = Peripheral(1), b = Peripheral(2), c = Peripheral(3), d = Peripheral(4)
        let settings = FleetFixture.settings(capacity: 3, policy: FleetFixture.slowRetries(floor: .milliseconds(100)))
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted(), c.wanted(), d.wanted()], settings: settings))
        driver.adapter(hci0)
        driver.adapter(hci1)
        try driver.bringUp(b, adapter: hci0)
        try driver.bringUp(c, adapter: hci0)
        try driver.bringUp(a, adapter: hci1)
        driver.see(a.object(adapter: hci0))
        driver.power(false, adapter: hci1)
        driver.remove(a.path(adapter: hci1))
        let moved = driver.advanceUntilConnect(within: .seconds(31))
        var connect = try #require(moved, "it moves to hci0 within the recovery window")
        #expect(connect.adapter == hci0)
        driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        let retried = driver.advanceUntilConnect(within: .seconds(61))
        connect = try #require(retried)
        #expect(connect.adapter == hci0)
        let again = driver.connectFinished(connect, error: FleetFixture.abortByLocal(connect.path))
        #expect(again.events(.capacityLowered).isEmpty, "one device alone is not evidence")
        #expect(driver.machine.devices[a.id]?.reconnect.failures == 2)

        let other = try #require(driver.see(d.object(adapter: hci0)).connects.first)
        let learned = driver.connectFinished(other, error: FleetFixture.abortByLocal(other.path))
        #expect(learned.events(.capacityLowered).filter { $0.device == nil }.count == 1)
        #expect(driver.machine.adapters[hci0]?.slots.capacity == 2)
        #expect(driver.machine.devices[a.id]?.reconnect.failures == 0, "both of its aborts were the full pool")
        #expect(driver.machine.devices[d.id]?.reconnect.failures == 0, "the abort that taught the pool is not counted")
        #expect(learned.events(.backoffScheduled).first?.failures == 0)
        let before = driver.history.connects.count
        driver.power(true, adapter: hci1)
        driver.see(a.object(adapter: hci1))
        driver.see(d.object(adapter: hci1))
        driver.advance(by: .seconds(61))
        let next = driver.history.connects.dropFirst(before)
        #expect(!next.isEmpty && next.allSatisfy { $0.adapter == hci1 }, "the next connects go where there is room: \(next)")
    }

    /// Found by the soak (seed 106, invariant 4): a device moved off a powered-down adapter aborts on a full
    /// one; a link there drops, another device connects into the room it left, and a third aborts at the first's
    /// link count. The success in between came with fewer links than the first abort saw, so it says nothing
    /// against a full pool: the pool is learned full and the first device's abort is taken back.
    @Test func aSuccessWithFewerLinksKeepsTheAbortStreak() throws {
        let a = Peripheral(1), b = Peripheral(2), c = Peripheral(3), d = Peripheral(4), e = Peripheral(5)
        let settings = FleetFixture.settings(capacity: 5, policy: FleetFixture.slowRetries(floor: .seconds(10)))
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted(), c.wanted(), d.wanted(), e.wanted()], settings: settings))
        driver.adapter()
        try driver.bringUp(a)
        try driver.bringUp(b)
        let first = try #require(driver.see(c.object()).connects.first)
        driver.connectFinished(first, error: FleetFixture.abortByLocal(first.path))
        #expect(driver.machine.devices[c.id]?.reconnect.failures == 1, "one abort alone is the device's")
        driver.linkDown(b.object())
        let room = try #require(driver.see(d.object()).connects.first { $0.device == d.id })
        try driver.completeLink(d, room)
        let third = try #require(driver.see(e.object()).connects.first { $0.device == e.id })
        let learned = driver.connectFinished(third, error: FleetFixture.abortByLocal(third.path))
        #expect(learned.events(.capacityLowered).filter { $0.device == nil }.count == 1)
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.capacity == 2)
        #expect(driver.machine.devices[c.id]?.reconnect.failures == 0, "its abort was the full pool's")
        #expect(driver.machine.devices[e.id]?.reconnect.failures == 0)
        let told = learned.events(.capacityLowered).filter { $0.device == c.id }
        #expect(told.count == 1 && told.first?.failures == 0, "the device's own event corrects the count its abort showed: \(told)")
        // The soak (`SoakWatchEvent.poolAbortsTakenBack`) reads this wording.
        #expect(told.first?.message.contains(" were the full pool's, not its own; failures 1 → 0") == true)
    }

    @Test func aSuccessAtTheStreaksLinkCountEndsIt() throws {
        let a = Peripheral(1), b = Peripheral(2), c = Peripheral(3), d = Peripheral(4)
        let settings = FleetFixture.settings(capacity: 5, policy: FleetFixture.slowRetries(floor: .seconds(10)))
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted(), c.wanted(), d.wanted()], settings: settings))
        driver.adapter()
        try driver.bringUp(a)
        let first = try #require(driver.see(b.object()).connects.first)
        driver.connectFinished(first, error: FleetFixture.abortByLocal(first.path))
        let room = try #require(driver.see(c.object()).connects.first { $0.device == c.id })
        try driver.completeLink(c, room)
        driver.linkDown(c.object())
        let third = try #require(driver.see(d.object()).connects.first { $0.device == d.id })
        let after = driver.connectFinished(third, error: FleetFixture.abortByLocal(third.path))
        #expect(after.events(.capacityLowered).isEmpty, "a connect succeeded at the count b aborted at: the pool was not full there")
        #expect(driver.machine.devices[b.id]?.reconnect.failures == 1)
    }

    /// Found by the soak (seed 108, invariant 6): two devices that had rotated away were tried at their old
    /// addresses on one adapter; each Connect aborted `le-connection-abort-by-local` after the kernel's LE
    /// connection timeout, at the same link count, and the pool was "learned" full at 16 of 64, leaving 51
    /// devices out. A refusal comes at once; an abort after the refusal window is the device's, not the pool's.
    @Test func slowAbortsOfAbsentDevicesTeachNothingAboutThePool() throws {
        let a = Peripheral(1), b = Peripheral(2), c = Peripheral(3)
        var driver = ManualDriver(try FleetFixture.machine([a.wanted(), b.wanted(), c.wanted()], settings: FleetFixture.settings(capacity: 5)))
        driver.adapter()
        try driver.bringUp(a)
        let first = try #require(driver.see(b.object()).connects.first)
        driver.advance(by: .seconds(20))
        driver.connectFinished(first, error: FleetFixture.abortByLocal(first.path))
        let second = try #require(driver.see(c.object()).connects.first { $0.device == c.id })
        driver.advance(by: .seconds(20))
        let slow = driver.connectFinished(second, error: FleetFixture.abortByLocal(second.path))
        #expect(slow.events(.capacityLowered).isEmpty, "two absent devices are not a full pool")
        #expect(driver.machine.adapters[FleetFixture.hci0]?.slots.capacity == 5)
        #expect(driver.machine.devices[b.id]?.reconnect.failures == 1 && driver.machine.devices[c.id]?.reconnect.failures == 1)
        #expect(FleetStateMachine.poolRefusalWindow(.seconds(30)) == .seconds(5))
        #expect(FleetStateMachine.poolRefusalWindow(.seconds(3)) == .milliseconds(750), "the soak's policy, scaled by 10")
    }
}
