import PhotonCore
import PhotonCrypto

/// The Polo pairing secret (protocol notes §5.4):
/// `alpha = SHA-256(client modulus ‖ client exponent ‖ TV modulus ‖ TV exponent ‖ nonce)`,
/// with key material as minimal unsigned big-endian bytes and the nonce as exactly the
/// two bytes of code characters 3–6. The first byte of alpha is the code's check byte, so
/// a mistyped code is caught here without spending the TV's attempt.
public enum PairingSecret {
    /// Computes alpha for a typed code, or throws `pairingRefused` when the check byte
    /// does not match (the user mistyped: ask again, send nothing).
    public static func compute(
        code: String, clientModulus: [UInt8], clientExponent: [UInt8], serverModulus: [UInt8], serverExponent: [UInt8]
    ) throws -> [UInt8] {
        let normalized = try CodeAlphabet.hexadecimal.validate(code, length: 6)
        let bytes = try Hex.decode(normalized)
        let input =
            minimal(clientModulus) + minimal(clientExponent) + minimal(serverModulus) + minimal(serverExponent)
            + bytes[1...2]
        let alpha = Digest.sha256(input)
        guard alpha[0] == bytes[0] else {
            throw PhotonError(
                .pairingRefused, "the code \(normalized) does not match this TV (check digits differ)",
                hint: "type the six characters exactly as the TV shows them")
        }
        return alpha
    }

    /// Strips leading zero bytes (keeps one byte for zero).
    static func minimal(_ bytes: [UInt8]) -> [UInt8] {
        let trimmed = bytes.drop(while: { $0 == 0 })
        return trimmed.isEmpty ? [0] : Array(trimmed)
    }
}
