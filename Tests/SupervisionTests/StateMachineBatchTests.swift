@testable import Supervision
import Policy
import Testing

/// The driver's batch of BlueZ events (issue 18): admission once at the batch's end, and adverts of known
/// paths recorded in place exactly as the general path records them.
@Suite struct StateMachineBatchTests {
    @Test func aBatchOfAdvertsAdmitsOncePerAdapterAtItsEnd() throws {
        let fleet = (1...6).map { Peripheral(UInt8($0)) }
        var driver = ManualDriver(try FleetFixture.machine(fleet.map { $0.wanted() }, settings: FleetFixture.settings(capacity: 10)))
        driver.adapter(FleetFixture.hci0)
        driver.adapter(FleetFixture.hci1)
        driver.machine.deferAdmission()
        var inBatch: [FleetAction] = []
        for device in fleet {
            inBatch += driver.see(device.object(adapter: FleetFixture.hci0))
            inBatch += driver.see(device.object(adapter: FleetFixture.hci1))
        }
        #expect(inBatch.connects.isEmpty, "no connect starts while the batch is applied")
        #expect(inBatch.events(.discovered).count == 6, "everything else of each event happens at once")
        let admitted = driver.send { machine, now in machine.resumeAdmission(now: now) }
        #expect(admitted.connects.count == 2)
        #expect(Set(admitted.connects.map(\.adapter)) == [FleetFixture.hci0, FleetFixture.hci1])
        #expect(driver.machine.counts.connecting == 2)
        // Out of a batch, admission runs after each event again.
        let next = driver.send { machine, now in machine.resumeAdmission(now: now) }
        #expect(next.connects.isEmpty)
    }

    /// The counts the driver publishes for Status at the end of each batch are read in place; they are the counts.
    @Test func countsReadInPlaceAreTheCounts() throws {
        let fleet = (1...6).map { Peripheral(UInt8($0)) }
        var driver = ManualDriver(try FleetFixture.machine(fleet.map { $0.wanted() }, settings: FleetFixture.settings(capacity: 10)))
        driver.adapter(FleetFixture.hci0)
        for device in fleet.prefix(4) { driver.see(device.object(adapter: FleetFixture.hci0)) }
        let counts = driver.machine.counts
        #expect(counts.wanted == 6 && counts.connecting == 1)
        #expect(driver.machine.countInPlace() == counts)
        // Reading in place changes nothing.
        #expect(driver.machine.counts == counts)
    }

    @Test func anAdvertOfAKnownPathIsRecordedAsTheGeneralPathRecordsIt() throws {
        let strap = Peripheral(1)
        var driver = ManualDriver(try FleetFixture.machine([strap.wanted()]))
        driver.adapter()
        driver.see(strap.object(rssi: -70))
        driver.clock.advance(by: .seconds(3))
        let actions = driver.see(strap.object(rssi: -50))
        var device = try #require(driver.machine.devices[strap.id])
        var sighting = try #require(device.sightings[strap.path()])
        #expect(sighting.rssi == -50)
        #expect(sighting.lastSeen == driver.now)
        #expect(sighting.lastHeard == driver.now)
        #expect(device.lastSeen == driver.now)
        #expect(actions.events(.discovered).isEmpty)
        // A report that is not an advert keeps the last RSSI, and is no sign that the peripheral answers there.
        let heardAt = driver.now
        driver.clock.advance(by: .seconds(1))
        driver.see(strap.object(rssi: nil))
        device = try #require(driver.machine.devices[strap.id])
        sighting = try #require(device.sightings[strap.path()])
        #expect(sighting.rssi == -50)
        #expect(sighting.lastSeen == driver.now)
        #expect(sighting.lastHeard == heardAt)
    }
}
