import Synchronization

/// Every configured IRK with its key schedule set up in advance, so trying a new RPA against N keys costs
/// N block encryptions and nothing else.
///
/// libcrypto contexts are not safe to use from two threads at once, and resolver copies share one key
/// ring, so the contexts sit behind a lock taken once per address (not once per key).
final class IRKKeyring: Sendable {
    let keys: [IdentityResolvingKey]
    private let ciphers: Mutex<[AESBlockCipher]>

    init(keys: [IdentityResolvingKey]) throws(IdentityError) {
        var ciphers: [AESBlockCipher] = []
        ciphers.reserveCapacity(keys.count)
        for key in keys { ciphers.append(try AESBlockCipher(key: key.key)) }
        self.keys = keys
        self.ciphers = Mutex(ciphers)
    }

    /// The index of the first key whose `ah(prand)` equals the address's hash, or nil.
    func firstMatch(for address: BluetoothAddress) -> Int? {
        var input = ResolvablePrivateAddress.plaintext(prand: address.prand)
        let hash = address.hash
        return ciphers.withLock { ciphers -> Int? in
            withUnsafeBytes(of: &input) { i -> Int? in
                let inPtr = i.baseAddress!.assumingMemoryBound(to: UInt8.self)
                var output: (UInt64, UInt64) = (0, 0)
                return withUnsafeMutableBytes(of: &output) { o -> Int? in
                    let outPtr = o.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    for (index, cipher) in ciphers.enumerated() {
                        // A refused block is a key that did not match; libcrypto does not refuse ECB blocks.
                        guard cipher.encryptBlock(inPtr, into: outPtr) else { continue }
                        let low = UInt32(outPtr[13]) << 16 | UInt32(outPtr[14]) << 8 | UInt32(outPtr[15])
                        if low == hash { return index }
                    }
                    return nil
                }
            }
        }
    }
}
