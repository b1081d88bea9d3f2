@testable import BlueZSimulator
import Testing

/// The stored-record keys and faults in the scenario format.
@Suite struct ScenarioRecordsTests {
    @Test func parsesRecordKeysAndFaults() throws {
        let scenario = try Scenario.parse("""
        device meter address=A0:9E:1A:00:00:01 profile=glucose-meter records=12 record-every=60 record-pace=0.5 racp=no-count,whole-history clock-drift=-30
        at 5 racp-drop-after meter 3
        at 6 racp-busy meter 2
        at 7 sequence-reset meter
        at 8 clock-drift meter 120
        at 9 racp meter none
        at 10 take-record meter
        """)
        let records = try #require(scenario.devices.first?.records)
        #expect(records == StoredRecordsSpec(count: 12, every: .seconds(60), pace: .milliseconds(500), quirks: [.noCount, .wholeHistory], clockDrift: -30))
        #expect(scenario.faults.map(\.action) == [
            .records(device: "meter", .dropAfter(3)), .records(device: "meter", .busy(2)), .records(device: "meter", .sequenceReset),
            .records(device: "meter", .clockDrift(120)), .records(device: "meter", .quirks([])), .records(device: "meter", .takeRecord),
        ])
    }

    @Test(arguments: [
        ("device x address=A0:9E:1A:00:00:01 profile=glucose records=3", ScenarioError.Code.badValue),
        ("device x address=A0:9E:1A:00:00:01 profile=glucose-meter record-every=5", .badValue),
        ("device x address=A0:9E:1A:00:00:01 profile=glucose-meter records=3 racp=sometimes", .badValue),
        ("device x address=A0:9E:1A:00:00:01 profile=glucose-meter records=-1", .badValue),
        ("device x address=A0:9E:1A:00:00:01 profile=glucose-meter records=3 record-every=0", .badValue),
        ("device x address=A0:9E:1A:00:00:01 profile=glucose-meter records=3\nat 1 racp-busy x", .syntax),
        ("device x address=A0:9E:1A:00:00:01 profile=glucose-meter records=3\nat 1 sequence-reset y", .unknownDevice),
    ])
    func rejectsBadRecordKeys(text: String, code: ScenarioError.Code) {
        #expect { try Scenario.parse(text) } throws: { error in (error as? ScenarioError)?.code == code }
    }

    @Test func scriptedRecordFaultsRunOnTheTimeline() throws {
        let scenario = try Scenario.parse("""
        device meter address=A0:9E:1A:00:00:01 profile=glucose-meter records=3
        at 2 take-record meter
        at 3 sequence-reset meter
        at 4 take-record meter
        """)
        var world = try SimulatorWorld(scenario: scenario, configuration: WorldConfiguration())
        _ = world.advance(to: .seconds(2.5))
        #expect(world.storedRecords(named: "meter")?.count == 4)
        _ = world.advance(to: .seconds(5))
        // After the reset at 3 s, record 1 at 4 s: the factory clock plus 1 s.
        #expect(world.storedRecords(named: "meter") == [GlucoseRecords.record(sequence: 1, time: GlucoseRecords.factoryClock + 1)])
    }
}
