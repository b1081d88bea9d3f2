/// A 48-bit Bluetooth device address together with its type, as BlueZ reports a peripheral.
///
/// Two addresses with the same bits but different types are different devices, so the type is part of
/// equality. Bits are held most significant byte first as printed (`AA` of `AA:BB:…` is bits 47…40).
public struct BluetoothAddress: Hashable, Sendable, Codable, Comparable, CustomStringConvertible,
    CustomDebugStringConvertible
{
    /// The 48 address bits in the low bits of the integer.
    public let rawValue: UInt64
    public let type: AddressType

    /// What the address says about how stable it is (Core spec Vol 6 Part B §1.3).
    public enum Kind: String, Hashable, Sendable, Codable {
        /// An IEEE-assigned public address: a stable identity.
        case `public`
        /// A static random address (top bits `11`): stable until power cycle, an identity.
        case staticRandom
        /// A resolvable private address (top bits `01`): `prand || hash`, resolvable with the device's IRK.
        case resolvablePrivate
        /// A non-resolvable private address (top bits `00`): cannot be tied to a device by address.
        case nonResolvablePrivate
        /// Top bits `10` are reserved by the spec; treated like a non-resolvable address.
        case reservedRandom
    }

    public static let mask: UInt64 = 0xFFFF_FFFF_FFFF

    /// Keeps only the low 48 bits of `bits`.
    public init(_ bits: UInt64, type: AddressType) {
        self.rawValue = bits & Self.mask
        self.type = type
    }

    /// Builds an address from six bytes, first byte printed first; nil unless exactly six bytes.
    public init?(bytes: some Collection<UInt8>, type: AddressType) {
        guard bytes.count == 6 else { return nil }
        self.init(bytes.reduce(0) { $0 << 8 | UInt64($1) }, type: type)
    }

    public var kind: Kind {
        guard type == .random else { return .public }
        switch rawValue >> 46 {
        case 0b11: return .staticRandom
        case 0b01: return .resolvablePrivate
        case 0b00: return .nonResolvablePrivate
        default: return .reservedRandom
        }
    }

    /// Public and static random addresses name a device by themselves.
    public var isIdentityAddress: Bool { kind == .public || kind == .staticRandom }

    /// The six bytes, first printed byte first.
    public var bytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> (40 - 8 * UInt64($0))) } }

    /// For a resolvable private address: the 24-bit random part (upper half).
    public var prand: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 24) & 0xFF_FFFF }
    /// For a resolvable private address: the 24-bit hash (lower half).
    public var hash: UInt32 { UInt32(truncatingIfNeeded: rawValue) & 0xFF_FFFF }

    /// BlueZ's spelling, `AA:BB:CC:DD:EE:FF`.
    public var description: String { Hex.string(bytes, uppercase: true, separator: ":") }
    public var debugDescription: String { "\(description) (\(kind.rawValue))" }

    /// One combine instead of two: the resolver hashes an address several times per advert.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue | (type == .random ? 1 << 48 : 0))
    }

    public static func < (a: Self, b: Self) -> Bool {
        (a.rawValue, a.type == .random ? 1 : 0) < (b.rawValue, b.type == .random ? 1 : 0)
    }
}
