import COpenSSL
import PhotonCore

/// ChaCha20-Poly1305 (RFC 8439) sealing with a 12-byte nonce and a 16-byte tag appended,
/// as HomeKit-style pairing and Apple's Companion frames use it.
public enum ChaChaPoly {
    public static let tagSize = 16

    /// `plaintext` encrypted, with the tag appended.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], authenticating aad: [UInt8] = []) throws -> [UInt8] {
        try check(key: key, nonce: nonce)
        OpenSSLError.clear()
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLError.crypto("could not allocate a cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce) == 1 else {
            throw OpenSSLError.crypto("ChaCha20-Poly1305 setup failed")
        }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else { throw OpenSSLError.crypto("AAD failed") }
        }
        var out = [UInt8](repeating: 0, count: plaintext.count + tagSize)
        var written: Int32 = 0
        if !plaintext.isEmpty {
            guard EVP_EncryptUpdate(context, &out, &written, plaintext, Int32(plaintext.count)) == 1 else {
                throw OpenSSLError.crypto("encryption failed")
            }
        }
        var final: Int32 = 0
        let finished = out.withUnsafeMutableBufferPointer { EVP_EncryptFinal_ex(context, $0.baseAddress! + Int(written), &final) }
        guard finished == 1 else { throw OpenSSLError.crypto("encryption failed") }
        let tagged = out.withUnsafeMutableBufferPointer {
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagSize), $0.baseAddress! + plaintext.count)
        }
        guard tagged == 1 else { throw OpenSSLError.crypto("could not read the tag") }
        return out
    }

    /// The plaintext of `sealed` (ciphertext then tag), or `crypto` when it was altered, or
    /// sealed with another key, nonce or associated data.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], authenticating aad: [UInt8] = []) throws -> [UInt8] {
        try check(key: key, nonce: nonce)
        guard sealed.count >= tagSize else { throw PhotonError(.crypto, "a sealed message is shorter than its tag") }
        OpenSSLError.clear()
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLError.crypto("could not allocate a cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce) == 1 else {
            throw OpenSSLError.crypto("ChaCha20-Poly1305 setup failed")
        }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count)) == 1 else { throw OpenSSLError.crypto("AAD failed") }
        }
        let cipherCount = sealed.count - tagSize
        var out = [UInt8](repeating: 0, count: max(cipherCount, 1))
        var written: Int32 = 0
        if cipherCount > 0 {
            guard EVP_DecryptUpdate(context, &out, &written, sealed, Int32(cipherCount)) == 1 else {
                throw OpenSSLError.crypto("decryption failed")
            }
        }
        var tag = Array(sealed[cipherCount...])
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagSize), &tag) == 1 else {
            throw OpenSSLError.crypto("could not set the tag")
        }
        var final: Int32 = 0
        let verified = out.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(context, $0.baseAddress! + Int(written), &final) }
        OpenSSLError.clear()
        guard verified == 1 else {
            throw PhotonError(.crypto, "a sealed message failed its authentication check (altered, or another key)")
        }
        return Array(out.prefix(cipherCount))
    }

    /// A nonce from a short label (`PS-Msg05`): four zero bytes, then the label's bytes.
    public static func nonce(label: String) -> [UInt8] {
        let bytes = Array(label.utf8)
        return [UInt8](repeating: 0, count: max(0, 12 - bytes.count)) + bytes.suffix(12)
    }

    /// A nonce from a frame counter: the counter little-endian over all 12 bytes, as
    /// Companion's encrypted frames count.
    public static func nonce(counter: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * $0)) } + [0, 0, 0, 0]
    }

    private static func check(key: [UInt8], nonce: [UInt8]) throws {
        guard key.count == 32 else { throw PhotonError(.crypto, "a ChaCha20-Poly1305 key is 32 bytes, not \(key.count)") }
        guard nonce.count == 12 else { throw PhotonError(.crypto, "a ChaCha20-Poly1305 nonce is 12 bytes, not \(nonce.count)") }
    }
}

/// HKDF (RFC 5869) with SHA-512, through OpenSSL's EVP_PKEY HKDF.
public enum HKDF {
    public static func sha512(secret: [UInt8], salt: [UInt8], info: [UInt8], length: Int = 32) throws -> [UInt8] {
        OpenSSLError.clear()
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else { throw OpenSSLError.crypto("could not allocate HKDF") }
        defer { EVP_PKEY_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: length)
        var outLength = length
        // An empty salt is a string of zeros of the hash's length (RFC 5869), which OpenSSL
        // does itself when none is set.
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha512()) == 1,
            salt.isEmpty || EVP_PKEY_CTX_set1_hkdf_salt(context, salt, Int32(salt.count)) == 1,
            EVP_PKEY_CTX_set1_hkdf_key(context, secret, Int32(secret.count)) == 1,
            info.isEmpty || EVP_PKEY_CTX_add1_hkdf_info(context, info, Int32(info.count)) == 1,
            EVP_PKEY_derive(context, &out, &outLength) == 1, outLength == length
        else { throw OpenSSLError.crypto("HKDF-SHA512 failed") }
        return out
    }

    /// With text salt and info, as the pairing labels are written.
    public static func sha512(secret: [UInt8], salt: String, info: String, length: Int = 32) throws -> [UInt8] {
        try sha512(secret: secret, salt: Array(salt.utf8), info: Array(info.utf8), length: length)
    }
}
