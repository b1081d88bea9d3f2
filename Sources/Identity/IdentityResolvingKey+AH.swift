extension IdentityResolvingKey {
    /// The random address hash `ah(k, r) = e(k, 0¹⁰⁴ || r) mod 2²⁴` (Core spec Vol 3 Part H §2.2.2).
    ///
    /// Sets up a fresh key schedule each call; the resolver keeps one per key instead.
    public func hash(prand: UInt32) throws(IdentityError) -> UInt32 {
        let cipher = try AESBlockCipher(key: key)
        guard let hash = ResolvablePrivateAddress.hash(prand: prand, with: cipher) else {
            throw IdentityError(.cryptoFailure, "libcrypto refused to encrypt a block")
        }
        return hash
    }

    /// Whether `address` is a resolvable private address generated from this key.
    public func resolves(_ address: BluetoothAddress) throws(IdentityError) -> Bool {
        guard address.kind == .resolvablePrivate else { return false }
        return try hash(prand: address.prand) == address.hash
    }

    /// Builds the resolvable private address this key yields for the 22 random bits of `prand`
    /// (the top two bits are forced to `01`), as the device itself would.
    public func resolvablePrivateAddress(prand: UInt32) throws(IdentityError) -> BluetoothAddress {
        let r = (prand & 0x3F_FFFF) | 0x40_0000
        let h = try hash(prand: r)
        return BluetoothAddress(UInt64(r) << 24 | UInt64(h), type: .random)
    }
}

/// The block layout of `ah`, shared by the one-off function and the resolver's key ring.
enum ResolvablePrivateAddress {
    /// The padded plaintext `r' = 0¹⁰⁴ || r`, most significant byte first.
    @inline(__always)
    static func plaintext(prand: UInt32) -> (UInt64, UInt64) {
        // Byte 13…15 of the block hold prand MSB first; as a big-endian 128-bit value that is just prand.
        (0, UInt64(prand & 0xFF_FFFF).bigEndian)
    }

    static func hash(prand: UInt32, with cipher: AESBlockCipher) -> UInt32? {
        var input = plaintext(prand: prand)
        var output: (UInt64, UInt64) = (0, 0)
        let ok = withUnsafeBytes(of: &input) { i in
            withUnsafeMutableBytes(of: &output) { o in
                cipher.encryptBlock(
                    i.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    into: o.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return ok ? lowHash(output) : nil
    }

    /// The low 24 bits of the ciphertext read as a big-endian number: its last three bytes.
    @inline(__always)
    static func lowHash(_ block: (UInt64, UInt64)) -> UInt32 {
        UInt32(truncatingIfNeeded: UInt64(bigEndian: block.1)) & 0xFF_FFFF
    }
}
