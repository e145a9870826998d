import COpenSSL
import Glibc
import PhotonCore

/// PKCS #1 v1.5 signatures over a digest the caller already has, and public keys made from
/// their numbers: what protocols that sign a challenge with the client's RSA key need
/// (ADB signs its 20-byte token as if it were a SHA-1 digest, and its peer checks that
/// against a public key sent as modulus and exponent).
extension RSAKey {
    /// The digest algorithms a PKCS #1 signature can name.
    public enum DigestAlgorithm: Sendable {
        case sha1, sha256

        var md: OpaquePointer? { self == .sha1 ? EVP_sha1() : EVP_sha256() }
        var length: Int { self == .sha1 ? 20 : 32 }
    }

    /// Signs `digest` (which must be `algorithm`'s length) with this private key: the
    /// DigestInfo naming `algorithm`, then PKCS #1 v1.5 padding (`RSA_sign` in OpenSSL's
    /// older interface).
    public func signPKCS1(digest: [UInt8], algorithm: DigestAlgorithm) throws -> [UInt8] {
        guard digest.count == algorithm.length else {
            throw PhotonError(.crypto, "a \(algorithm) digest is \(algorithm.length) bytes, not \(digest.count)")
        }
        OpenSSLError.clear()
        guard let ctx = EVP_PKEY_CTX_new(pointer, nil) else { throw OpenSSLError.crypto("could not create a signing context") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_sign_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(ctx, algorithm.md) == 1
        else { throw OpenSSLError.crypto("could not set up the RSA signature") }
        var length = 0
        guard EVP_PKEY_sign(ctx, nil, &length, digest, digest.count) == 1 else { throw OpenSSLError.crypto("could not size the signature") }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(ctx, &signature, &length, digest, digest.count) == 1 else { throw OpenSSLError.crypto("RSA signing failed") }
        return Array(signature.prefix(length))
    }

    /// Whether `signature` is this key's PKCS #1 v1.5 signature of `digest`.
    public func verifyPKCS1(signature: [UInt8], digest: [UInt8], algorithm: DigestAlgorithm) -> Bool {
        guard digest.count == algorithm.length, let ctx = EVP_PKEY_CTX_new(pointer, nil) else { return false }
        defer {
            EVP_PKEY_CTX_free(ctx)
            OpenSSLError.clear()
        }
        guard EVP_PKEY_verify_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(ctx, algorithm.md) == 1
        else { return false }
        return EVP_PKEY_verify(ctx, signature, signature.count, digest, digest.count) == 1
    }

    /// An RSA public key from its modulus and exponent (unsigned big-endian bytes), for
    /// checking signatures. Refuses moduli outside 1024…8192 bits.
    public static func publicKey(modulus: [UInt8], exponent: [UInt8]) throws -> RSAKey {
        let bits = BigNumberBytes.bitCount(modulus)
        guard (1024...8192).contains(bits), !exponent.isEmpty, exponent.count <= 8 else {
            throw PhotonError(.crypto, "not an RSA public key this side accepts (\(bits)-bit modulus)")
        }
        OpenSSLError.clear()
        guard let n = BN_bin2bn(modulus, Int32(modulus.count), nil) else { throw OpenSSLError.crypto("could not read the modulus") }
        defer { BN_free(n) }
        guard let e = BN_bin2bn(exponent, Int32(exponent.count), nil) else { throw OpenSSLError.crypto("could not read the exponent") }
        defer { BN_free(e) }
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSLError.crypto("could not build key parameters") }
        // The builder keeps the names' pointers until `to_param`: they must outlive the calls.
        guard let nName = strdup("n"), let eName = strdup("e") else { throw OpenSSLError.crypto("out of memory") }
        defer {
            OSSL_PARAM_BLD_free(builder)
            free(nName)
            free(eName)
        }
        guard OSSL_PARAM_BLD_push_BN(builder, nName, n) == 1, OSSL_PARAM_BLD_push_BN(builder, eName, e) == 1,
            let params = OSSL_PARAM_BLD_to_param(builder)
        else { throw OpenSSLError.crypto("could not build key parameters") }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { throw OpenSSLError.crypto("could not create an RSA context") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &key, photon_EVP_PKEY_PUBLIC_KEY(), params) == 1, let key else {
            throw OpenSSLError.crypto("could not make the RSA public key")
        }
        return RSAKey(taking: key)
    }
}

/// Arithmetic on unsigned big-endian byte strings, through OpenSSL's `BN_*`.
public enum BigNumberBytes {
    /// The number of significant bits.
    public static func bitCount(_ value: [UInt8]) -> Int {
        guard let first = value.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (value.count - first - 1) * 8 + (8 - value[first].leadingZeroBitCount)
    }

    /// 2^`exponent` mod `modulus`, as unsigned big-endian bytes `modulus.count` long (the
    /// Montgomery constant R² of a public key is 2^(2·bits) mod n).
    public static func powerOfTwo(_ exponent: Int, modulo modulus: [UInt8]) throws -> [UInt8] {
        guard bitCount(modulus) > 1, exponent >= 0, exponent <= 65_536 else { throw PhotonError(.crypto, "bad arguments for 2^k mod n") }
        guard let n = BN_bin2bn(modulus, Int32(modulus.count), nil), let r = BN_new(), let ctx = BN_CTX_new() else {
            throw OpenSSLError.crypto("out of memory")
        }
        defer {
            BN_free(n)
            BN_free(r)
            BN_CTX_free(ctx)
        }
        guard BN_set_bit(r, Int32(exponent)) == 1, BN_nnmod(r, r, n, ctx) == 1 else { throw OpenSSLError.crypto("2^k mod n failed") }
        var out = [UInt8](repeating: 0, count: modulus.count)
        guard BN_bn2binpad(r, &out, Int32(out.count)) == Int32(out.count) else { throw OpenSSLError.crypto("2^k mod n failed") }
        return out
    }
}
