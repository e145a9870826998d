import COpenSSL
import PhotonCore

/// SRP-6a (RFC 5054) with the 3072-bit group and SHA-512, as HomeKit-style pair-setup
/// uses it (username `Pair-Setup`, the PIN as the password), written on OpenSSL's `BN_*`
/// because OpenSSL's own SRP API is SHA-1 only. Two peers of the same protocol hash the
/// integers differently (`Convention`): where a value has a leading zero byte (about one
/// pairing in 85 for A, B or S), only the same convention agrees on M1 and K.
public enum SRP {
    /// How integers are written into the hashes of M1, M2 and K.
    public enum Convention: Sendable, Hashable {
        /// srptools (and so pyatv, and Apple TV's Companion pairing as Photon speaks it):
        /// A, B and S as minimal big-endian bytes, H(N) xor H(g) and H(I) read as integers
        /// and written back minimally, the salt as the bytes sent.
        case minimal
        /// The HomeKit Accessory Protocol as iOS, aiohomekit and HAP-python speak it: A, B
        /// and S padded to the group's 384 bytes, H(N) xor H(g) and H(I) as the 64 bytes of
        /// the digests, the salt padded to 16 bytes.
        case padded
    }

    /// RFC 5054's 3072-bit prime.
    public static let prime3072: [UInt8] = try! Hex.decode(
        "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
            + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
            + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
            + "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
            + "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
            + "15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7"
            + "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C"
            + "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF")
    public static let generator: [UInt8] = [5]

    /// SHA-512 of the parts, one after the other.
    static func hash(_ parts: [UInt8]...) -> [UInt8] { Digest.sha512(parts.flatMap { $0 }) }

    /// A hash read as an integer and written back minimally (srptools' `hash` returns an int).
    static func hashAsInteger(_ parts: [UInt8]...) -> [UInt8] { BigNum.minimal(Digest.sha512(parts.flatMap { $0 })) }

    /// k = H(N | PAD(g)).
    static var multiplier: [UInt8] { hashAsInteger(BigNum.minimal(prime3072), BigNum.padded(generator, to: prime3072.count)) }

    /// The salt as the hashes take it.
    static func salt(_ salt: [UInt8], _ convention: Convention) -> [UInt8] {
        convention == .padded ? BigNum.padded(salt, to: max(16, BigNum.minimal(salt).count)) : salt
    }

    /// A group element (A, B, S) as the hashes take it.
    static func element(_ value: [UInt8], _ convention: Convention) -> [UInt8] {
        convention == .padded ? BigNum.padded(value, to: prime3072.count) : BigNum.minimal(value)
    }

    /// x = H(s | H(I ":" P)).
    static func passwordHash(username: String, password: String, salt: [UInt8], convention: Convention = .minimal) -> [UInt8] {
        hashAsInteger(Self.salt(salt, convention), hash(Array("\(username):\(password)".utf8)))
    }

    /// K = H(S).
    static func sessionKey(secret: [UInt8], convention: Convention) -> [UInt8] { Digest.sha512(element(secret, convention)) }

    /// M1 = H(H(N) xor H(g) | H(I) | s | A | B | K).
    static func clientProof(
        username: String, salt: [UInt8], clientPublic: [UInt8], serverPublic: [UInt8], key: [UInt8], convention: Convention = .minimal
    ) -> [UInt8] {
        let hN = Digest.sha512(BigNum.minimal(prime3072))
        let hg = Digest.sha512(BigNum.minimal(generator))
        let xored = zip(hN, hg).map { $0 ^ $1 }
        let user = Digest.sha512(Array(username.utf8))
        let minimal = convention == .minimal
        return hash(
            minimal ? BigNum.minimal(xored) : xored, minimal ? BigNum.minimal(user) : user, Self.salt(salt, convention),
            element(clientPublic, convention), element(serverPublic, convention), key)
    }

    /// M2 = H(A | M1 | K).
    static func serverProof(clientPublic: [UInt8], clientProof: [UInt8], key: [UInt8], convention: Convention = .minimal) -> [UInt8] {
        hash(element(clientPublic, convention), clientProof, key)
    }

    /// u = H(PAD(A) | PAD(B)).
    static func scrambler(clientPublic: [UInt8], serverPublic: [UInt8]) -> [UInt8] {
        hashAsInteger(BigNum.padded(clientPublic, to: prime3072.count), BigNum.padded(serverPublic, to: prime3072.count))
    }
}

/// The client side of SRP-6a: A, then M1 and the session key from the server's salt and B,
/// and the check of the server's M2.
public struct SRPClient: Sendable {
    public let username: String
    public let convention: SRP.Convention
    let password: String
    let privateValue: [UInt8]
    /// A = g^a mod N.
    public let publicValue: [UInt8]

    public init(username: String, password: String, privateValue: [UInt8]? = nil, convention: SRP.Convention = .minimal) throws {
        self.username = username
        self.password = password
        self.convention = convention
        let a = try privateValue ?? SecureRandom.bytes(32)
        self.privateValue = a
        publicValue = SRP.element(try BigNum.modExp(SRP.generator, a, SRP.prime3072), convention)
    }

    /// The proof M1 and the session key K for the server's `salt` and public value `B`.
    /// A `B` that is 0 mod N (which would make the key predictable) is refused.
    public func respond(salt: [UInt8], serverPublic: [UInt8]) throws -> (proof: [UInt8], key: [UInt8]) {
        guard !serverPublic.isEmpty, serverPublic.count <= SRP.prime3072.count, try !BigNum.isZero(serverPublic, modulo: SRP.prime3072) else {
            throw PhotonError(.authenticationRefused, "the TV's SRP public value is not valid")
        }
        let u = SRP.scrambler(clientPublic: publicValue, serverPublic: serverPublic)
        guard u.contains(where: { $0 != 0 }) else { throw PhotonError(.authenticationRefused, "the SRP scrambler is zero") }
        let x = SRP.passwordHash(username: username, password: password, salt: salt, convention: convention)
        let v = try BigNum.modExp(SRP.generator, x, SRP.prime3072)
        let kv = try BigNum.modMul(SRP.multiplier, v, SRP.prime3072)
        let base = try BigNum.modSub(serverPublic, kv, SRP.prime3072)
        let exponent = try BigNum.add(privateValue, try BigNum.mul(u, x))
        let secret = try BigNum.modExp(base, exponent, SRP.prime3072)
        let key = SRP.sessionKey(secret: secret, convention: convention)
        let proof = SRP.clientProof(
            username: username, salt: salt, clientPublic: publicValue, serverPublic: serverPublic, key: key, convention: convention)
        return (proof, key)
    }

    /// Whether the server's M2 proves it knew the password.
    public func isValid(serverProof: [UInt8], clientProof: [UInt8], key: [UInt8]) -> Bool {
        ConstantTime.equal(
            serverProof, SRP.serverProof(clientPublic: publicValue, clientProof: clientProof, key: key, convention: convention))
    }
}

/// The server side of SRP-6a (the emulated Apple TV): salt and B, then the check of the
/// client's M1, giving K and M2.
public struct SRPServer: Sendable {
    public let username: String
    public let convention: SRP.Convention
    public let salt: [UInt8]
    let verifier: [UInt8]
    let privateValue: [UInt8]
    /// B = (k·v + g^b) mod N.
    public let publicValue: [UInt8]

    /// B is sent as `convention` writes it: padded to 384 bytes, or minimal.
    public init(
        username: String, password: String, salt: [UInt8]? = nil, privateValue: [UInt8]? = nil, convention: SRP.Convention = .minimal
    ) throws {
        self.username = username
        self.convention = convention
        let salt = try salt ?? SecureRandom.bytes(16)
        self.salt = salt
        let x = SRP.passwordHash(username: username, password: password, salt: salt, convention: convention)
        verifier = try BigNum.modExp(SRP.generator, x, SRP.prime3072)
        let b = try privateValue ?? SecureRandom.bytes(32)
        self.privateValue = b
        let kv = try BigNum.modMul(SRP.multiplier, verifier, SRP.prime3072)
        publicValue = SRP.element(try BigNum.modAdd(kv, try BigNum.modExp(SRP.generator, b, SRP.prime3072), SRP.prime3072), convention)
    }

    /// Checks the client's A and M1: the session key K and the server's proof M2, or
    /// `authenticationRefused` (a wrong PIN).
    public func verify(clientPublic: [UInt8], clientProof: [UInt8]) throws -> (key: [UInt8], serverProof: [UInt8]) {
        guard !clientPublic.isEmpty, clientPublic.count <= SRP.prime3072.count, try !BigNum.isZero(clientPublic, modulo: SRP.prime3072) else {
            throw PhotonError(.authenticationRefused, "the client's SRP public value is not valid")
        }
        let u = SRP.scrambler(clientPublic: clientPublic, serverPublic: publicValue)
        let base = try BigNum.modMul(clientPublic, try BigNum.modExp(verifier, u, SRP.prime3072), SRP.prime3072)
        let secret = try BigNum.modExp(base, privateValue, SRP.prime3072)
        let key = SRP.sessionKey(secret: secret, convention: convention)
        let expected = SRP.clientProof(
            username: username, salt: salt, clientPublic: clientPublic, serverPublic: publicValue, key: key, convention: convention)
        guard ConstantTime.equal(expected, clientProof) else {
            throw PhotonError(.authenticationRefused, "the SRP proof does not match (a wrong PIN)")
        }
        return (key, SRP.serverProof(clientPublic: clientPublic, clientProof: clientProof, key: key, convention: convention))
    }
}

/// Unsigned big-endian integers through `BN_*`, one call at a time.
enum BigNum {
    /// Without leading zero bytes (empty for zero).
    static func minimal(_ bytes: [UInt8]) -> [UInt8] { Array(bytes.drop { $0 == 0 }) }

    static func padded(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        let value = minimal(bytes)
        return [UInt8](repeating: 0, count: max(0, length - value.count)) + value
    }

    private static func with(_ operands: [[UInt8]], _ body: ([OpaquePointer], OpaquePointer, OpaquePointer) -> Int32) throws -> [UInt8] {
        OpenSSLError.clear()
        guard let context = BN_CTX_new(), let result = BN_new() else { throw OpenSSLError.crypto("could not allocate a big number") }
        defer {
            BN_CTX_free(context)
            BN_clear_free(result)
        }
        var numbers: [OpaquePointer] = []
        defer { for number in numbers { BN_clear_free(number) } }
        for operand in operands {
            guard let number = BN_bin2bn(operand, Int32(operand.count), nil) else { throw OpenSSLError.crypto("could not read a big number") }
            numbers.append(number)
        }
        guard body(numbers, result, context) == 1 else { throw OpenSSLError.crypto("big number arithmetic failed") }
        var out = [UInt8](repeating: 0, count: Int((BN_num_bits(result) + 7) / 8))
        _ = BN_bn2bin(result, &out)
        return out
    }

    static func modExp(_ base: [UInt8], _ exponent: [UInt8], _ modulus: [UInt8]) throws -> [UInt8] {
        try with([base, exponent, modulus]) { n, r, c in BN_mod_exp(r, n[0], n[1], n[2], c) }
    }

    static func modMul(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) throws -> [UInt8] {
        try with([a, b, modulus]) { n, r, c in BN_mod_mul(r, n[0], n[1], n[2], c) }
    }

    static func modAdd(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) throws -> [UInt8] {
        try with([a, b, modulus]) { n, r, c in BN_mod_add(r, n[0], n[1], n[2], c) }
    }

    /// (a - b) mod m, never negative.
    static func modSub(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) throws -> [UInt8] {
        try with([a, b, modulus]) { n, r, c in BN_mod_sub(r, n[0], n[1], n[2], c) }
    }

    static func mul(_ a: [UInt8], _ b: [UInt8]) throws -> [UInt8] { try with([a, b]) { n, r, c in BN_mul(r, n[0], n[1], c) } }

    static func add(_ a: [UInt8], _ b: [UInt8]) throws -> [UInt8] { try with([a, b]) { n, r, _ in BN_add(r, n[0], n[1]) } }

    static func isZero(_ a: [UInt8], modulo modulus: [UInt8]) throws -> Bool {
        try with([a, modulus]) { n, r, c in BN_nnmod(r, n[0], n[1], c) }.isEmpty
    }
}
