import FleetManager
import Foundation
import Synchronization

/// A `SupervisorClock` that moves only when the test says: `advance` moves policy and wall time together
/// and wakes the timers that fall due; `stepWall` moves the wall clock alone, as NTP stepping it would.
final class ManualSupervisorClock: SupervisorClock {
    private struct Sleeper {
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>?
        var cancelled = false
    }

    private struct State {
        var now: Duration
        var wall: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var nextSleeper: UInt64 = 0
    }

    private let state: Mutex<State>

    init(start: Duration = .seconds(1_000), wall: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Mutex(State(now: start, wall: wall))
    }

    func now() -> Duration { state.withLock { $0.now } }
    func wallNow() -> Date { state.withLock { $0.wall } }

    /// Timers not yet due.
    var pendingSleepers: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: Duration) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextSleeper += 1
            state.sleepers[state.nextSleeper] = Sleeper(deadline: deadline)
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    guard let sleeper = state.sleepers[id], !sleeper.cancelled else {
                        state.sleepers.removeValue(forKey: id)
                        return .failure(CancellationError())
                    }
                    if sleeper.deadline <= state.now {
                        state.sleepers.removeValue(forKey: id)
                        return .success(())
                    }
                    state.sleepers[id]?.continuation = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let sleeper = state.sleepers[id] else { return nil }
                guard let continuation = sleeper.continuation else {
                    state.sleepers[id]?.cancelled = true
                    return nil
                }
                state.sleepers.removeValue(forKey: id)
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves policy and wall time forward and wakes every sleeper now due.
    func advance(by delta: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now += delta
            state.wall += TimeInterval(delta.components.seconds) + TimeInterval(delta.components.attoseconds) / 1e18
            let ready = state.sleepers.filter { $0.value.deadline <= state.now && $0.value.continuation != nil }
            for id in ready.keys { state.sleepers.removeValue(forKey: id) }
            return ready.values.sorted { $0.deadline < $1.deadline }.compactMap(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Steps the wall clock alone (NTP correcting a clock that had no RTC): policy time does not move.
    func stepWall(by seconds: TimeInterval) {
        state.withLock { $0.wall += seconds }
    }
}
