import Foundation
import PhotonCore
import PhotonCrypto
import PhotonTestSupport
import Testing

@Suite struct DigestTests {
    @Test func sha256KnownAnswers() {
        #expect(Hex.encode(Digest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(Digest.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Hex.encode(Digest.sha256(million)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func sha256IncrementalMatchesOneShot() {
        var hasher = Digest.SHA256Hasher()
        hasher.update(Array("a".utf8))
        hasher.update(Array("bc".utf8))
        #expect(hasher.finalize() == Digest.sha256(Array("abc".utf8)))
    }

    @Test func sha1KnownAnswers() {
        #expect(Hex.encode(Digest.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Hex.encode(Digest.sha1([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test func secureRandomIsFreshEachTime() throws {
        let a = try SecureRandom.bytes(32)
        let b = try SecureRandom.bytes(32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
        #expect(try SecureRandom.bytes(0).isEmpty)
    }

    @Test func hexRoundTripAndErrors() throws {
        #expect(try Hex.decode("00ff10AB") == [0, 255, 16, 171])
        #expect(try Hex.decode("00:FF") == [0, 255])
        #expect(throws: PhotonError.self) { try Hex.decode("abc") }
        #expect(throws: PhotonError.self) { try Hex.decode("zz") }
    }
}

/// Certificates made by the `openssl` command (an independent implementation) and
/// parsed by us, and ours checked by it.
@Suite struct CertificateTests {
    func opensslCertificate(subject: String) throws -> (dir: URL, cert: String, key: String) {
        let dir = try TestEnvironment.temporaryDirectory()
        let cert = dir.appendingPathComponent("cert.pem").path
        let key = dir.appendingPathComponent("key.pem").path
        let result = try TestEnvironment.run(
            "/usr/bin/openssl",
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-days", "2", "-keyout", key, "-out", cert])
        try #require(result.status == 0, "openssl req failed: \(result.output)")
        return (dir, cert, key)
    }

    @Test func parsesWhatOpenSSLMade() throws {
        let made = try opensslCertificate(subject: "/CN=atvremote\\/darcy\\/darcy\\/SHIELD Android TV\\/AA:BB:CC:DD:EE:FF/O=Test")
        let pem = try String(contentsOfFile: made.cert, encoding: .utf8)
        let cert = try Certificate(pem: pem)

        let fp = try TestEnvironment.run("/usr/bin/openssl", ["x509", "-in", made.cert, "-noout", "-fingerprint", "-sha256"])
        // "sha256 Fingerprint=AB:CD:..."
        let expected = fp.output.split(separator: "=", maxSplits: 1)[1].trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(cert.fingerprint.description == expected)

        let modulus = try TestEnvironment.run("/usr/bin/openssl", ["x509", "-in", made.cert, "-noout", "-modulus"])
        let modulusHex = modulus.output.split(separator: "=", maxSplits: 1)[1].trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Hex.encode(cert.rsaModulus ?? []).uppercased() == modulusHex)
        #expect(cert.rsaModulus?.count == 256)
        #expect(cert.rsaExponent == [0x01, 0x00, 0x01])
        #expect(cert.commonName == "atvremote/darcy/darcy/SHIELD Android TV/AA:BB:CC:DD:EE:FF")
        #expect(cert.subject.contains("O=Test"))

        // DER round trip gives the same certificate.
        let again = try Certificate(der: cert.der)
        #expect(again.fingerprint == cert.fingerprint)
        #expect(try Certificate(pem: try cert.pem()).der == cert.der)

        let key = try RSAKey(pem: try String(contentsOfFile: made.key, encoding: .utf8))
        #expect(cert.matches(key))
        #expect(key.modulus == cert.rsaModulus)
    }

    @Test func selfSignedIsAcceptedByOpenSSL() throws {
        let key = try RSAKey.generate()
        #expect(key.bits == 2048)
        let cert = try Certificate.selfSigned(
            key: key, subject: [("CN", "Photon Test Ünïcode"), ("O", "Photon")],
            subjectAltNames: ["DNS:photon.local", "IP:127.0.0.1"], validityDays: 10)
        #expect(cert.matches(key))
        #expect(cert.commonName == "Photon Test Ünïcode")
        let dir = try TestEnvironment.temporaryDirectory()
        let path = dir.appendingPathComponent("ours.pem").path
        try cert.pem().write(toFile: path, atomically: true, encoding: .utf8)
        let text = try TestEnvironment.run("/usr/bin/openssl", ["x509", "-in", path, "-noout", "-text"])
        #expect(text.status == 0)
        #expect(text.output.contains("Version: 3 (0x2)"))
        #expect(text.output.contains("DNS:photon.local"))
        #expect(text.output.contains("IP Address:127.0.0.1"))
        #expect(text.output.contains("TLS Web Client Authentication"))
        #expect(text.output.contains("sha256WithRSAEncryption"))
        // The signature verifies with the certificate's own key.
        let verify = try TestEnvironment.run(
            "/usr/bin/openssl", ["verify", "-partial_chain", "-CAfile", path, "-check_ss_sig", path])
        #expect(verify.output.contains("OK"), "openssl verify said: \(verify.output)")
        let fp = try TestEnvironment.run("/usr/bin/openssl", ["x509", "-in", path, "-noout", "-fingerprint", "-sha256"])
        #expect(fp.output.contains(cert.fingerprint.description))
        // Serial numbers are random.
        let other = try Certificate.selfSigned(key: key, subject: [("CN", "x")])
        #expect(other.der != cert.der)
    }

    @Test func privateKeyPEMIsReadableByOpenSSL() throws {
        let key = try RSAKey.generate()
        let dir = try TestEnvironment.temporaryDirectory()
        let path = dir.appendingPathComponent("key.pem").path
        try key.privateKeyPEM().write(toFile: path, atomically: true, encoding: .utf8)
        let check = try TestEnvironment.run("/usr/bin/openssl", ["pkey", "-in", path, "-noout", "-check"])
        #expect(check.status == 0, "\(check.output)")
        let reread = try RSAKey(pem: try key.privateKeyPEM())
        #expect(reread.modulus == key.modulus)
        #expect(reread.publicExponent == [1, 0, 1])
    }

    /// Keys are read with RSA's decoders only: both RSA PEM forms must still be read, and
    /// a key of another type must still say what it is, not "not valid PEM".
    @Test func bothRSAFormsAreReadAndOtherKeyTypesAreNamed() throws {
        let key = try RSAKey.generate()
        let dir = try TestEnvironment.temporaryDirectory()
        let pkcs8 = dir.appendingPathComponent("pkcs8.pem").path
        try key.privateKeyPEM().write(toFile: pkcs8, atomically: true, encoding: .utf8)
        let traditional = try TestEnvironment.run("/usr/bin/openssl", ["pkey", "-in", pkcs8, "-traditional"])
        #expect(traditional.output.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"), "\(traditional.output)")
        #expect(try RSAKey(pem: traditional.output).modulus == key.modulus)
        let ec = try TestEnvironment.run("/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        #expect(ec.output.hasPrefix("-----BEGIN PRIVATE KEY-----"), "\(ec.output)")
        do {
            _ = try RSAKey(pem: ec.output)
            Issue.record("an EC key was read as an RSA key")
        } catch let error as PhotonError {
            #expect(error.message == "the private key is not an RSA key")
        }
        do {
            _ = try RSAKey(pem: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n")
            Issue.record("garbage was read as a key")
        } catch let error as PhotonError {
            #expect(error.message.hasPrefix("the private key is not valid PEM"), "\(error.message)")
            #expect(error.hint != nil)
        }
    }

    @Test func garbageIsRejectedWithClearErrors() {
        #expect(throws: PhotonError.self) { try Certificate(pem: "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n") }
        #expect(throws: PhotonError.self) { try Certificate(der: [0x30, 0x82, 0xFF, 0xFF, 0x00]) }
        #expect(throws: PhotonError.self) { try Certificate(der: []) }
        #expect(throws: PhotonError.self) { try RSAKey(pem: "not a key") }
        for length in [1, 10, 100, 500] {
            let noise = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(throws: PhotonError.self) { try Certificate(der: noise) }
        }
    }

    @Test func identityFactoryMakesMatchingPair() throws {
        let identity = try IdentityFactory.makeClientIdentity(commonName: "Photon on test")
        let cert = try Certificate(pem: identity.certificatePEM)
        #expect(cert.matches(try RSAKey(pem: identity.privateKeyPEM)))
        #expect(try identity.certificateInfo().commonName == "Photon on test")
    }
}
