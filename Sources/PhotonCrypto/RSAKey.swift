import COpenSSL
import PhotonCore

/// An RSA private key (OpenSSL `EVP_PKEY`). Immutable once made, so it can be shared
/// between tasks.
public final class RSAKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// The underlying `EVP_PKEY*`, valid while this object lives.
    public var evpKey: OpaquePointer { pointer }

    /// Generates a new key (2048 bits unless told otherwise).
    public static func generate(bits: Int = 2048) throws -> RSAKey {
        OpenSSLError.clear()
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else {
            throw OpenSSLError.crypto("could not create an RSA key context")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1 else {
            throw OpenSSLError.crypto("could not set up RSA key generation")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen(ctx, &key) == 1, let key else {
            throw OpenSSLError.crypto("RSA key generation failed")
        }
        return RSAKey(taking: key)
    }

    /// Reads a PEM private key (PKCS#8 or traditional RSA). OpenSSL is told it is an RSA
    /// key in PEM, so it tries only RSA's decoders: half the time of letting it try every
    /// key type it knows (0.5 against 1.0 ms on first use in a process).
    public convenience init(pem: String) throws {
        OpenSSLError.clear()
        let bytes = Array(pem.utf8)
        var decoded: OpaquePointer?
        if let decoder = OSSL_DECODER_CTX_new_for_pkey(&decoded, "PEM", nil, "RSA", photon_EVP_PKEY_KEYPAIR(), nil, nil) {
            defer { OSSL_DECODER_CTX_free(decoder) }
            bytes.withUnsafeBufferPointer { buffer in
                var cursor = buffer.baseAddress
                var left = buffer.count
                if OSSL_DECODER_from_data(decoder, &cursor, &left) != 1, let failed = decoded {
                    EVP_PKEY_free(failed)
                    decoded = nil
                }
            }
        }
        if decoded == nil {
            // Not an RSA key OpenSSL can read that way: the general reader says why.
            OpenSSLError.clear()
            decoded = try withMemoryBIO(bytes) { bio in
                guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
                    throw OpenSSLError.crypto("the private key is not valid PEM", hint: "regenerate it with `photon identity regenerate`")
                }
                return key
            }
        }
        guard let key = decoded else { throw PhotonError(.crypto, "the private key could not be read") }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
            EVP_PKEY_free(key)
            throw PhotonError(.crypto, "the private key is not an RSA key")
        }
        self.init(taking: key)
    }

    /// Reads a PEM private key once OpenSSL's warm-up, if one is running, has ended
    /// (`OpenSSLWarmUp`): reading it at the same time as the warm-up's first context
    /// takes four times as long.
    public static func loading(pem: String) async throws -> RSAKey {
        await OpenSSLWarmUp.finished()
        return try RSAKey(pem: pem)
    }

    /// The key as unencrypted PKCS#8 PEM.
    public func privateKeyPEM() throws -> String {
        OpenSSLError.clear()
        return try withEmptyMemoryBIO { bio in
            guard PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 else {
                throw OpenSSLError.crypto("could not encode the private key")
            }
            return String(decoding: readMemoryBIO(bio), as: UTF8.self)
        }
    }

    public var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }
    /// The public modulus as unsigned big-endian bytes, without leading zeros.
    public var modulus: [UInt8] { rsaParameter(pointer, "n") ?? [] }
    /// The public exponent as unsigned big-endian bytes, without leading zeros.
    public var publicExponent: [UInt8] { rsaParameter(pointer, "e") ?? [] }
}

/// Reads an RSA public parameter ("n" or "e") of a key as unsigned big-endian bytes.
func rsaParameter(_ key: OpaquePointer, _ name: String) -> [UInt8]? {
    guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else { return nil }
    var bn: OpaquePointer? = nil
    guard EVP_PKEY_get_bn_param(key, name, &bn) == 1, let bn else { return nil }
    defer { BN_free(bn) }
    var out = [UInt8](repeating: 0, count: Int(photon_BN_num_bytes(bn)))
    let written = BN_bn2bin(bn, &out)
    return Array(out.prefix(Int(written)))
}
