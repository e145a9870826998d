import PhotonCore
import Testing

@testable import PhotonCrypto

/// Ed25519, X25519, ChaCha20-Poly1305, HKDF-SHA512 and SRP-6a against published vectors
/// (RFC 8032, 7748, 8439) and values from independent implementations (Python's hmac for
/// HKDF), and SRP's client and server against each other.
@Suite struct ModernCryptoTests {
    func hex(_ text: String) -> [UInt8] { try! Hex.decode(text) }

    @Test func ed25519MatchesRFC8032() throws {
        let key = try Ed25519PrivateKey(rawRepresentation: hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        #expect(key.publicKey == hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        let signature = try key.signature(for: [])
        #expect(
            signature
                == hex(
                    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
                ))
        #expect(Ed25519.isValid(signature: signature, for: [], publicKey: key.publicKey))
        let second = try Ed25519PrivateKey(rawRepresentation: hex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"))
        #expect(
            try second.signature(for: [0x72])
                == hex(
                    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
                ))
        // Altered message, signature or key: refused.
        #expect(!Ed25519.isValid(signature: signature, for: [0], publicKey: key.publicKey))
        var altered = signature
        altered[10] ^= 1
        #expect(!Ed25519.isValid(signature: altered, for: [], publicKey: key.publicKey))
        #expect(!Ed25519.isValid(signature: signature, for: [], publicKey: second.publicKey))
        #expect(!Ed25519.isValid(signature: Array(signature.prefix(63)), for: [], publicKey: key.publicKey))
        #expect(throws: PhotonError.self) { try Ed25519PrivateKey(rawRepresentation: [1, 2, 3]) }
    }

    @Test func x25519MatchesRFC7748() throws {
        let alice = try X25519PrivateKey(rawRepresentation: hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try X25519PrivateKey(rawRepresentation: hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        #expect(alice.publicKey == hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"))
        #expect(bob.publicKey == hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))
        let shared = hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
        #expect(try alice.sharedSecret(with: bob.publicKey) == shared)
        #expect(try bob.sharedSecret(with: alice.publicKey) == shared)
        // A low-order point gives the all-zero secret: refused.
        #expect(throws: PhotonError.self) { try alice.sharedSecret(with: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: PhotonError.self) { try alice.sharedSecret(with: [1, 2]) }
    }

    @Test func chaChaPolyMatchesRFC8439() throws {
        let plain = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let key = Array(UInt8(0x80)...UInt8(0x9F))
        let nonce = hex("070000004041424344454647")
        let aad = hex("50515253c0c1c2c3c4c5c6c7")
        let sealed = try ChaChaPoly.seal(plain, key: key, nonce: nonce, authenticating: aad)
        #expect(
            sealed
                == hex(
                    "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b61161ae10b594f09e26a7e902ecbd0600691"
                ))
        #expect(try ChaChaPoly.open(sealed, key: key, nonce: nonce, authenticating: aad) == plain)
        var tampered = sealed
        tampered[3] ^= 1
        #expect(throws: PhotonError.self) { try ChaChaPoly.open(tampered, key: key, nonce: nonce, authenticating: aad) }
        #expect(throws: PhotonError.self) { try ChaChaPoly.open(sealed, key: key, nonce: nonce, authenticating: []) }
        #expect(throws: PhotonError.self) { try ChaChaPoly.open(Array(sealed.prefix(10)), key: key, nonce: nonce) }
        // An empty message is just its tag, and opens to nothing.
        let empty = try ChaChaPoly.seal([], key: key, nonce: nonce)
        #expect(empty.count == 16)
        #expect(try ChaChaPoly.open(empty, key: key, nonce: nonce).isEmpty)
        #expect(ChaChaPoly.nonce(label: "PS-Msg05") == [0, 0, 0, 0] + Array("PS-Msg05".utf8))
        #expect(ChaChaPoly.nonce(counter: 0x0102) == [2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func hkdfSHA512MatchesPythonsHMAC() throws {
        let secret = Array(UInt8(0)..<32)
        #expect(
            try HKDF.sha512(secret: secret, salt: "Pair-Setup-Encrypt-Salt", info: "Pair-Setup-Encrypt-Info")
                == hex("52890146745a52e57b82b859a7a3679c7f3d40bb295b055a0c8fa8af92a3746d"))
        #expect(
            try HKDF.sha512(secret: secret, salt: "", info: "ClientEncrypt-main")
                == hex("9f8aa265911271e6d6e90daf564d82b5913d4b760373afbd6c03e675af681f8d"))
    }

    @Test func srpClientAndServerAgreeOnlyOnTheRightPIN() throws {
        let server = try SRPServer(username: "Pair-Setup", password: "0427")
        let client = try SRPClient(username: "Pair-Setup", password: "0427")
        let (proof, key) = try client.respond(salt: server.salt, serverPublic: server.publicValue)
        let (serverKey, serverProof) = try server.verify(clientPublic: client.publicValue, clientProof: proof)
        #expect(key == serverKey)
        #expect(key.count == 64)
        #expect(client.isValid(serverProof: serverProof, clientProof: proof, key: key))
        var forged = serverProof
        forged[0] ^= 1
        #expect(!client.isValid(serverProof: forged, clientProof: proof, key: key))

        let wrong = try SRPClient(username: "Pair-Setup", password: "4270")
        let (wrongProof, _) = try wrong.respond(salt: server.salt, serverPublic: server.publicValue)
        #expect(throws: PhotonError.self) { try server.verify(clientPublic: wrong.publicValue, clientProof: wrongProof) }
        // Public values that are 0 mod N would make the key predictable: refused both ways.
        #expect(throws: PhotonError.self) { try client.respond(salt: server.salt, serverPublic: SRP.prime3072) }
        #expect(throws: PhotonError.self) { try client.respond(salt: server.salt, serverPublic: [0]) }
        #expect(throws: PhotonError.self) { try server.verify(clientPublic: SRP.prime3072, clientProof: proof) }
    }
}
