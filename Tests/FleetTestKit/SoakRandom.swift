// The only soak file that imports the generator's module (Policy).
import Policy
import Foundation

/// The soak's seeded randomness: every fault of a run is drawn from one SplitMix64, so a seed names a fault
/// schedule and `make soak SEED=…` replays it.
public struct SoakRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    public init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    public mutating func next() -> UInt64 { generator.next() }

    /// A uniformly random duration in `range`, to the millisecond.
    public mutating func duration(in range: ClosedRange<Double>) -> Duration {
        .milliseconds(Int64((Double.random(in: range, using: &self) * 1000).rounded()))
    }

    /// An exponentially distributed gap with this mean (a Poisson process of faults).
    public mutating func exponential(mean: Double) -> Double {
        -mean * log(1 - Double.random(in: 0..<1, using: &self))
    }
}
