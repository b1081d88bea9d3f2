import Testing
@testable import GATTProfiles

// Shared helpers for the Core tests. Names carry a `core` prefix: every group's tests end up in one test target.

/// SplitMix64 (Steele, Lea and Flood 2014; the reference constants of Vigna's `splitmix64.c`): a small seeded
/// generator so every "random" test is the same on every run — no system randomness.
struct CoreSplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A value in 0..<bound (bound > 0); the modulo bias is irrelevant for a test.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    /// `count` random bytes, eight from each 64-bit output (cheap enough for the fuzz tests in a debug build).
    mutating func bytes(_ count: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        result.withUnsafeMutableBufferPointer { buffer in
            var i = 0
            while i < count {
                var word = next()
                for _ in 0..<Swift.min(8, count - i) {
                    buffer[i] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    i += 1
                }
            }
        }
        return result
    }
}

/// `mantissa × 10^exponent` with trailing zeros of the mantissa folded into the exponent, computed here and not by
/// `DecimalNumber.normalised`, so two decimals can be compared independently of the type's own `==`.
func coreNormalised(_ mantissa: Int64, _ exponent: Int) -> (mantissa: Int64, exponent: Int) {
    if mantissa == 0 { return (0, 0) }
    var m = mantissa, e = exponent
    while m % 10 == 0 { m /= 10; e += 1 }
    return (m, e)
}

/// True when `d` is `mantissa × 10^exponent` by the value (not just by its representation).
func coreIsValue(_ d: DecimalNumber, _ mantissa: Int64, _ exponent: Int) -> Bool {
    let a = coreNormalised(d.mantissa, d.exponent), b = coreNormalised(mantissa, exponent)
    return a.mantissa == b.mantissa && a.exponent == b.exponent
}

func coreHex(_ bytes: [UInt8]) -> String {
    bytes.map { b in let s = String(b, radix: 16, uppercase: true); return s.count < 2 ? "0" + s : s }.joined(separator: " ")
}
