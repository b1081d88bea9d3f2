import Testing
@testable import Policy

@Suite("Backoff")
struct BackoffTests {
    /// The table in Backoff's doc comment, written out independently of the formula.
    static let documentedCeilings: [Duration] = [1, 2, 4, 8, 16, 32, 60, 60, 60, 60].map { .seconds($0) }

    @Test func ceilingsFollowTheDocumentedTable() {
        let backoff = Backoff()
        for (index, expected) in Self.documentedCeilings.enumerated() {
            #expect(backoff.ceiling(afterFailures: index + 1) == expected, "failure \(index + 1)")
        }
        #expect(backoff.ceiling(afterFailures: 1_000_000) == .seconds(60))
        #expect(backoff.ceiling(afterFailures: 0) == .seconds(1))
    }

    @Test func seededDelaysStayWithinTheDocumentedBoundsAndNeverExceedTheCap() {
        for seed in UInt64(1)...50 {
            var rng = SplitMix64(seed: seed)
            var backoff = Backoff()
            for n in 1...40 {
                let delay = backoff.recordFailure(using: &rng)
                let ceiling = Self.documentedCeilings[min(n, Self.documentedCeilings.count) - 1]
                #expect(delay >= .milliseconds(250) && delay <= ceiling, "seed \(seed) failure \(n): \(delay)")
                #expect(delay <= .seconds(60))
            }
        }
    }

    @Test func theSameSeedGivesTheSameSequenceAndAnotherSeedAnother() {
        func sequence(seed: UInt64) -> [Duration] {
            var rng = SplitMix64(seed: seed)
            var backoff = Backoff()
            return (0..<12).map { _ in backoff.recordFailure(using: &rng) }
        }
        #expect(sequence(seed: 42) == sequence(seed: 42))
        #expect(sequence(seed: 42) != sequence(seed: 43))
    }

    @Test func jitterSpreadsDelaysOverTheWholeWindow() {
        var rng = SplitMix64(seed: 7)
        let backoff = Backoff()
        let delays = (0..<2_000).map { _ in backoff.delay(afterFailures: 7, using: &rng) }
        // Full jitter over 0.25 … 60 s: both ends of the window are reached, not just the middle.
        #expect(delays.contains { $0 < .seconds(5) })
        #expect(delays.contains { $0 > .seconds(55) })
        #expect(Set(delays).count > 1_900)
    }

    @Test func aLinkThatStayedUpForStableAfterResetsTheCount() {
        var rng = SplitMix64(seed: 1)
        var backoff = Backoff()
        for _ in 0..<6 { _ = backoff.recordFailure(using: &rng) }
        backoff.linkUp(now: .seconds(100))
        let wasStable = backoff.linkDown(now: .seconds(160))
        #expect(wasStable)
        #expect(backoff.failures == 0)
        let next = backoff.recordFailure(using: &rng)
        #expect(next <= .seconds(1))
    }

    @Test func aLinkThatDropsBeforeStableAfterKeepsCounting() {
        var rng = SplitMix64(seed: 1)
        var backoff = Backoff()
        for _ in 0..<6 { _ = backoff.recordFailure(using: &rng) }
        backoff.linkUp(now: .seconds(100))
        let wasStable = backoff.linkDown(now: .seconds(159))
        #expect(!wasStable)
        #expect(backoff.failures == 6)
        _ = backoff.recordFailure(using: &rng)
        #expect(backoff.failures == 7)
    }

    @Test func stableAfterIsConfigurable() {
        var backoff = Backoff(configuration: BackoffConfiguration(stableAfter: .seconds(5)))
        var rng = SplitMix64(seed: 3)
        _ = backoff.recordFailure(using: &rng)
        backoff.linkUp(now: .seconds(10))
        let wasStable = backoff.linkDown(now: .seconds(15))
        #expect(wasStable)
        #expect(backoff.failures == 0)
    }

    @Test func withoutJitterTheDelayIsTheCeiling() {
        var rng = SplitMix64(seed: 9)
        var backoff = Backoff(configuration: BackoffConfiguration(jitter: .none))
        let delays = (0..<8).map { _ in backoff.recordFailure(using: &rng) }
        #expect(delays == Array(Self.documentedCeilings.prefix(8)))
    }

    @Test func recoveryDelaysStayInsideTheRecoveryWindow() {
        var rng = SplitMix64(seed: 11)
        let backoff = Backoff(configuration: BackoffConfiguration(recoveryWindow: .seconds(20)))
        for _ in 0..<1_000 {
            let delay = backoff.recoveryDelay(using: &rng)
            #expect(delay >= .zero && delay <= .seconds(20))
        }
    }

    @Test func invalidConfigurationsAreRejectedWithTheFieldNamed() {
        #expect(throws: PolicyError.self) { try BackoffConfiguration(base: .zero).validated() }
        #expect(throws: PolicyError.self) { try BackoffConfiguration(factor: 0.5).validated() }
        #expect(throws: PolicyError.self) { try BackoffConfiguration(cap: .milliseconds(500)).validated() }
        #expect(throws: PolicyError.self) { try BackoffConfiguration(recoveryWindow: .seconds(61)).validated() }
        do {
            _ = try PolicyConfiguration(normal: ClassConfiguration(retryBudget: 0)).validated()
            Issue.record("a zero retry budget was accepted")
        } catch {
            #expect(error.code == .invalidClassConfiguration)
            #expect(error.message.contains("normal"))
            #expect(error.message.contains("retryBudget"))
        }
        #expect((try? PolicyConfiguration().validated()) != nil)
    }

    @Test func humanDurationsReadNaturally() {
        #expect(Duration.milliseconds(850).humanDescription == "850 ms")
        #expect(Duration.milliseconds(2_440).humanDescription == "2.4 s")
        #expect(Duration.seconds(42).humanDescription == "42 s")
        #expect(Duration.seconds(14 * 60 + 10).humanDescription == "14 min")
        #expect(Duration.seconds(3 * 3600).humanDescription == "3 h")
    }
}
