/// Maps real time to simulated time: `scale` simulated seconds pass per real second (0 freezes the
/// world so that only AdvanceTime moves it), plus whatever AdvanceTime added.
struct SimulatorClock: Sendable {
    private var origin: ContinuousClock.Instant
    private var base: Duration = .zero
    private(set) var scale: Double

    init(start: ContinuousClock.Instant, scale: Double) {
        origin = start
        self.scale = scale
    }

    func now(at real: ContinuousClock.Instant) -> Duration {
        base + (real - origin) * scale
    }

    /// Real time until simulated `deadline`, nil when time is frozen.
    func realDelay(until deadline: Duration, at real: ContinuousClock.Instant) -> Duration? {
        guard scale > 0 else { return nil }
        return (deadline - now(at: real)) / scale
    }

    mutating func advance(by delta: Duration, at real: ContinuousClock.Instant) {
        base = now(at: real) + delta
        origin = real
    }

    mutating func setScale(_ newScale: Double, at real: ContinuousClock.Instant) {
        base = now(at: real)
        origin = real
        scale = max(0, newScale)
    }
}
