extension BluetoothAddress {
    /// Parses BlueZ's `Device1.Address` text, `AA:BB:CC:DD:EE:FF` (either case).
    public init(_ text: String, type: AddressType) throws(IdentityError) {
        guard let bits = Self.parse(Substring(text), separator: UInt8(ascii: ":")) else {
            throw IdentityError(.invalidAddress, "'\(text)' is not an address of the form AA:BB:CC:DD:EE:FF")
        }
        self.init(bits, type: type)
    }

    /// Parses BlueZ's `Address` and `AddressType` properties together.
    public init(bluezAddress text: String, addressType: String) throws(IdentityError) {
        try self.init(text, type: AddressType(bluez: addressType))
    }

    /// Parses a BlueZ device object path, `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`, or any object below it
    /// (`…/dev_AA_BB_CC_DD_EE_FF/service0010/char0011`). The path carries no type, so the caller gives it.
    public init(devicePath path: String, type: AddressType) throws(IdentityError) {
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count >= 5, parts[0].isEmpty,
            parts[1].elementsEqual("org".utf8), parts[2].elementsEqual("bluez".utf8), !parts[3].isEmpty,
            parts[4].starts(with: "dev_".utf8),
            parts.dropFirst(5).allSatisfy({ !$0.isEmpty }),
            let bits = Self.parse(Substring(parts[4].dropFirst(4)), separator: UInt8(ascii: "_"))
        else {
            throw IdentityError(.invalidDevicePath, "'\(path)' is not a BlueZ device path like /org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF")
        }
        self.init(bits, type: type)
    }

    /// The object path BlueZ gives this device under `adapter` (e.g. `hci0`).
    public func devicePath(adapter: String) -> String {
        "/org/bluez/\(adapter)/dev_" + Hex.string(bytes, uppercase: true, separator: "_")
    }

    private static func parse(_ text: Substring, separator: UInt8) -> UInt64? {
        // In place when the text is contiguous (always, for a native string): a restore parses 10 000 of these.
        if let bits = text.utf8.withContiguousStorageIfAvailable({ parse($0, separator: separator) }) { return bits }
        return Array(text.utf8).withUnsafeBufferPointer { parse($0, separator: separator) }
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>, separator: UInt8) -> UInt64? {
        guard utf8.count == 17 else { return nil }
        var bits: UInt64 = 0
        for group in 0..<6 {
            let i = group * 3
            if group > 0, utf8[i - 1] != separator { return nil }
            guard let h = Hex.value(of: utf8[i]), let l = Hex.value(of: utf8[i + 1]) else { return nil }
            bits = bits << 8 | UInt64(h << 4 | l)
        }
        return bits
    }
}
