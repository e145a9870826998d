import Foundation
import PhotonCore
import PhotonCrypto

/// An RSA-2048 public key in the form adbd stores in `adb_keys` and the host sends in
/// `AUTH` type 3: base64 of a little-endian structure (the modulus length in 32-bit words,
/// −n⁻¹ mod 2³², the modulus, R² mod n, the exponent), a space and a comment, then a NUL.
/// The device shows the key's MD5 fingerprint in its "Allow USB debugging?" prompt.
public enum ADBPublicKey {
    static let words = 64

    /// The key of `identity` as ADB sends it, with `comment` (conventionally user@host).
    public static func encode(_ key: RSAKey, comment: String) throws -> [UInt8] {
        let modulus = key.modulus
        guard BigNumberBytes.bitCount(modulus) == 2048 else {
            throw PhotonError(.crypto, "ADB takes RSA-2048 keys; this installation's key has \(BigNumberBytes.bitCount(modulus)) bits")
        }
        let exponentBytes = key.publicExponent
        guard exponentBytes.count <= 4 else { throw PhotonError(.crypto, "the key's public exponent does not fit ADB's 32 bits") }
        let exponent = exponentBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let rr = try BigNumberBytes.powerOfTwo(2 * 2048, modulo: modulus)
        var blob: [UInt8] = []
        func put(_ word: UInt32) { withUnsafeBytes(of: word.littleEndian) { blob.append(contentsOf: $0) } }
        put(UInt32(words))
        put(negatedInverse(of: word(modulus, 0)))
        for i in 0..<words { put(word(modulus, i)) }
        for i in 0..<words { put(word(rr, i)) }
        put(exponent)
        let text = Data(blob).base64EncodedString() + " " + comment.filter { $0 != "\0" && !$0.isNewline }
        return Array(text.utf8) + [0]
    }

    /// The modulus and exponent of a key as a host sent it (for the emulated device), or a
    /// `protocolViolation`: wrong length, a modulus length other than 2048 bits, or an R² or
    /// n0inv that does not belong to the modulus.
    public static func decode(_ payload: [UInt8]) throws -> (modulus: [UInt8], exponent: UInt32, comment: String) {
        let text = String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self)
        let base64 = text.prefix { $0 != " " }
        let comment = String(text.dropFirst(base64.count).drop { $0 == " " })
        guard let data = Data(base64Encoded: String(base64)), data.count == 4 * (3 + 2 * words) else {
            throw PhotonError(.protocolViolation, "an ADB public key that is not base64 of 524 bytes")
        }
        let bytes = Array(data)
        func read(_ index: Int) -> UInt32 {
            UInt32(bytes[4 * index]) | UInt32(bytes[4 * index + 1]) << 8 | UInt32(bytes[4 * index + 2]) << 16 | UInt32(bytes[4 * index + 3]) << 24
        }
        guard read(0) == UInt32(words) else { throw PhotonError(.protocolViolation, "an ADB public key of \(read(0)) words, not 64") }
        var modulus = [UInt8](repeating: 0, count: 4 * words)
        var rr = [UInt8](repeating: 0, count: 4 * words)
        for i in 0..<words {
            for (target, base) in [(0, 2), (1, 2 + words)] {
                let value = read(base + i).bigEndian
                withUnsafeBytes(of: value) { raw in
                    let offset = 4 * (words - 1 - i)
                    if target == 0 {
                        modulus.replaceSubrange(offset..<offset + 4, with: raw)
                    } else {
                        rr.replaceSubrange(offset..<offset + 4, with: raw)
                    }
                }
            }
        }
        guard BigNumberBytes.bitCount(modulus) == 2048, modulus.last.map({ $0 & 1 == 1 }) == true,
            read(1) == negatedInverse(of: word(modulus, 0)), rr == (try BigNumberBytes.powerOfTwo(4096, modulo: modulus))
        else { throw PhotonError(.protocolViolation, "an ADB public key whose numbers do not belong together") }
        return (modulus, read(2 + 2 * words), comment)
    }

    /// The i-th 32-bit word of a big-endian number, least significant first (0 past its end).
    static func word(_ number: [UInt8], _ i: Int) -> UInt32 {
        var value: UInt32 = 0
        for byte in 0..<4 {
            let index = number.count - 1 - (4 * i + byte)
            if index >= 0 { value |= UInt32(number[index]) << (8 * byte) }
        }
        return value
    }

    /// −x⁻¹ mod 2³² for odd x (Newton's iteration doubles the correct bits each step).
    static func negatedInverse(of x: UInt32) -> UInt32 {
        var inverse: UInt32 = x  // correct to 3 bits for odd x
        for _ in 0..<5 { inverse = inverse &* (2 &- x &* inverse) }
        return 0 &- inverse
    }

    /// The fingerprint Android shows for the key in its "Allow debugging?" prompt: MD5 of
    /// the key structure, as colon-separated hex.
    public static func fingerprint(_ encoded: [UInt8]) -> String {
        let text = String(decoding: encoded.prefix { $0 != 0 }, as: UTF8.self)
        guard let data = Data(base64Encoded: String(text.prefix { $0 != " " })) else { return "?" }
        return Digest.md5(Array(data)).map { String(format: "%02X", $0) }.joined(separator: ":")
    }
}
