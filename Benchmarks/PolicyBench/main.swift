// Times Policy's simulated hour: 10 000 devices on 10 adapters, one adapter reset at t = 10 min.
import Foundation
import Policy


func milliseconds(_ duration: Duration) -> Double {
    let parts = duration.components
    return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
}

let runs = 5
var timings: [Duration] = []
var reports: [PolicySimulation.Report] = []
let clock = ContinuousClock()
do {
    for run in 0..<runs {
        var rng = SplitMix64(seed: 0x5EED + UInt64(run))
        let started = clock.now
        let report = try PolicySimulation.run(PolicySimulation.Parameters(), using: &rng)
        timings.append(clock.now - started)
        reports.append(report)
    }
} catch {
    print("policy_simulation_error: \(error)")
    exit(1)
}
timings.sort()
guard let last = reports.last else { exit(1) }
print("policy_sim_hour_10k_devices_median: \(milliseconds(timings[runs / 2])) ms")
print("policy_sim_hour_10k_devices_min: \(milliseconds(timings[0])) ms")
print("policy_sim_events: \(last.events) events")
print("policy_sim_connect_attempts: \(last.attempts) attempts")
print("policy_sim_events_per_second: \(Int(Double(last.events) / (milliseconds(timings[runs / 2]) / 1000))) events/s")
print("policy_sim_max_in_flight_per_adapter: \(last.maxInFlightPerAdapter) connects")
print("policy_sim_dropped_by_reset: \(last.droppedByReset) links")
print("policy_sim_max_wait_after_return: \(milliseconds(last.maxWaitAfterReturn) / 1000) s")
print("policy_sim_busiest_recovery_second_share: \(last.busiestSecondShare * 100) %")
