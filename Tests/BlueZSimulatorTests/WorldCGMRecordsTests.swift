@testable import BlueZSimulator
import FleetPlatform
import Testing

/// A CGM with stored records (CGMS v1.0.1 §3.8): the same RACP, records keyed by Time Offset (filter type 0x01 is
/// the time offset there), sent as CGM Measurements 0x2AA7.
@Suite struct WorldCGMRecordsTests {
    static func cgm(_ keys: String) throws -> SimulatorWorld { try Meter.connected(keys, profile: "continuous-glucose") }

    @Test func recordBytesAreTheCGMStreamsReadings() {
        // Offset 3, session 0: size 08, flags 00, 103 mg/dL SFLOAT exponent 0 = 67 00, time offset 03 00, then the
        // CRC-16/MCRF4XX of those six octets: exactly the stream's reading 3.
        #expect(GlucoseRecords.cgmRecord(timeOffset: 3, session: 0) == SimulatedMeasurement.continuousGlucose.value(number: 3))
        #expect(GlucoseRecords.cgmRecord(timeOffset: 3, session: 0).prefix(6) == [0x08, 0x00, 0x67, 0x00, 0x03, 0x00])
        // Session 1 at offset 3 is reading 3 + 7 = 10: 110 mg/dL = 6E 00, the offset unchanged.
        #expect(GlucoseRecords.cgmRecord(timeOffset: 3, session: 1).prefix(6) == [0x08, 0x00, 0x6E, 0x00, 0x03, 0x00])
    }

    @Test func countAndReportGreaterOrEqualByTimeOffset() throws {
        var world = try Self.cgm("records=5")
        var effects = try Meter.write(&world, [0x04, 0x01])
        // 05 00 05 00: five records (time offsets 0…4), uint16 LE.
        #expect(Meter.values(effects, Meter.racp).last == [0x05, 0x00, 0x05, 0x00])
        // 01 03 01 03 00: ≥ time offset 3 (filter type 01 = time offset, CGMS §3.8.1).
        _ = try Meter.write(&world, [0x01, 0x03, 0x01, 0x03, 0x00], token: 51)
        effects = Meter.run(&world, 1)
        #expect(Meter.values(effects, Meter.measurement) == [3, 4].map { SimulatedMeasurement.continuousGlucose.value(number: $0) })
        #expect(Meter.values(effects, Meter.racp).last == [0x06, 0x00, 0x01, 0x01])
        effects = Meter.run(&world, 30)
        #expect(Meter.values(effects, Meter.measurement).isEmpty, "with records= the CGM does not notify every second")
    }

    @Test func recordsAreKeyedByTheSessionMinuteAndANewSessionStartsAtZero() throws {
        var (world, _) = try Fixture.discovering([try Meter.spec("records=2 record-every=60", profile: "continuous-glucose")])
        _ = world.advance(to: .seconds(120))
        // The session began 2 min before the device appeared: records at 60 s and 120 s have offsets 3 and 4.
        #expect(world.storedRecords(named: "meter") == [0, 1, 3, 4].map { SimulatedMeasurement.continuousGlucose.value(number: $0) })
        _ = world.apply(.records(device: "meter", .sequenceReset))
        _ = world.apply(.records(device: "meter", .takeRecord))
        #expect(world.storedRecords(named: "meter") == [GlucoseRecords.cgmRecord(timeOffset: 0, session: 1)])
        #expect(GlucoseRecords.cgmRecord(timeOffset: 0, session: 1) != SimulatedMeasurement.continuousGlucose.value(number: 0),
                "a new session's offset 0 is not the old one's")
    }
}
