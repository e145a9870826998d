import COpenSSL
import PhotonCore

/// Ed25519 signing keys as HomeKit-style pairing uses them (Apple TV's Companion
/// protocol): raw 32-byte private seeds and public keys, through OpenSSL's EVP.
public struct Ed25519PrivateKey: Sendable, Equatable {
    /// The 32-byte seed.
    public let rawRepresentation: [UInt8]
    public let publicKey: [UInt8]

    /// A new random key.
    public init() throws { try self.init(rawRepresentation: try SecureRandom.bytes(32)) }

    public init(rawRepresentation seed: [UInt8]) throws {
        guard seed.count == 32 else { throw PhotonError(.crypto, "an Ed25519 private key is 32 bytes, not \(seed.count)") }
        rawRepresentation = seed
        publicKey = try EVPKey.withRaw(private: seed, type: EVP_PKEY_ED25519) { try EVPKey.rawPublic($0) }
    }

    /// The 64-byte signature of `message`.
    public func signature(for message: [UInt8]) throws -> [UInt8] {
        try EVPKey.withRaw(private: rawRepresentation, type: EVP_PKEY_ED25519) { key in
            OpenSSLError.clear()
            guard let context = EVP_MD_CTX_new() else { throw OpenSSLError.crypto("could not allocate a signing context") }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else { throw OpenSSLError.crypto("Ed25519 signing failed") }
            var length = 64
            var signature = [UInt8](repeating: 0, count: 64)
            guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1, length == 64 else {
                throw OpenSSLError.crypto("Ed25519 signing failed")
            }
            return signature
        }
    }
}

/// Checks Ed25519 signatures against a raw 32-byte public key.
public enum Ed25519 {
    public static func isValid(signature: [UInt8], for message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == 64, publicKey.count == 32 else { return false }
        OpenSSLError.clear()
        guard let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, publicKey, 32) else {
            OpenSSLError.clear()
            return false
        }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        let valid = EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        OpenSSLError.clear()
        return valid
    }
}

/// X25519 key agreement keys: a fresh pair per pair-verify.
public struct X25519PrivateKey: Sendable {
    public let rawRepresentation: [UInt8]
    public let publicKey: [UInt8]

    public init() throws { try self.init(rawRepresentation: try SecureRandom.bytes(32)) }

    public init(rawRepresentation: [UInt8]) throws {
        guard rawRepresentation.count == 32 else { throw PhotonError(.crypto, "an X25519 private key is 32 bytes") }
        self.rawRepresentation = rawRepresentation
        publicKey = try EVPKey.withRaw(private: rawRepresentation, type: EVP_PKEY_X25519) { try EVPKey.rawPublic($0) }
    }

    /// The 32-byte shared secret with `peer`'s public key. A peer key that yields the
    /// all-zero secret (a low-order point) is refused.
    public func sharedSecret(with peer: [UInt8]) throws -> [UInt8] {
        guard peer.count == 32 else { throw PhotonError(.crypto, "an X25519 public key is 32 bytes, not \(peer.count)") }
        return try EVPKey.withRaw(private: rawRepresentation, type: EVP_PKEY_X25519) { key in
            OpenSSLError.clear()
            guard let peerKey = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, peer, 32) else {
                throw OpenSSLError.crypto("the peer's X25519 key is not valid")
            }
            defer { EVP_PKEY_free(peerKey) }
            guard let context = EVP_PKEY_CTX_new(key, nil) else { throw OpenSSLError.crypto("could not allocate a derive context") }
            defer { EVP_PKEY_CTX_free(context) }
            var length = 32
            var secret = [UInt8](repeating: 0, count: 32)
            guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peerKey) == 1,
                EVP_PKEY_derive(context, &secret, &length) == 1, length == 32
            else { throw OpenSSLError.crypto("X25519 key agreement failed") }
            guard secret.contains(where: { $0 != 0 }) else { throw PhotonError(.crypto, "the peer's X25519 key is a low-order point") }
            return secret
        }
    }
}

/// Raw EVP keys, made and freed around one use.
enum EVPKey {
    static func withRaw<R>(private bytes: [UInt8], type: Int32, _ body: (OpaquePointer) throws -> R) throws -> R {
        OpenSSLError.clear()
        guard let key = EVP_PKEY_new_raw_private_key(type, nil, bytes, bytes.count) else {
            throw OpenSSLError.crypto("could not load a raw private key")
        }
        defer { EVP_PKEY_free(key) }
        return try body(key)
    }

    static func rawPublic(_ key: OpaquePointer) throws -> [UInt8] {
        var length = 32
        var out = [UInt8](repeating: 0, count: 32)
        guard EVP_PKEY_get_raw_public_key(key, &out, &length) == 1, length == 32 else {
            throw OpenSSLError.crypto("could not read a raw public key")
        }
        return out
    }
}
