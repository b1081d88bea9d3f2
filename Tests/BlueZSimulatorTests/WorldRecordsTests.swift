@testable import BlueZSimulator
import FleetPlatform
import Testing

/// A stored-record glucose meter at the world level: the RACP over WriteValue and its indication (GLS v1.0.1
/// §3.4, GSS §3.178), records on 2A18, and the faults. Expected bytes are derived beside each check.
@Suite struct WorldRecordsTests {
    @Test func reportNumberOfStoredRecordsAll() throws {
        var world = try Meter.connected("records=10")
        let effects = try Meter.write(&world, [0x04, 0x01])
        #expect(effects.reply(50) == .success([]))
        // The written value is not signalled (bluetoothd 5.66's write path stores nothing, gatt-client.c write_cb);
        // the indication is: 05 00 0A 00, Number of Stored Records response (GSS §3.178.1 op code 0x05), Null
        // operator, 10 records uint16 LE.
        #expect(Meter.values(effects, Meter.racp) == [[0x05, 0x00, 0x0A, 0x00]])
    }

    @Test func reportAllSendsEachRecordPacedThenSuccess() throws {
        var world = try Meter.connected("records=3")
        var effects = try Meter.write(&world, [0x01, 0x01])
        #expect(Meter.values(effects, Meter.measurement).isEmpty, "the first record waits one pace (20 ms)")
        effects = Meter.run(&world, 0.02)
        #expect(Meter.values(effects, Meter.measurement) == [Meter.preloaded(1)], "one record per pace")
        effects += Meter.run(&world, 1)
        #expect(Meter.values(effects, Meter.measurement) == [Meter.preloaded(1), Meter.preloaded(2), Meter.preloaded(3)])
        // 06 00 01 01: Response Code, Null, request op code 01 (Report Stored Records), 0x01 Success.
        #expect(Meter.values(effects, Meter.racp) == [[0x06, 0x00, 0x01, 0x01]])
    }

    @Test func reportGreaterOrEqualSendsFromTheSequenceNumber() throws {
        var world = try Meter.connected("records=5")
        // 01 03 01 04 00: Report Stored Records, operator ≥, filter type 01 (sequence number), 4 as uint16 LE.
        var effects = try Meter.write(&world, [0x01, 0x03, 0x01, 0x04, 0x00])
        effects += Meter.run(&world, 1)
        #expect(Meter.values(effects, Meter.measurement) == [Meter.preloaded(4), Meter.preloaded(5)])
        #expect(Meter.values(effects, Meter.racp).last == [0x06, 0x00, 0x01, 0x01])
        // ≥ 6: 06 00 01 06, No Records Found; no record sent.
        effects = try Meter.write(&world, [0x01, 0x03, 0x01, 0x06, 0x00], token: 51)
        effects += Meter.run(&world, 1)
        #expect(Meter.values(effects, Meter.measurement).isEmpty)
        #expect(Meter.values(effects, Meter.racp).last == [0x06, 0x00, 0x01, 0x06])
    }

    @Test func writeBeforeIndicationsAreOnFailsWithATT0xFD() throws {
        var world = try Meter.connected("records=3", indications: false)
        let effects = try Meter.write(&world, [0x04, 0x01])
        // ATT 0xFD, CCCD Improperly Configured (CSS Part B §1.2), through create_gatt_dbus_error's default case.
        #expect(effects.reply(50) == Meter.attFailure("fd"))
        #expect(Meter.values(effects, Meter.racp).isEmpty, "a refused write caches nothing and indicates nothing")
    }

    @Test func writeDuringATransferFailsWith0xFEButAbortStopsIt() throws {
        var world = try Meter.connected("records=10 record-pace=1")
        _ = try Meter.write(&world, [0x01, 0x01])
        var effects = Meter.run(&world, 2.5)
        #expect(Meter.values(effects, Meter.measurement) == [Meter.preloaded(1), Meter.preloaded(2)])
        effects = try Meter.write(&world, [0x04, 0x01], token: 51)
        // ATT 0xFE, Procedure Already in Progress.
        #expect(effects.reply(51) == Meter.attFailure("fe"))
        effects = try Meter.write(&world, [0x03, 0x00], token: 52)
        #expect(effects.reply(52) == .success([]))
        // 06 00 03 01: the Abort Operation (03) succeeded.
        #expect(Meter.values(effects, Meter.racp) == [[0x06, 0x00, 0x03, 0x01]])
        effects = Meter.run(&world, 20)
        #expect(Meter.values(effects, Meter.measurement).isEmpty, "nothing more after the abort")
        #expect(Meter.values(effects, Meter.racp).isEmpty, "and no closing response for the aborted report")
        effects = try Meter.write(&world, [0x04, 0x01], token: 53)
        #expect(Meter.values(effects, Meter.racp).last == [0x05, 0x00, 0x0A, 0x00], "the records stay")
    }

    @Test func deleteRemovesRecordsAtOrBelowTheSequenceNumber() throws {
        var world = try Meter.connected("records=5")
        // 02 02 01 02 00: Delete Stored Records ≤ 2 → 06 00 02 01.
        var effects = try Meter.write(&world, [0x02, 0x02, 0x01, 0x02, 0x00])
        #expect(Meter.values(effects, Meter.racp).last == [0x06, 0x00, 0x02, 0x01])
        effects = try Meter.write(&world, [0x04, 0x01], token: 51)
        #expect(Meter.values(effects, Meter.racp).last == [0x05, 0x00, 0x03, 0x00], "3 left")
        _ = try Meter.write(&world, [0x01, 0x01], token: 52)
        effects = Meter.run(&world, 1)
        #expect(Meter.values(effects, Meter.measurement) == [Meter.preloaded(3), Meter.preloaded(4), Meter.preloaded(5)])
        effects = try Meter.write(&world, [0x02, 0x01], token: 53)
        #expect(Meter.values(effects, Meter.racp).last == [0x06, 0x00, 0x02, 0x01])
        effects = try Meter.write(&world, [0x01, 0x01], token: 54)
        #expect(Meter.values(effects, Meter.racp).last == [0x06, 0x00, 0x01, 0x06], "all deleted: No Records Found")
    }

    @Test func unknownOpCodeIsNotSupported() throws {
        var world = try Meter.connected("records=1")
        let effects = try Meter.write(&world, [0x09, 0x01])
        // 06 00 09 02: request op code 0x09, Op Code Not Supported.
        #expect(Meter.values(effects, Meter.racp).last == [0x06, 0x00, 0x09, 0x02])
    }

    @Test func aLinkLostMidTransferEndsItAndTheRecordsStay() throws {
        var world = try Meter.connected("records=10 record-pace=1")
        _ = try Meter.write(&world, [0x01, 0x01])
        _ = Meter.run(&world, 2.5)
        _ = world.dropLink(named: "meter")
        // Straight back, armed again, while the old transfer would still have 8 records to go: none of them comes.
        _ = Fixture.connect(&world, token: 60)
        _ = try world.startNotify(path: Meter.measurement, sender: Meter.client, token: 61)
        _ = try world.startNotify(path: Meter.racp, sender: Meter.client, token: 61)
        var effects = Meter.run(&world, 20)
        #expect(Meter.values(effects, Meter.measurement).isEmpty && Meter.values(effects, Meter.racp).isEmpty)
        effects = try Meter.write(&world, [0x04, 0x01], token: 62)
        #expect(effects.reply(62) == .success([]), "the ended transfer is not still in progress")
        #expect(Meter.values(effects, Meter.racp).last == [0x05, 0x00, 0x0A, 0x00])
    }

    @Test func withRecordsTheMeasurementDoesNotNotifyOnAPeriod() throws {
        var world = try Meter.connected("records=3")
        let effects = Meter.run(&world, 30)
        #expect(Meter.values(effects, Meter.measurement).isEmpty, "glucose-meter alone notifies 2A18 every 3 s")
    }

    @Test func recordEveryTakesRecordsLinkedOrNotAndNotifiesThemWhenArmed() throws {
        // Not linked: the device appears at 0; records 3, 4, 5 are taken at 10, 20, 30 s.
        var (world, _) = try Fixture.discovering([try Meter.spec("records=2 record-every=10")])
        _ = world.advance(to: .seconds(30))
        let held = try #require(world.storedRecords(named: "meter"))
        // Record 3 at the meter's clock: 2026-12-01 00:02:00 (after preloaded 1, 2 a minute apart) + 10 s.
        #expect(held.count == 5)
        #expect(held[2] == GlucoseRecords.record(sequence: 3, time: GlucoseRecords.preloadEpoch + 120 + 10))
        #expect(held[2][3...9] == [0xEA, 0x07, 0x0C, 0x01, 0x00, 0x02, 0x0A])
        // Linked with 2A18 notifications on: record 6 (taken at 40 s) is notified at once.
        _ = Fixture.connect(&world)
        _ = try world.startNotify(path: Meter.measurement, sender: Meter.client, token: 90)
        let effects = world.advance(to: .seconds(40))
        #expect(Meter.values(effects, Meter.measurement) == [GlucoseRecords.record(sequence: 6, time: GlucoseRecords.preloadEpoch + 120 + 40)])
    }

    @Test func noGreaterOrEqualAndNoCountQuirks() throws {
        var world = try Meter.connected("records=3 racp=no-greater-or-equal,no-count")
        var effects = try Meter.write(&world, [0x01, 0x03, 0x01, 0x02, 0x00])
        // 06 00 01 04: ≥ answered Operator Not Supported.
        #expect(Meter.values(effects, Meter.racp).last == [0x06, 0x00, 0x01, 0x04])
        effects = try Meter.write(&world, [0x04, 0x01], token: 51)
        // 06 00 04 02: Report Number answered Op Code Not Supported.
        #expect(Meter.values(effects, Meter.racp).last == [0x06, 0x00, 0x04, 0x02])
        _ = try Meter.write(&world, [0x01, 0x01], token: 52)
        effects = Meter.run(&world, 1)
        #expect(Meter.values(effects, Meter.measurement).count == 3, "all records still work")
    }

    @Test func wholeHistoryQuirkAnswersGreaterOrEqualWithEveryRecord() throws {
        var world = try Meter.connected("records=4 racp=whole-history")
        _ = try Meter.write(&world, [0x01, 0x03, 0x01, 0x04, 0x00])
        let effects = Meter.run(&world, 1)
        #expect(Meter.values(effects, Meter.measurement) == (1...4).map { Meter.preloaded($0) })
        #expect(Meter.values(effects, Meter.racp).last == [0x06, 0x00, 0x01, 0x01])
    }

    @Test func dropAfterKRecordsLosesTheLinkAndKeepsTheRecords() throws {
        var world = try Meter.connected("records=5")
        _ = world.apply(.records(device: "meter", .dropAfter(2)))
        _ = try Meter.write(&world, [0x01, 0x01])
        let effects = Meter.run(&world, 1)
        #expect(Meter.values(effects, Meter.measurement) == [Meter.preloaded(1), Meter.preloaded(2)])
        #expect(effects.changes(Fixture.strapPath, .device).contains { $0.0 == "Connected" && $0.1 == .boolean(false) })
        #expect(world.storedRecords(named: "meter")?.count == 5)
    }

    @Test func busyFailsTheNextNWrites() throws {
        var world = try Meter.connected("records=2")
        _ = world.apply(.records(device: "meter", .busy(2)))
        let first = try Meter.write(&world, [0x04, 0x01], token: 51)
        #expect(first.reply(51) == Meter.attFailure("fe"))
        let second = try Meter.write(&world, [0x03, 0x00], token: 52)
        #expect(second.reply(52) == Meter.attFailure("fe"), "busy refuses an abort too")
        let effects = try Meter.write(&world, [0x04, 0x01], token: 53)
        #expect(Meter.values(effects, Meter.racp).last == [0x05, 0x00, 0x02, 0x00])
    }

    @Test func sequenceResetRestartsNumberingOnAFactoryClock() throws {
        var world = try Meter.connected("records=3")
        let oldFirst = try #require(world.storedRecords(named: "meter")?.first)
        let effects = world.apply(.records(device: "meter", .sequenceReset))
        #expect(effects.changes(Fixture.strapPath, .device).contains { $0.0 == "Connected" && $0.1 == .boolean(false) }, "a battery change drops the link")
        #expect(world.storedRecords(named: "meter") == [])
        _ = Meter.run(&world, 5)
        let taken = world.takeRecord(named: "meter")
        #expect(taken?.0 == 1)
        // New record 1: the clock restarted at 2026-01-01 00:00:00 and ran 5 s: EA 07 01 01 00 00 05.
        let newFirst = try #require(world.storedRecords(named: "meter")?.first)
        #expect(newFirst == GlucoseRecords.record(sequence: 1, time: GlucoseRecords.factoryClock + 5))
        #expect(newFirst[1...2] == oldFirst[1...2] && newFirst[3...9] != oldFirst[3...9])
    }

    @Test func clockDriftShowsInEveryStamp() throws {
        var (world, _) = try Fixture.discovering([try Meter.spec("records=2 clock-drift=-3600")])
        // Preloaded record 1 stamped 2026-12-01 00:00 − 1 h = 2026-11-30 23:00:00: EA 07 0B 1E 17 00 00.
        #expect(world.storedRecords(named: "meter")?.first?[3...9] == [0xEA, 0x07, 0x0B, 0x1E, 0x17, 0x00, 0x00])
        _ = world.apply(.records(device: "meter", .clockDrift(90)))
        _ = world.takeRecord(named: "meter")
        // Record 3 at 1 s of simulator time: epoch + 2 min + 1 s + 90 s of drift.
        #expect(world.storedRecords(named: "meter")?.last == GlucoseRecords.record(sequence: 3, time: GlucoseRecords.preloadEpoch + 120 + 1 + 90))
    }

    @Test func twoRecordsInOneSecondAreStampedApart() throws {
        var (world, _) = try Fixture.discovering([try Meter.spec("records=1")])
        _ = world.takeRecord(named: "meter")
        _ = world.takeRecord(named: "meter")
        // At 1 s the clock reads epoch + 1 min (record 1's minute) + 1 s; the second record of that second gets + 2 s.
        #expect(world.storedRecords(named: "meter")?.suffix(2) == [
            GlucoseRecords.record(sequence: 2, time: GlucoseRecords.preloadEpoch + 60 + 1),
            GlucoseRecords.record(sequence: 3, time: GlucoseRecords.preloadEpoch + 60 + 2),
        ])
    }
}
