import Foundation
import Synchronization
import TestScheduling
import Testing

/// The trait moves a test off the cooperative pool without losing the test's identity.
@Suite(.offCooperativePool) struct OffCooperativePoolTests {
    @Test func aSynchronousBodyRunsOnAThreadOfItsOwn() {
        #expect(onATestThreadOfItsOwn())
    }

    @Test func anAsyncBodyComesBackToItsThreadAfterASuspension() async throws {
        try await Task.sleep(for: .milliseconds(5))
        #expect(onATestThreadOfItsOwn())
    }

    @Test(arguments: [1, 2, 3]) func eachCaseOfAParameterizedTestGetsTheThread(_ value: Int) {
        #expect(onATestThreadOfItsOwn(), "case \(value)")
    }

    /// Were the task-locals lost, the issue would be recorded outside the test and `withKnownIssue` would fail.
    @Test func anExpectationThatFailsIsStillTheTests() {
        withKnownIssue { #expect(Bool(false)) }
    }

    static let running = Mutex((now: 0, most: 0))

    /// Each case holds its turn across a suspension, so cases that were let run together would overlap here.
    @Test(arguments: 0..<8) func casesTakeTurns(_ value: Int) async throws {
        Self.running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
        try await Task.sleep(for: .milliseconds(20))
        let most = Self.running.withLock { state in
            state.now -= 1
            return state.most
        }
        #expect(most == 1, "case \(value) saw \(most) cases at once")
    }

    @Test func withoutTheTraitATestRunsOnTheCooperativePool() async {
        await Task.detached { #expect(!onATestThreadOfItsOwn()) }.value
    }
}
