import PhotonCore

/// One message of classic ADB over TCP: a 24-byte little-endian header (command, two
/// arguments, payload length, payload checksum, and the command's bitwise complement as a
/// magic number), then the payload. Shared by the adapter and the emulated device.
public struct ADBMessage: Sendable, Equatable {
    /// The commands of the transport (`adb/protocol.txt`).
    public enum Command: UInt32, Sendable, CustomStringConvertible {
        case connect = 0x4e58_4e43  // CNXN
        case auth = 0x4854_5541  // AUTH
        case open = 0x4e45_504f  // OPEN
        case okay = 0x5941_4b4f  // OKAY
        case close = 0x4553_4c43  // CLSE
        case write = 0x4554_5257  // WRTE
        case startTLS = 0x534c_5453  // STLS
        case sync = 0x434e_5953  // SYNC

        public var description: String {
            String(decoding: withUnsafeBytes(of: rawValue.littleEndian) { Array($0) }, as: UTF8.self)
        }
    }

    /// AUTH's first argument.
    public enum AuthType: UInt32, Sendable {
        /// From the device: a 20-byte token to sign.
        case token = 1
        /// From the host: the token signed with its RSA key.
        case signature = 2
        /// From the host: its public key, for the user to allow.
        case publicKey = 3
    }

    /// The protocol version that lets the checksum be zero (Android 9+ and adb 1.0.40+).
    public static let versionSkipChecksum: UInt32 = 0x0100_0001
    /// The older version, whose peers require the checksum.
    public static let versionWithChecksum: UInt32 = 0x0100_0000
    /// The largest payload Photon sends or takes (adbd's own limit is 256 KiB or 1 MiB).
    public static let maximumPayload = 256 * 1024
    public static let headerLength = 24

    public var command: Command
    public var arg0: UInt32
    public var arg1: UInt32
    public var payload: [UInt8]

    public init(_ command: Command, _ arg0: UInt32, _ arg1: UInt32, _ payload: [UInt8] = []) {
        self.command = command
        self.arg0 = arg0
        self.arg1 = arg1
        self.payload = payload
    }

    /// The old checksum: the sum of the payload's bytes.
    public static func checksum(_ payload: [UInt8]) -> UInt32 { payload.reduce(0) { $0 &+ UInt32($1) } }

    /// The message on the wire. The checksum is always written: peers of either version
    /// accept it.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerLength + payload.count)
        for word in [command.rawValue, arg0, arg1, UInt32(payload.count), Self.checksum(payload), command.rawValue ^ 0xffff_ffff] {
            withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes + payload
    }

    /// The payload as text up to its first NUL (banners and service names end in one).
    public var text: String { String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self) }
}

/// Splits a byte stream into ADB messages. Refuses (with `protocolViolation` or
/// `messageTooLarge`) anything that is not a well-formed message within bounds, so a
/// hostile peer costs at most one maximum payload of memory.
public struct ADBMessageDecoder: Sendable {
    private var buffer: [UInt8] = []
    /// Whether a payload's checksum must match (peers that spoke the old version).
    public var checksRequired: Bool
    public let maximumPayload: Int

    public init(checksRequired: Bool = false, maximumPayload: Int = ADBMessage.maximumPayload) {
        self.checksRequired = checksRequired
        self.maximumPayload = maximumPayload
    }

    public mutating func append(_ bytes: [UInt8]) { buffer += bytes }

    /// The next whole message, or nil until more bytes arrive.
    public mutating func next() throws -> ADBMessage? {
        guard buffer.count >= ADBMessage.headerLength else { return nil }
        func word(_ index: Int) -> UInt32 {
            let i = index * 4
            return UInt32(buffer[i]) | UInt32(buffer[i + 1]) << 8 | UInt32(buffer[i + 2]) << 16 | UInt32(buffer[i + 3]) << 24
        }
        let raw = word(0)
        guard word(5) == raw ^ 0xffff_ffff else {
            throw PhotonError(.protocolViolation, "not an ADB message (its magic number does not match)", hint: "is this an ADB port (5555)?")
        }
        guard let command = ADBMessage.Command(rawValue: raw) else {
            throw PhotonError(.protocolViolation, "an unknown ADB command 0x\(String(raw, radix: 16))")
        }
        let length = Int(word(3))
        guard length <= maximumPayload else {
            throw PhotonError(.messageTooLarge, "an ADB message of \(length) bytes (at most \(maximumPayload) are taken)")
        }
        guard buffer.count >= ADBMessage.headerLength + length else { return nil }
        let payload = Array(buffer[ADBMessage.headerLength..<ADBMessage.headerLength + length])
        let sum = word(4)
        if checksRequired || sum != 0, sum != ADBMessage.checksum(payload) {
            throw PhotonError(.protocolViolation, "an ADB message whose checksum does not match its payload")
        }
        let message = ADBMessage(command, word(1), word(2), payload)
        buffer.removeFirst(ADBMessage.headerLength + length)
        return message
    }
}
