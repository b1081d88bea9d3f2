import TestScheduling
import Testing
@testable import Policy

@Suite("PolicySimulation", .offCooperativePool)
struct PolicySimulationTests {
    /// The documented bound: no second of the minute after the reset adapter returns holds more than this share
    /// of that minute's connect attempts. Uniform spreading over the 30 s / 5 s recovery windows gives about
    /// 4 %; without jitter the herd drains at the adapter's connect rate, well above it.
    static let busiestSecondShareBound = 0.07

    @Test func anHourOfTenThousandDevicesWithAnAdapterReset() throws {
        var rng = SplitMix64(seed: 2024)
        let parameters = PolicySimulation.Parameters()
        let report = try PolicySimulation.run(parameters, using: &rng)
        let cap = parameters.configuration.normal.backoff.cap

        #expect(report.maxInFlightPerAdapter == 1)
        #expect(report.slotTableRefusals == 0)
        #expect(report.droppedByReset >= 990, "the reset dropped \(report.droppedByReset) links")
        #expect(report.waitingAtReturn >= report.droppedByReset)
        #expect(report.neverRetried == 0)
        #expect(report.maxWaitAfterReturn <= cap, "longest wait after return: \(report.maxWaitAfterReturn)")
        #expect(report.busiestSecondShare <= Self.busiestSecondShareBound,
                "busiest second: \(report.busiestRecoverySecond) of \(report.recoveryWindowAttempts)")
        #expect(report.recoveryWindowAttempts >= report.droppedByReset)
        #expect(report.linkDrops > 1_000)
        #expect(report.decisions[.clearStaleStateThenRetry, default: 0] > 0)
        #expect(report.decisions[.retrySoon, default: 0] > 0)
        #expect(report.linkedAtEnd >= 9_900, "linked at the end: \(report.linkedAtEnd)")
    }

    @Test func withoutJitterTheRecoveryHerdBreaksTheBound() throws {
        var rng = SplitMix64(seed: 2024)
        var parameters = PolicySimulation.Parameters()
        let flat = BackoffConfiguration(jitter: .none)
        parameters.configuration = PolicyConfiguration(
            critical: ClassConfiguration(backoff: flat),
            normal: ClassConfiguration(backoff: flat, retryBudget: 10),
            opportunistic: ClassConfiguration(backoff: flat)
        )
        let report = try PolicySimulation.run(parameters, using: &rng)
        #expect(report.maxInFlightPerAdapter == 1)
        #expect(report.busiestSecondShare > Self.busiestSecondShareBound)
    }

    @Test func aSeededRunIsReproducible() throws {
        var parameters = PolicySimulation.Parameters()
        parameters.deviceCount = 2_000
        parameters.adapterCount = 4
        parameters.capacityPerAdapter = 500
        parameters.duration = .seconds(900)
        var first = SplitMix64(seed: 77)
        var second = SplitMix64(seed: 77)
        #expect(try PolicySimulation.run(parameters, using: &first) == PolicySimulation.run(parameters, using: &second))
    }
}
