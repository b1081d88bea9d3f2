/// A 48-bit Bluetooth device address with BlueZ's textual and object-path forms.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The six bytes, most significant first (as written: `AA:BB:…`).
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (case-insensitive); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var out: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            out.append(byte)
        }
        bytes = out
    }

    /// `AA:BB:CC:DD:EE:FF`, upper case as BlueZ prints it.
    public var description: String { bytes.map(Self.hex).joined(separator: ":") }

    /// The object-path element BlueZ uses: `dev_AA_BB_CC_DD_EE_FF`.
    public var pathComponent: String { "dev_" + bytes.map(Self.hex).joined(separator: "_") }

    /// The default Alias BlueZ gives a device without a name: `AA-BB-CC-DD-EE-FF`.
    public var dashed: String { bytes.map(Self.hex).joined(separator: "-") }

    /// Whether a random address is private (resolvable or non-resolvable) rather than static: the two most
    /// significant bits are not `11`. BlueZ keeps such devices temporary even after Connect.
    public var isPrivateWhenRandom: Bool { (bytes[0] & 0xC0) != 0xC0 }

    /// A fresh resolvable private address (top bits `01`), as an Android or iOS device rotates to.
    public static func resolvablePrivate<R: RandomNumberGenerator>(using rng: inout R) -> BluetoothAddress {
        var b = (0..<6).map { _ in UInt8.random(in: 0...255, using: &rng) }
        b[0] = (b[0] & 0x3F) | 0x40
        return BluetoothAddress(bytes: b)!
    }

    public static func < (a: BluetoothAddress, b: BluetoothAddress) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}

/// BlueZ's `AddressType` property values for LE devices.
public enum AddressType: String, Sendable, Hashable {
    case `public`
    case random
}
