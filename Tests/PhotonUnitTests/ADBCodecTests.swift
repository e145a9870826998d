import FireTV
import FireTVEmulator
import Foundation
import PhotonCore
import PhotonCrypto
import Testing

/// The ADB wire format byte by byte, the public key format, and malformed input.
@Suite struct ADBCodecTests {
    @Test func macsAreReadFromTheInterfacesAndNothingElse() {
        let output = "02:00:00:aa:bb:cc\ncat: /sys/class/net/eth0/address: No such file or directory\n00:00:00:00:00:00\nff:ff:ff:ff:ff:ff\n"
        #expect(ADBShellCommands.macs(in: output) == ["02:00:00:AA:BB:CC"])
        #expect(ADBShellCommands.macs(in: "02:00:00:aa:bb:cc\n02:00:00:AA:BB:CC\nf0:4f:7c:12:34:56") == ["02:00:00:AA:BB:CC", "F0:4F:7C:12:34:56"])
        #expect(ADBShellCommands.macs(in: "０２:00:00:aa:bb:cc\n\u{1b}[31m") == [])
    }

    @Test func aConnectMessageIsItsTwentyFourBytesAndPayload() throws {
        let message = ADBMessage(.connect, ADBMessage.versionSkipChecksum, 4096, Array("host::\0".utf8))
        let bytes = message.encoded()
        #expect(bytes.count == 24 + 7)
        #expect(Array(bytes[0..<4]) == Array("CNXN".utf8))
        #expect(Array(bytes[4..<8]) == [0x01, 0x00, 0x00, 0x01])
        #expect(Array(bytes[8..<12]) == [0x00, 0x10, 0x00, 0x00])
        #expect(Array(bytes[12..<16]) == [7, 0, 0, 0])
        let sum = UInt32(Array("host::\0".utf8).reduce(0) { $0 + Int($1) })
        #expect(Array(bytes[16..<20]) == withUnsafeBytes(of: sum.littleEndian) { Array($0) })
        #expect(Array(bytes[20..<24]) == [0xbc, 0xb1, 0xa7, 0xb1])
        var decoder = ADBMessageDecoder()
        decoder.append(Array(bytes.prefix(10)))
        #expect(try decoder.next() == nil)
        decoder.append(Array(bytes.dropFirst(10)))
        #expect(try decoder.next() == message)
        #expect(try decoder.next() == nil)
    }

    @Test func badMagicUnknownCommandsOversizeAndWrongChecksumsAreRefused() throws {
        var good = ADBMessage(.write, 1, 2, [1, 2, 3]).encoded()
        var bad = good
        bad[20] ^= 0xff
        var decoder = ADBMessageDecoder()
        decoder.append(bad)
        #expect(throws: PhotonError.self) { try decoder.next() }

        var unknown = good
        unknown.replaceSubrange(0..<4, with: Array("ABCD".utf8))
        let magic = ~UInt32(littleEndian: unknown[0..<4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        unknown.replaceSubrange(20..<24, with: withUnsafeBytes(of: magic.littleEndian) { Array($0) })
        decoder = ADBMessageDecoder()
        decoder.append(unknown)
        #expect(throws: PhotonError.self) { try decoder.next() }

        var huge = good
        huge.replaceSubrange(12..<16, with: withUnsafeBytes(of: UInt32(10_000_000).littleEndian) { Array($0) })
        decoder = ADBMessageDecoder()
        decoder.append(huge)
        let error = try #require(throws: PhotonError.self) { try decoder.next() }
        #expect(error.code == .messageTooLarge)

        good[16] &+= 1
        decoder = ADBMessageDecoder()
        decoder.append(good)
        #expect(throws: PhotonError.self) { try decoder.next() }
    }

    @Test func aSignedTokenVerifiesWithTheKeyAsADBSendsIt() throws {
        let key = try RSAKey.generate(bits: 2048)
        let encoded = try ADBPublicKey.encode(key, comment: "photon@test")
        #expect(encoded.last == 0)
        let decoded = try ADBPublicKey.decode(encoded)
        #expect(decoded.modulus == key.modulus)
        #expect(decoded.exponent == 65537)
        #expect(decoded.comment == "photon@test")
        let token = try SecureRandom.bytes(20)
        let signature = try key.signPKCS1(digest: token, algorithm: .sha1)
        #expect(signature.count == 256)
        let exponent = Array(withUnsafeBytes(of: decoded.exponent.bigEndian) { Array($0) }.drop { $0 == 0 })
        let publicKey = try RSAKey.publicKey(modulus: decoded.modulus, exponent: exponent)
        #expect(publicKey.verifyPKCS1(signature: signature, digest: token, algorithm: .sha1))
        var other = token
        other[0] ^= 1
        #expect(!publicKey.verifyPKCS1(signature: signature, digest: other, algorithm: .sha1))
        #expect(ADBPublicKey.fingerprint(encoded).split(separator: ":").count == 16)
    }

    @Test func aTamperedPublicKeyIsRefused() throws {
        let key = try RSAKey.generate(bits: 2048)
        let encoded = try ADBPublicKey.encode(key, comment: "x")
        let text = String(decoding: encoded.dropLast(), as: UTF8.self)
        var blob = Array(Data(base64Encoded: String(text.prefix { $0 != " " }))!)
        blob[300] ^= 1  // a byte of R²
        let tampered = Array((Data(blob).base64EncodedString() + " x").utf8) + [0]
        #expect(throws: PhotonError.self) { try ADBPublicKey.decode(tampered) }
        #expect(throws: PhotonError.self) { try ADBPublicKey.decode(Array("not base64 at all".utf8)) }
    }
}
