import PhotonCore
import PhotonCrypto

/// HAP's encrypted session after pair-verify: every message is cut into frames of at most
/// 1,024 bytes, each sent as a 2-byte little-endian length ‖ ChaCha20-Poly1305 ciphertext
/// ‖ 16-byte tag, the length bytes authenticated, the nonce four zero bytes ‖ a 64-bit
/// little-endian counter, one counter per direction. An HTTP message may span frames, and
/// a frame may arrive in pieces: `open` buffers at most one frame's bytes. Any error
/// (a length over the limit, an altered frame, another key) ends the session — the
/// counters can no longer agree — so the caller closes the connection.
public struct HAPSessionCipher: Sendable {
    /// The largest plaintext in one frame.
    public static let maximumFrame = 1024
    static let tagLength = 16

    let sealKey: [UInt8]
    let openKey: [UInt8]
    var sent: UInt64 = 0
    var received: UInt64 = 0
    var pending: [UInt8] = []

    /// A cipher sealing with `sealKey` and opening with `openKey` (32 bytes each).
    public init(sealKey: [UInt8], openKey: [UInt8]) throws {
        guard sealKey.count == 32, openKey.count == 32 else {
            throw PhotonError(.crypto, "HAP session keys are 32 bytes")
        }
        self.sealKey = sealKey
        self.openKey = openKey
    }

    /// The accessory's side of a session whose pair-verify gave `sharedSecret`: it reads
    /// with the controller's write key and writes with its read key.
    public init(accessoryWithSharedSecret sharedSecret: [UInt8]) throws {
        try self.init(
            sealKey: try PairingKeys.derive(sharedSecret, PairingKeys.accessoryToController),
            openKey: try PairingKeys.derive(sharedSecret, PairingKeys.controllerToAccessory))
    }

    /// The controller's side, for tests and tools that talk to an accessory.
    public init(controllerWithSharedSecret sharedSecret: [UInt8]) throws {
        try self.init(
            sealKey: try PairingKeys.derive(sharedSecret, PairingKeys.controllerToAccessory),
            openKey: try PairingKeys.derive(sharedSecret, PairingKeys.accessoryToController))
    }

    /// The nonce of frame `counter`: four zero bytes, then the counter little-endian.
    static func nonce(_ counter: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * $0)) }
    }

    /// `plaintext` as frames, ready to write. An empty message is no frame at all.
    public mutating func seal(_ plaintext: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(plaintext.count + (plaintext.count / Self.maximumFrame + 1) * (2 + Self.tagLength))
        var start = 0
        while start < plaintext.count {
            let end = min(start + Self.maximumFrame, plaintext.count)
            let length = [UInt8(truncatingIfNeeded: end - start), UInt8(truncatingIfNeeded: (end - start) >> 8)]
            out += length
            out += try ChaChaPoly.seal(Array(plaintext[start..<end]), key: sealKey, nonce: Self.nonce(sent), authenticating: length)
            sent += 1
            start = end
        }
        return out
    }

    /// Takes bytes as they arrive and gives the plaintext of every frame they complete
    /// (possibly none yet).
    public mutating func open(_ bytes: [UInt8]) throws -> [UInt8] {
        pending += bytes
        var plaintext: [UInt8] = []
        var start = 0
        while pending.count - start >= 2 {
            let length = Int(pending[start]) | Int(pending[start + 1]) << 8
            guard length <= Self.maximumFrame else {
                throw PhotonError(
                    .protocolViolation, "a HAP frame of \(length) bytes (at most \(Self.maximumFrame))",
                    hint: "the controller is not speaking HAP; the connection is closed")
            }
            let end = start + 2 + length + Self.tagLength
            guard pending.count >= end else { break }
            do {
                plaintext += try ChaChaPoly.open(
                    Array(pending[(start + 2)..<end]), key: openKey, nonce: Self.nonce(received),
                    authenticating: Array(pending[start..<(start + 2)]))
            } catch {
                throw PhotonError(
                    .authenticationRefused, "a HAP frame failed its authentication check (altered, replayed, or another session's key)")
            }
            received += 1
            start = end
        }
        pending.removeFirst(start)
        return plaintext
    }

    /// Bytes of a frame not yet complete.
    public var bufferedCount: Int { pending.count }
}
