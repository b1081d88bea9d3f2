@testable import FleetBroker
import Policy
import Testing

/// docs/mqtt.md promises that a broker back within two minutes of the start of an outage is tried again within a
/// second. The policy is pure: outage age, attempt number and a random draw in, a delay out.
@Suite struct BrokerReconnectPolicyTests {
    let policy = BrokerReconnectPolicy()  // the defaults fleetd runs with
    let ages: [Duration] = [.zero, .milliseconds(900), .seconds(3), .seconds(15), .seconds(60), .milliseconds(119_999)]

    @Test func aYoungOutageIsRetriedAtLeastOnceASecond() {
        for age in ages {
            for attempt in [1, 2, 3, 4, 5, 6, 10, 100, 10_000] {
                let bounds = policy.bounds(outageAge: age, attempt: attempt)
                #expect(bounds == .milliseconds(250) ... .seconds(1), "attempt \(attempt) at \(age): \(bounds)")
            }
        }
    }

    /// The delays the issue saw (0.92, 1.60, 3.77, 0.63, 10.27 s) came from attempts 1…5 of a 15 s outage.
    @Test func theGrownBackoffWaitsForTheOutageToAge() {
        for attempt in 1...5 {
            #expect(policy.bounds(outageAge: .seconds(Double(attempt) * 3), attempt: attempt).upperBound == .seconds(1))
        }
    }

    /// Past two minutes the ceiling grows with the outage's age beyond them, to the backoff's cap, so a broker back
    /// after T waits at most max(1 s, T − 120 s), never more than 60 s.
    @Test(arguments: [(120, 1), (121, 1), (122.5, 2.5), (130, 10), (150, 30), (179, 59), (180, 60), (600, 60), (86_400, 60)] as [(Double, Double)])
    func anOldOutageGrowsToTheCapWithoutAJump(age: Double, ceiling: Double) {
        #expect(policy.bounds(outageAge: .seconds(age), attempt: 500) == .milliseconds(250) ... .seconds(ceiling))
    }

    @Test func theAttemptStillBoundsTheCeiling() {
        // Attempt 3's exponential ceiling (4 s) is below the 30 s the age would allow.
        #expect(policy.bounds(outageAge: .seconds(150), attempt: 3).upperBound == .seconds(4))
        // A test rig's quick backoff (cap 400 ms) stays quick at every age.
        let quick = BrokerReconnectPolicy(backoff: BackoffConfiguration(base: .milliseconds(50), cap: .milliseconds(400), floor: .milliseconds(20)))
        #expect(quick.bounds(outageAge: .seconds(5), attempt: 1) == .milliseconds(20) ... .milliseconds(50))
        #expect(quick.bounds(outageAge: .seconds(500), attempt: 100) == .milliseconds(20) ... .milliseconds(400))
    }

    @Test func theDrawPicksWithinTheBounds() {
        #expect(policy.delay(outageAge: .seconds(10), attempt: 6, draw: 0) == .milliseconds(250))
        #expect(policy.delay(outageAge: .seconds(10), attempt: 6, draw: 1) == .seconds(1))
        #expect(policy.delay(outageAge: .seconds(10), attempt: 6, draw: 0.5) == .milliseconds(625))
        #expect(policy.delay(outageAge: .seconds(150), attempt: 50, draw: 1) == .seconds(30))
        #expect(policy.delay(outageAge: .seconds(10), attempt: 6, draw: 7) == .seconds(1), "a draw out of range is clamped")
        let fixed = BrokerReconnectPolicy(backoff: BackoffConfiguration(jitter: .none))
        #expect(fixed.bounds(outageAge: .seconds(10), attempt: 6) == .seconds(1) ... .seconds(1))
    }

    /// The bound docs/mqtt.md states, over a grid of ages, attempts and draws.
    @Test func theDocumentedBoundHolds() {
        var random = SplitMix64(seed: 41)
        for _ in 0..<20_000 {
            let age = Duration.milliseconds(Int64.random(in: 0...600_000, using: &random))
            let attempt = Int.random(in: 1...2000, using: &random)
            let delay = policy.delay(outageAge: age, attempt: attempt, draw: Double.random(in: 0...1, using: &random))
            let bound: Duration = age < .seconds(120) ? .seconds(1) : min(.seconds(60), max(.seconds(1), age - .seconds(120)))
            #expect(delay >= .milliseconds(250) && delay <= bound, "\(delay) after attempt \(attempt) at \(age)")
        }
    }

    @Test func anOutageEndsOnlyWithAStableSession() {
        var outage = BrokerOutage(policy: policy)
        _ = outage.failed(now: .seconds(10), draw: 0)
        _ = outage.failed(now: .seconds(11), draw: 0)
        #expect(outage.began == .seconds(10) && outage.attempts == 2)
        outage.linkUp(now: .seconds(12))
        outage.linkDown(now: .seconds(20))  // 8 s up: flapping, the outage goes on
        _ = outage.failed(now: .seconds(20), draw: 0)
        #expect(outage.began == .seconds(10) && outage.attempts == 3)
        #expect(outage.failed(now: .seconds(200), draw: 1) == .seconds(8), "190 s into a flapping outage: attempt 4's ceiling, not 1 s")
        outage.linkUp(now: .seconds(201))
        outage.linkDown(now: .seconds(261))  // up for stableAfter (60 s): the outage is over
        #expect(outage.began == nil && outage.attempts == 0)
        #expect(outage.failed(now: .seconds(300), draw: 1) == .seconds(1), "a new outage starts young")
    }
}
