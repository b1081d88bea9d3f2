/// Random bytes from any generator (the seeded one is Policy's SplitMix64).
extension RandomNumberGenerator {
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) } }
}
