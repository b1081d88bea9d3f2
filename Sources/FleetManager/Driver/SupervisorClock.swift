import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The supervisor's time, in two kinds kept apart.
///
/// - `now()` is policy time, the state machine's `now`: minimum hold, the stable-link reset, backoff, the
///   adapter-off grace, every timer. It is monotonic, so a step of the wall clock (NTP correcting a gateway
///   without an RTC) can never make a link look old enough to evict, or young enough to keep.
/// - `wallNow()` is only for what a person reads: feed timestamps (log lines get theirs from their handler).
///
/// The driver's own housekeeping (the systemd watchdog, STATUS= rate, snapshot coalescing) sleeps in real
/// time, whatever the clock: systemd counts the watchdog in real time.
///
/// What survives a restart: monotonic time does not (each boot and each process count from their own
/// start), yet the snapshot keeps the identity registry's first/last seen and the eviction times. So policy
/// time counts monotonically from an epoch read once at start: the wall-clock time then. Within a run it never
/// steps; across runs the persisted times mean what the wall clock meant at each start.
public protocol SupervisorClock: Sendable {
    /// Policy time: monotonic, as a duration since the epoch read at start.
    func now() -> Duration
    /// Wall-clock time, for people.
    func wallNow() -> Date
    /// Sleeps until policy time `deadline` (a timer of the state machine); throws when cancelled. A deadline,
    /// not a duration: the driver fixes it when the machine schedules the timer, so a sleeping task that starts
    /// late (or a manual clock advanced before it starts) still fires at the scheduled time.
    func sleep(until deadline: Duration) async throws
}

/// The system's clocks: `ContinuousClock` (CLOCK_BOOTTIME, which never steps) from the wall-clock time read
/// at start.
public struct SystemSupervisorClock: SupervisorClock {
    private let origin = ContinuousClock.now
    private let epoch: Duration

    public init() {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        epoch = .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }

    public func now() -> Duration { epoch + (ContinuousClock.now - origin) }
    public func wallNow() -> Date { Date() }
    public func sleep(until deadline: Duration) async throws { try await Task.sleep(for: max(.zero, deadline - now())) }
}
