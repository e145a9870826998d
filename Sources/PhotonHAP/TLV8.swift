import PhotonCore

/// TLV8, the type-length-value format of HomeKit pairing (HAP, and Apple TV's Companion
/// pairing, which borrows it): one byte of type, one of length, then the value; values
/// over 255 bytes are split into items of the same type in a row, which a reader joins
/// again. Shared by the Apple TV adapter, its emulator and the HomeKit accessory side.
public struct TLV8: Sendable, Equatable {
    /// The pairing items Photon uses.
    public enum Tag: UInt8, Sendable {
        case method = 0x00
        case identifier = 0x01
        case salt = 0x02
        case publicKey = 0x03
        case proof = 0x04
        case encryptedData = 0x05
        case state = 0x06
        case error = 0x07
        case backOff = 0x08
        case signature = 0x0A
        /// A pairing's permissions in `/pairings` (0 user, 1 admin).
        case permissions = 0x0B
        case name = 0x11
        case flags = 0x13
        /// Sent by an Apple TV in its M2 (value 1).
        case appleFlags = 0x1B
        /// Between the pairings of a `/pairings` list answer.
        case separator = 0xFF
    }

    /// HAP error codes.
    public enum ErrorCode: UInt8, Sendable {
        case unknown = 1
        case authentication = 2
        case backOff = 3
        case maxPeers = 4
        case maxTries = 5
        case unavailable = 6
        case busy = 7
    }

    public private(set) var items: [(tag: UInt8, value: [UInt8])]

    public init(_ items: [(Tag, [UInt8])]) { self.items = items.map { ($0.0.rawValue, $0.1) } }

    public init(raw items: [(tag: UInt8, value: [UInt8])]) { self.items = items }

    public static func == (a: TLV8, b: TLV8) -> Bool {
        a.items.count == b.items.count && zip(a.items, b.items).allSatisfy { $0.tag == $1.tag && $0.value == $1.value }
    }

    public subscript(tag: Tag) -> [UInt8]? { items.first { $0.tag == tag.rawValue }?.value }

    /// The one-byte value of `tag` (state, method, error).
    public func byte(_ tag: Tag) -> UInt8? {
        guard let value = self[tag], value.count == 1 else { return nil }
        return value[0]
    }

    public var encoded: [UInt8] {
        var out: [UInt8] = []
        for (tag, value) in items {
            if value.isEmpty {
                out += [tag, 0]
                continue
            }
            var offset = 0
            while offset < value.count {
                let size = min(255, value.count - offset)
                out += [tag, UInt8(size)] + value[offset..<(offset + size)]
                offset += size
            }
        }
        return out
    }

    /// Reads items, joining a value's 255-byte pieces (and, as other readers do, any later
    /// item of a type already seen). At most `maximumSize` bytes.
    public static func decode(_ bytes: [UInt8], maximumSize: Int = 64 * 1024) throws -> TLV8 {
        guard bytes.count <= maximumSize else {
            throw PhotonError(.messageTooLarge, "a pairing message of \(bytes.count) bytes is over \(maximumSize)")
        }
        var items: [(tag: UInt8, value: [UInt8])] = []
        var position = 0
        while position < bytes.count {
            guard bytes.count - position >= 2 else { throw PhotonError(.protocolViolation, "a pairing item is cut short") }
            let tag = bytes[position]
            let length = Int(bytes[position + 1])
            guard bytes.count - position - 2 >= length else { throw PhotonError(.protocolViolation, "a pairing item is cut short") }
            let value = Array(bytes[(position + 2)..<(position + 2 + length)])
            if let index = items.firstIndex(where: { $0.tag == tag }) {
                items[index].value += value
            } else {
                items.append((tag, value))
            }
            position += 2 + length
        }
        return TLV8(raw: items)
    }
}
