import PhotonCore

/// One RFC 6455 frame.
public struct WebSocketFrame: Sendable, Hashable {
    public enum Opcode: UInt8, Sendable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA
        public var isControl: Bool { rawValue & 0x8 != 0 }
    }

    public var fin: Bool
    public var opcode: Opcode
    public var payload: [UInt8]

    public init(fin: Bool = true, opcode: Opcode, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// Encodes the frame; a client passes a 4-byte masking key, a server passes nil.
    public func encoded(maskingKey: [UInt8]?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 14)
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        let n = payload.count
        if n < 126 {
            out.append(maskBit | UInt8(n))
        } else if n <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(n >> 8))
            out.append(UInt8(n & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((UInt64(n) >> UInt64(shift)) & 0xFF)) }
        }
        if let key = maskingKey {
            precondition(key.count == 4, "a masking key has 4 bytes")
            out += key
            let start = out.count
            out += payload
            out.withUnsafeMutableBytes { applyMask(key, to: UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
        } else {
            out += payload
        }
        return out
    }

    /// Whether a close frame may carry `code` (RFC 6455 §7.4, IANA registry): 1005,
    /// 1006 and 1015 are reserved for reporting and never sent; below 1000 and the
    /// unassigned protocol range are invalid; 3000–4999 belong to applications.
    public static func isValidCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// A close frame's payload: the code and a UTF-8 reason (cut to fit 125 bytes).
    static func closePayload(code: UInt16, reason: String) -> [UInt8] {
        guard code != 1005 else { return [] }
        var reasonBytes = Array(reason.utf8.prefix(123))
        while String(validating: reasonBytes, as: UTF8.self) == nil { reasonBytes.removeLast() }
        return [UInt8(code >> 8), UInt8(code & 0xFF)] + reasonBytes
    }
}

/// An incremental frame parser: feed bytes as they arrive, in any split, and take whole
/// frames out. Enforces the RFC's rules and a payload size limit before buffering, so a
/// hostile length field never causes a large allocation.
public struct WebSocketFrameParser: Sendable {
    public enum Role: Sendable { case client, server }

    private var queue = ByteQueue()
    /// What this side is: a server requires masked frames, a client refuses them.
    public let role: Role
    public let maxPayload: Int

    public init(role: Role, maxPayload: Int) {
        self.role = role
        self.maxPayload = maxPayload
    }

    public mutating func append(_ bytes: [UInt8]) { queue.append(bytes) }

    /// Bytes held but not yet parsed.
    public var bufferedCount: Int { queue.count }

    /// The next complete frame, or nil if more bytes are needed.
    public mutating func next() throws -> WebSocketFrame? {
        let available = queue.count
        guard available >= 2 else { return nil }
        let b0 = queue[0]
        let b1 = queue[1]
        guard b0 & 0x70 == 0 else {
            throw PhotonError(.protocolViolation, "WebSocket frame with reserved bits set (no extension was agreed)")
        }
        guard let opcode = WebSocketFrame.Opcode(rawValue: b0 & 0x0F) else {
            throw PhotonError(.protocolViolation, "unknown WebSocket opcode \(b0 & 0x0F)")
        }
        let fin = b0 & 0x80 != 0
        let masked = b1 & 0x80 != 0
        switch role {
        case .server where !masked:
            throw PhotonError(.protocolViolation, "unmasked WebSocket frame from a client")
        case .client where masked:
            throw PhotonError(.protocolViolation, "masked WebSocket frame from a server")
        default: break
        }
        var headerLength = 2
        var length = UInt64(b1 & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(queue[2]) << 8 | UInt64(queue[3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for i in 0..<8 { length = length << 8 | UInt64(queue[2 + i]) }
            headerLength = 10
            guard length >> 63 == 0 else { throw PhotonError(.protocolViolation, "WebSocket frame length has its top bit set") }
        }
        if opcode.isControl {
            guard fin else { throw PhotonError(.protocolViolation, "fragmented WebSocket control frame") }
            guard length <= 125 else { throw PhotonError(.protocolViolation, "WebSocket control frame over 125 bytes") }
        }
        guard length <= UInt64(maxPayload) else {
            throw PhotonError(
                .messageTooLarge, "WebSocket frame of \(length) bytes is over the \(maxPayload)-byte limit")
        }
        if masked { headerLength += 4 }
        let total = headerLength + Int(length)
        guard available >= total else { return nil }
        var payload = queue.bytes(headerLength..<total)
        if masked {
            let key = queue.bytes((headerLength - 4)..<headerLength)
            payload.withUnsafeMutableBytes { applyMask(key, to: $0) }
        }
        queue.consume(total)
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }
}

/// XORs `bytes` with the 4-byte masking key (RFC 6455 §5.3), eight bytes at a time.
func applyMask(_ key: [UInt8], to bytes: UnsafeMutableRawBufferPointer) {
    guard bytes.count > 0 else { return }
    var key4: UInt32 = 0
    withUnsafeMutableBytes(of: &key4) { $0.copyBytes(from: key.prefix(4)) }
    let key8 = UInt64(key4) | UInt64(key4) << 32
    let base = bytes.baseAddress!
    var i = 0
    while i + 8 <= bytes.count {
        let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        base.storeBytes(of: word ^ key8, toByteOffset: i, as: UInt64.self)
        i += 8
    }
    while i < bytes.count {
        bytes[i] ^= key[i & 3]
        i += 1
    }
}
