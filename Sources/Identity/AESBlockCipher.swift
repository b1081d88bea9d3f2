internal import COpenSSL

/// One AES-128 key schedule in a libcrypto ECB context, encrypting single 16-byte blocks: the `e()`
/// function of Core spec Vol 3 Part H §2.2.1. Owns the context and frees it on deinit.
///
/// Not thread-safe: libcrypto contexts carry per-call state, so callers serialise use (see `IRKKeyring`).
final class AESBlockCipher {
    private let context: OpaquePointer

    /// Sets up the key schedule once, so each later block costs only the block encryption.
    init(key: [UInt8]) throws(IdentityError) {
        guard key.count == 16 else {
            throw IdentityError(.invalidResolvingKey, "an AES-128 key is 16 bytes, not \(key.count)")
        }
        guard let context = EVP_CIPHER_CTX_new() else {
            throw IdentityError(.cryptoFailure, "libcrypto could not allocate a cipher context")
        }
        self.context = context
        let ok = key.withUnsafeBufferPointer { EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, $0.baseAddress, nil) }
        guard ok == 1, EVP_CIPHER_CTX_set_padding(context, 0) == 1 else {
            throw IdentityError(.cryptoFailure, "libcrypto could not set up an AES-128-ECB key schedule")
        }
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Encrypts one block from `input` (16 bytes) into `output` (16 bytes); false if libcrypto refused,
    /// which for an initialised ECB context with a whole block does not happen in practice.
    @inline(__always)
    func encryptBlock(_ input: UnsafePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Bool {
        var written: Int32 = 0
        return EVP_EncryptUpdate(context, output, &written, input, 16) == 1 && written == 16
    }
}
