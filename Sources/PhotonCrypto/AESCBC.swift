import COpenSSL

/// AES-128-CBC with PKCS#7 padding, through OpenSSL's EVP interface. Philips TVs send some
/// fields of their `system` answer this way under a key every client knows: it hides
/// nothing from an attacker, and Photon uses it only to read those fields, never to protect
/// a secret of its own.
public enum AESCBC {
    /// Encrypts `plaintext` under a 16-byte `key` and `iv`.
    public static func encrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        try run(plaintext, key: key, iv: iv, encrypting: true)
    }

    /// Decrypts `ciphertext` (a whole number of 16-byte blocks); a wrong key or damaged data
    /// shows as bad padding and throws.
    public static func decrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        guard !ciphertext.isEmpty, ciphertext.count % 16 == 0 else {
            throw OpenSSLError.crypto("AES-CBC data is not a whole number of 16-byte blocks")
        }
        return try run(ciphertext, key: key, iv: iv, encrypting: false)
    }

    private static func run(_ input: [UInt8], key: [UInt8], iv: [UInt8], encrypting: Bool) throws -> [UInt8] {
        guard key.count == 16, iv.count == 16 else { throw OpenSSLError.crypto("AES-128-CBC takes a 16-byte key and a 16-byte IV") }
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLError.crypto("could not allocate a cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, EVP_aes_128_cbc(), nil, key, iv, encrypting ? 1 : 0) == 1 else {
            throw OpenSSLError.crypto("AES-128-CBC could not start")
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        var total = 0
        let updated = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { EVP_CipherUpdate(context, out.baseAddress, &written, $0.baseAddress, Int32($0.count)) }
        }
        guard updated == 1 else { throw OpenSSLError.crypto("AES-128-CBC failed") }
        total = Int(written)
        let finished = output.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(context, $0.baseAddress! + total, &written) }
        guard finished == 1 else { throw OpenSSLError.crypto("AES-128-CBC data has bad padding (a wrong key, or damaged data)") }
        total += Int(written)
        return Array(output[0..<total])
    }
}

/// HMAC (RFC 2104) over SHA-1, written on the digests here: Philips's pairing signs the
/// PIN and the TV's timestamp with it.
public enum HMAC {
    public static func sha1(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        let blockSize = 64
        var block = key.count > blockSize ? Digest.sha1(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = Digest.sha1(block.map { $0 ^ 0x36 } + message)
        return Digest.sha1(block.map { $0 ^ 0x5c } + inner)
    }
}
