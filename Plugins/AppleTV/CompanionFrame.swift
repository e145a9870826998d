import PhotonCore
import PhotonCrypto

/// One Companion frame: a type byte, a 3-byte big-endian payload length, the payload.
public struct CompanionFrame: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case noOp = 1
        case pairSetupStart = 3
        case pairSetupNext = 4
        case pairVerifyStart = 5
        case pairVerifyNext = 6
        case unencryptedOPACK = 7
        case encryptedOPACK = 8
        case packedOPACK = 9
    }

    public var kind: UInt8
    public var payload: [UInt8]

    public init(_ kind: Kind, _ payload: [UInt8]) {
        self.kind = kind.rawValue
        self.payload = payload
    }

    public init(kind: UInt8, payload: [UInt8]) {
        self.kind = kind
        self.payload = payload
    }

    public static let headerSize = 4
    /// The largest payload Photon reads or writes (the format allows 16 MiB).
    public static let maximumPayload = 1 << 20

    /// The 4-byte header of a frame of `kind` with `length` payload bytes.
    public static func header(kind: UInt8, length: Int) -> [UInt8] {
        [kind, UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
    }

    public var encoded: [UInt8] { Self.header(kind: kind, length: payload.count) + payload }
}

/// Splits a byte stream into frames, bounded: a frame over the limit is an error before any
/// of its payload is buffered.
public struct CompanionFrameDecoder: Sendable {
    private var buffer = ByteQueue()
    public let maximumPayload: Int

    public init(maximumPayload: Int = CompanionFrame.maximumPayload) { self.maximumPayload = maximumPayload }

    public mutating func append(_ bytes: [UInt8]) { buffer.append(bytes) }

    /// The next whole frame (header and raw payload), or nil until more bytes arrive.
    public mutating func next() throws -> (header: [UInt8], payload: [UInt8])? {
        guard buffer.count >= CompanionFrame.headerSize else { return nil }
        let header = buffer.bytes(0..<CompanionFrame.headerSize)
        let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        guard length <= maximumPayload else {
            throw PhotonError(.messageTooLarge, "a Companion frame of \(length) bytes is over the \(maximumPayload)-byte limit")
        }
        guard buffer.count >= CompanionFrame.headerSize + length else { return nil }
        let payload = buffer.bytes(CompanionFrame.headerSize..<(CompanionFrame.headerSize + length))
        buffer.consume(CompanionFrame.headerSize + length)
        return (header, payload)
    }
}

/// The encryption of a verified Companion connection: ChaCha20-Poly1305 in each direction
/// with its own key and a frame counter as the nonce, the frame's header as associated
/// data (its length counts the 16-byte tag). Empty payloads go unencrypted.
public struct CompanionCipher: Sendable {
    let outgoingKey: [UInt8]
    let incomingKey: [UInt8]
    private(set) var sent: UInt64 = 0
    private(set) var received: UInt64 = 0

    public init(outgoingKey: [UInt8], incomingKey: [UInt8]) {
        self.outgoingKey = outgoingKey
        self.incomingKey = incomingKey
    }

    /// The bytes of a frame to send.
    public mutating func seal(_ frame: CompanionFrame) throws -> [UInt8] {
        guard !frame.payload.isEmpty else { return frame.encoded }
        let header = CompanionFrame.header(kind: frame.kind, length: frame.payload.count + ChaChaPoly.tagSize)
        let sealed = try ChaChaPoly.seal(frame.payload, key: outgoingKey, nonce: ChaChaPoly.nonce(counter: sent), authenticating: header)
        sent += 1
        return header + sealed
    }

    /// The plaintext of a received frame; a frame that fails its check ends the connection.
    public mutating func open(header: [UInt8], payload: [UInt8]) throws -> CompanionFrame {
        guard !payload.isEmpty else { return CompanionFrame(kind: header[0], payload: []) }
        do {
            let plain = try ChaChaPoly.open(payload, key: incomingKey, nonce: ChaChaPoly.nonce(counter: received), authenticating: header)
            received += 1
            return CompanionFrame(kind: header[0], payload: plain)
        } catch {
            throw PhotonError(
                .protocolViolation, "a Companion frame failed to decrypt (altered, or out of order)",
                hint: "the connection is closed; a new one verifies again")
        }
    }
}
