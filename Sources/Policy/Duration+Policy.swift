extension Duration {
    /// Whole milliseconds, rounded down: the unit of log fields (`FLEET_DELAY_MS`) and of fleetctl's figures.
    public var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }

    /// Whole and fractional seconds, for arithmetic on ceilings; exact to well below a nanosecond for the
    /// minutes-long delays Policy deals with.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// Whole nanoseconds, clamped to zero for negative durations.
    var nanoseconds: Int64 {
        let parts = components
        guard parts.seconds >= 0 else { return 0 }
        let (whole, overflow) = parts.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        return whole + parts.attoseconds / 1_000_000_000
    }

    /// A uniformly random duration in `range`, at nanosecond resolution.
    static func random(in range: ClosedRange<Duration>, using rng: inout some RandomNumberGenerator) -> Duration {
        let low = range.lowerBound.nanoseconds
        let high = range.upperBound.nanoseconds
        guard high > low else { return range.lowerBound }
        return .nanoseconds(Int64.random(in: low...high, using: &rng))
    }

    /// A short human form for log sentences: "850 ms", "2.4 s", "42 s", "14 min", "3 h".
    /// Integer arithmetic only, so the library needs no libm.
    var humanDescription: String {
        let ms = (nanoseconds + 500_000) / 1_000_000
        if ms < 1000 { return "\(ms) ms" }
        let tenths = (ms + 50) / 100
        if tenths < 100 { return "\(tenths / 10).\(tenths % 10) s" }
        let s = (ms + 500) / 1000
        if s < 120 { return "\(s) s" }
        if s < 7200 { return "\((s + 30) / 60) min" }
        return "\((s + 1800) / 3600) h"
    }
}
