import PhotonCore
import Testing

@testable import PhotonCrypto

/// AES-128-CBC against OpenSSL's command line and HMAC-SHA1 against RFC 2202, with damaged
/// input refused.
@Suite struct CBCAndHMACTests {
    func hex(_ text: String) -> [UInt8] { try! Hex.decode(text) }

    @Test func aesCBCMatchesOpenSSLAndRefusesDamage() throws {
        let key = hex("000102030405060708090a0b0c0d0e0f")
        let iv = hex("0f0e0d0c0b0a09080706050403020100")
        // printf photon | openssl enc -aes-128-cbc -K 0001…0f -iv 0f0e…00
        let sealed = try AESCBC.encrypt(Array("photon".utf8), key: key, iv: iv)
        #expect(sealed == hex("8bb46c51f36f871e784c086069f27568"))
        #expect(try AESCBC.decrypt(sealed, key: key, iv: iv) == Array("photon".utf8))
        let long = [UInt8](repeating: 0x41, count: 33)
        #expect(try AESCBC.decrypt(try AESCBC.encrypt(long, key: key, iv: iv), key: key, iv: iv) == long)
        #expect(throws: PhotonError.self) { _ = try AESCBC.decrypt(sealed, key: hex("ffffffffffffffffffffffffffffffff"), iv: iv) }
        #expect(throws: PhotonError.self) { _ = try AESCBC.decrypt(Array(sealed.prefix(15)), key: key, iv: iv) }
        #expect(throws: PhotonError.self) { _ = try AESCBC.decrypt([], key: key, iv: iv) }
        #expect(throws: PhotonError.self) { _ = try AESCBC.encrypt([1], key: Array(key.prefix(8)), iv: iv) }
    }

    @Test func hmacSHA1MatchesRFC2202() {
        #expect(HMAC.sha1(key: [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8)) == hex("b617318655057264e28bc0b6fb378c8ef146be00"))
        #expect(HMAC.sha1(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8)) == hex("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"))
        // A key longer than the block is hashed first.
        #expect(
            HMAC.sha1(key: [UInt8](repeating: 0xaa, count: 80), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
                == hex("aa4ae5e15272d00e95705637ce8a3b55ed402112"))
    }
}
