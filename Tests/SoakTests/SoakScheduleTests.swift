import BlueZSimulator
import FleetManager
import FleetTestKit
import Policy
import Testing

/// The soak's pure parts: its fleet, fault schedule, options and bound.
@Suite struct SoakScheduleTests {
    let fleet = SoakFleet(devices: 200, adapters: 4)

    @Test("a seed names one fault schedule: the same seed gives the same faults at the same times, another seed others")
    func seedReplays() {
        let a = SoakSchedule(seed: 42, fleet: fleet, length: 600)
        let b = SoakSchedule(seed: 42, fleet: fleet, length: 600)
        let c = SoakSchedule(seed: 43, fleet: fleet, length: 600)
        #expect(a.faults.map(\.description) == b.faults.map(\.description))
        #expect(a.faults.map(\.description) != c.faults.map(\.description))
        #expect(a.faults.count > 150, "10 simulated minutes at one fault per 2.5 s: \(a.faults.count)")
        #expect(Set(a.faults.map(\.kind)) == Set(SoakFaultKind.allCases), "every kind is drawn: \(a.countsByKind)")
    }

    @Test("every step falls inside the phase, a device has one fault at a time, and fleet-wide restarts are spaced")
    func scheduleShape() {
        for seed: UInt64 in [1, 2, 3, 99, 12345] {
            let schedule = SoakSchedule(seed: seed, fleet: fleet, length: 600)
            #expect(schedule.steps.allSatisfy { $0.at >= 0 && $0.at < 600 })
            #expect(zip(schedule.steps, schedule.steps.dropFirst()).allSatisfy { $0.at <= $1.at }, "steps are in time order")
            var busy: [SoakFault.Target: Double] = [:]
            for fault in schedule.faults {
                if case .fleet = fault.target { continue }
                #expect(busy[fault.target, default: -1] <= fault.start, "seed \(seed): \(fault.description) overlaps another fault on its target")
                busy[fault.target] = fault.end + SoakSchedule.settle
            }
            let restarts = schedule.faults.filter { $0.kind == .fleetdKill || $0.kind == .bluetoothdRestart }.map(\.start)
            #expect(zip(restarts, restarts.dropFirst()).allSatisfy { $1 - $0 >= SoakSchedule.globalSpacing })
        }
    }

    @Test("the soak's scenario is one the simulator loads and its fleetd.conf one fleetd accepts, wanting every device")
    func fleetFiles() throws {
        let scenario = try Scenario.parse(fleet.scenario)
        #expect(scenario.devices.count == 200 && scenario.adapters == 4 && scenario.capacity >= 50)
        let configuration = try FleetConfiguration.parse(fleet.configuration(policy: SoakPolicy(scale: 10)), file: "soak.conf")
        #expect(configuration.devices.count == 200)
        #expect(configuration.defaultCapacity == fleet.capacity)
        // Durations are fleetd's defaults divided by the time scale.
        #expect(configuration.policy.normal.backoff.cap == .seconds(6))
        #expect(configuration.policy.critical.backoff.recoveryWindow == .milliseconds(500))
        #expect(configuration.setUpTimeout == .seconds(3))
        let changed = try FleetConfiguration.parse(fleet.configuration(policy: SoakPolicy(scale: 1), classes: [fleet.devices[1].id: "critical"]), file: "soak.conf")
        #expect(changed.devices.first { $0.id == fleet.devices[1].id }?.policyClass.rawValue == "critical")
        #expect(changed.policy.normal.backoff.cap == .seconds(60))
        for device in fleet.devices.prefix(5) { #expect(try Scenario.parseDeviceDefinition(device.definition).label == device.label) }
    }

    @Test("options: --short is three simulated minutes with the defaults otherwise; mistakes are named")
    func options() throws {
        #expect(try SoakOptions.parse(["--short"], defaultSeed: 7) == .run({ var o = SoakOptions(seed: 7); o.minutes = 3; return o }()))
        #expect(try SoakOptions.parse(["--short", "--minutes", "5", "--seed", "9"], defaultSeed: 7)
            == .run({ var o = SoakOptions(seed: 9); o.minutes = 5; return o }()))
        #expect(throws: SoakOptions.UsageError.self) { try SoakOptions.parse(["--seed", "-1"], defaultSeed: 0) }
        #expect(throws: SoakOptions.UsageError.self) { try SoakOptions.parse(["--minutes"], defaultSeed: 0) }
        #expect(throws: SoakOptions.UsageError.self) { try SoakOptions.parse(["--fast"], defaultSeed: 0) }
    }

    @Test("the bound adds two backoff caps, the longest failing attempt, the serial queue, an advert and a real second")
    func bound() {
        let bound = SoakBound(policy: SoakPolicy(scale: 10), fleet: fleet, timeScale: 10, connectCycle: 1)
        #expect(bound.seconds == 60 + 30 + 60 + 50 + 4 + 10)
        #expect(bound.derivation(timeScale: 10).contains("= "))
    }
}
