#if canImport(Glibc)
import Glibc
#endif

/// The clocks the store reads: CLOCK_MONOTONIC for deadlines and arrival order within a boot, CLOCK_REALTIME for
/// times that must keep their meaning across restarts.
public enum StoreClock {
    public static func monotonicNanoseconds() -> Int64 { read(CLOCK_MONOTONIC) }
    public static func wallNanoseconds() -> Int64 { read(CLOCK_REALTIME) }

    static func read(_ clock: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled.addingReportingOverflow(attoseconds / 1_000_000_000).overflow ? .max : scaled + attoseconds / 1_000_000_000
    }
}
