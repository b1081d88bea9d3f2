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
        #expect(twice.events(.capacityLowered).count == 1)
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
}
