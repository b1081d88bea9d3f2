/// The bytes a manufacturer- or service-data rule took from an advert: a device's serial, up to
/// `IdentityKey.capacity` bytes, held inline so resolving an advert allocates nothing.
public struct IdentityKey: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// The longest key a rule may take. A serial is a few bytes and 16 covers a whole UUID; keeping the key
    /// this small keeps `FleetIdentity` cheap to copy, which measured about 3× faster per advert than
    /// a 32-byte key.
    public static let capacity = 16

    private var words: (UInt64, UInt64) = (0, 0)
    private var length: UInt8 = 0

    public var count: Int { Int(length) }

    /// Nil when `bytes` is longer than `capacity`.
    public init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count <= Self.capacity else { return nil }
        withUnsafeMutableBytes(of: &words) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        length = UInt8(bytes.count)
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = min(bytes.count, Self.capacity)
        if let source = bytes.baseAddress, n > 0 {
            withUnsafeMutableBytes(of: &words) { $0.baseAddress?.copyMemory(from: source, byteCount: n) }
        }
        length = UInt8(n)
    }

    /// Literal keys in code; more than `capacity` bytes is a programming error.
    public init(arrayLiteral elements: UInt8...) {
        precondition(elements.count <= Self.capacity, "an IdentityKey holds at most \(Self.capacity) bytes")
        self.init(elements)!
    }

    public var bytes: [UInt8] {
        withUnsafeBytes(of: words) { Array($0.prefix(count)) }
    }

    public var description: String { Hex.string(bytes) }

    public static func == (a: Self, b: Self) -> Bool {
        a.length == b.length && a.words == b.words
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(length)
        hasher.combine(words.0)
        hasher.combine(words.1)
        
        
    }

    /// Byte-wise order, shorter first on a common prefix.
    public static func < (a: Self, b: Self) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}
