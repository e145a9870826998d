import COpenSSL
import PhotonCore

/// Message digests used by the protocols: SHA-256 (certificate pins, pairing
/// secrets), SHA-512 (Apple TV pairing), SHA-1 (the WebSocket handshake) and MD5 (only to show the fingerprint an
/// Android device shows for an ADB key; never for security).
public enum Digest {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in _ = SHA256(input.baseAddress, input.count, &out) }
        return out
    }

    public static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in _ = SHA1(input.baseAddress, input.count, &out) }
        return out
    }

    /// SHA-512 (SRP and HKDF in HomeKit-style pairing).
    public static func sha512(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(SHA512_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in _ = SHA512(input.baseAddress, input.count, &out) }
        return out
    }

    /// MD5, for fingerprints other software displays (Android's "Allow debugging?"
    /// prompt); never for anything that must resist an attacker.
    public static func md5(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        bytes.withUnsafeBufferPointer { input in _ = EVP_Digest(input.baseAddress, input.count, &out, &length, EVP_md5(), nil) }
        return out
    }

    /// An incremental SHA-256, for data that arrives in pieces.
    public struct SHA256Hasher: ~Copyable {
        private let context: OpaquePointer

        public init() {
            context = EVP_MD_CTX_new()
            EVP_DigestInit_ex(context, EVP_sha256(), nil)
        }

        public mutating func update(_ bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        }

        public consuming func finalize() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 32)
            var length: UInt32 = 0
            EVP_DigestFinal_ex(context, &out, &length)
            return out
        }

        deinit { EVP_MD_CTX_free(context) }
    }
}

/// Cryptographically secure random bytes from OpenSSL's generator.
public enum SecureRandom {
    public static func bytes(_ count: Int) throws -> [UInt8] {
        OpenSSLError.clear()
        var out = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&out, Int32(count)) == 1 else {
            throw OpenSSLError.crypto("the random generator failed")
        }
        return out
    }
}

/// Hex helpers shared by tests and tools.
public enum Hex {
    public static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) throws -> [UInt8] {
        let chars = Array(text.utf8).filter { $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: " ") }
        guard chars.count % 2 == 0 else { throw PhotonError(.usage, "odd number of hex digits") }
        func value(_ c: UInt8) throws -> UInt8 {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: throw PhotonError(.usage, "not a hex digit: \(Character(Unicode.Scalar(c)))")
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            out.append(try value(chars[i]) << 4 | value(chars[i + 1]))
            i += 2
        }
        return out
    }
}

/// Comparisons whose time does not depend on where two secrets differ, so a network
/// client cannot learn a token byte by byte from how fast it is refused.
public enum ConstantTime {
    /// Whether `a` and `b` are equal, in time that depends only on their lengths.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return CRYPTO_memcmp(a, b, a.count) == 0
    }
}
