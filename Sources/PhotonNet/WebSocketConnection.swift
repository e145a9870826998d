import Foundation
import PhotonCore
import PhotonCrypto

/// An RFC 6455 WebSocket over any `ByteStream` (TCP or TLS), client or server side.
/// `receive` reassembles fragmented messages, answers pings with pongs, completes the
/// close handshake, and treats a connection that drops without a close frame as closed
/// with 1006 (some TVs do this, or close with 1005); messages over `maxMessageSize` are
/// refused with close code 1009.
public final class WebSocketConnection: MessageStream {
    public typealias Role = WebSocketFrameParser.Role

    private struct ReadState {
        var parser: WebSocketFrameParser
        var fragments: [UInt8] = []
        var fragmentOpcode: WebSocketFrame.Opcode?
    }

    private struct CloseState {
        var sentClose = false
        var peerCode: UInt16?
    }

    public let stream: any ByteStream
    public let role: Role
    public let maxMessageSize: Int
    /// Outgoing messages larger than this are sent in fragments (nil: never).
    public let outgoingFragmentSize: Int?
    private let readState: Locked<ReadState>
    private let closeState = Locked(CloseState())
    private let activity = Locked<ContinuousClock.Instant?>(nil)
    private let readGate = AsyncGate()
    private let sendGate = AsyncGate()

    public init(
        stream: any ByteStream, role: Role, maxMessageSize: Int = 1 << 20, outgoingFragmentSize: Int? = nil,
        bufferedBytes: [UInt8] = []
    ) {
        self.stream = stream
        self.role = role
        self.maxMessageSize = maxMessageSize
        self.outgoingFragmentSize = outgoingFragmentSize
        var parser = WebSocketFrameParser(role: role, maxPayload: maxMessageSize)
        parser.append(bufferedBytes)
        readState = Locked(ReadState(parser: parser))
    }

    public var peerCertificate: CertificateInfo? { stream.peerCertificate }

    public var closeCode: UInt16? {
        get async { closeState.withLock { $0.peerCode } }
    }

    /// True once either side has begun to close (a close frame sent or received, or the
    /// peer gone). It turns true before the close frame goes out, so a peer that has seen
    /// the close never finds the connection still counted as open.
    public var isClosing: Bool { closeState.withLock { $0.sentClose || $0.peerCode != nil } }

    // MARK: receiving

    public func receive(timeout: Duration?) async throws -> WebSocketMessage? {
        let end = deadline(after: timeout)
        return try await readGate.withGate {
            while true {
                if closeState.withLock({ $0.peerCode != nil }) { return nil }
                let frame: WebSocketFrame?
                do {
                    frame = try readState.withLock { try $0.parser.next() }
                } catch let error as PhotonError {
                    await fail(error)
                    throw error
                }
                if let frame {
                    if let message = try await handle(frame, deadline: end) { return message }
                    continue
                }
                let remaining = end.map { $0 - ContinuousClock.now }
                if let remaining, remaining <= .zero {
                    throw PhotonError(.timeout, "no WebSocket message arrived in time")
                }
                let bytes: [UInt8]
                do {
                    bytes = try await stream.read(maxLength: 64 * 1024, timeout: remaining)
                } catch let error as PhotonError where error.code == .timeout {
                    throw PhotonError(.timeout, "no WebSocket message arrived in time", hint: error.hint)
                } catch let error as PhotonError where error.code == .connectionClosed {
                    closeState.withLock { if $0.peerCode == nil { $0.peerCode = 1006 } }
                    return nil
                }
                if bytes.isEmpty {
                    // Dropped without a close frame: 1006, as TVs often do.
                    closeState.withLock { if $0.peerCode == nil { $0.peerCode = 1006 } }
                    await stream.close()
                    return nil
                }
                activity.withLock { $0 = .now }
                readState.withLock { $0.parser.append(bytes) }
            }
        }
    }

    public var lastActivity: ContinuousClock.Instant? { activity.withLock { $0 } }

    public func sendPing() async throws { try await ping([0x70]) }

    /// Handles one frame; returns a message when one is complete.
    private func handle(_ frame: WebSocketFrame, deadline: ContinuousClock.Instant?) async throws -> WebSocketMessage? {
        switch frame.opcode {
        case .ping:
            try await answerPing(frame.payload, deadline: deadline)
            return nil
        case .pong:
            return nil
        case .close:
            var code: UInt16 = 1005
            if frame.payload.count >= 2 {
                code = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
                guard WebSocketFrame.isValidCloseCode(code) else {
                    let error = PhotonError(.protocolViolation, "a close frame with code \(code), which must not be sent on the wire")
                    await fail(error)
                    throw error
                }
                guard String(validating: frame.payload.dropFirst(2), as: UTF8.self) != nil else {
                    let error = PhotonError(.protocolViolation, "a close frame whose reason is not valid UTF-8")
                    await fail(error, code: 1007)
                    throw error
                }
            } else if frame.payload.count == 1 {
                await fail(PhotonError(.protocolViolation, "a close frame with a one-byte payload"))
                return nil
            }
            closeState.withLock { $0.peerCode = code }
            let mustAnswer = closeState.withLock { s -> Bool in
                defer { s.sentClose = true }
                return !s.sentClose
            }
            if mustAnswer {
                let answerCode: UInt16 = code == 1005 ? 1000 : code
                try? await sendFrame(
                    WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: answerCode, reason: "")),
                    force: true)
            }
            await stream.close()
            return nil
        case .text, .binary:
            let inProgress = readState.withLock { $0.fragmentOpcode != nil }
            if inProgress {
                let error = PhotonError(.protocolViolation, "a new WebSocket message started inside a fragmented one")
                await fail(error)
                throw error
            }
            if frame.fin { return try await message(frame.opcode, frame.payload) }
            readState.withLock {
                $0.fragmentOpcode = frame.opcode
                $0.fragments = frame.payload
            }
            return nil
        case .continuation:
            let result: Result<(WebSocketFrame.Opcode, [UInt8])?, PhotonError> = readState.withLock { s in
                guard let opcode = s.fragmentOpcode else {
                    return .failure(PhotonError(.protocolViolation, "a WebSocket continuation frame with nothing to continue"))
                }
                guard s.fragments.count + frame.payload.count <= maxMessageSize else {
                    return .failure(
                        PhotonError(.messageTooLarge, "a WebSocket message is over the \(maxMessageSize)-byte limit"))
                }
                s.fragments += frame.payload
                guard frame.fin else { return .success(nil) }
                defer {
                    s.fragments = []
                    s.fragmentOpcode = nil
                }
                return .success((opcode, s.fragments))
            }
            switch result {
            case .failure(let error):
                await fail(error)
                throw error
            case .success(nil): return nil
            case .success(let (opcode, payload)?): return try await message(opcode, payload)
            }
        }
    }

    private func message(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8]) async throws -> WebSocketMessage {
        if opcode == .binary { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else {
            let error = PhotonError(.protocolViolation, "a WebSocket text message that is not valid UTF-8")
            await fail(error, code: 1007)
            throw error
        }
        return .text(text)
    }

    /// The longest a pong may take to write. A peer that floods pings and stops reading
    /// fills our send buffer; past this bound it is treated as gone.
    static let pongWriteLimit: Duration = .seconds(2)

    /// The least time a pong gets, however close the receive's deadline: a ping read just
    /// before it is still answered (it was dropped unanswered, so a peer that pings a
    /// client polling with short receives saw no pong and hung up).
    static let pongWriteFloor: Duration = .milliseconds(500)

    /// Answers a ping within the receive's deadline (at least `pongWriteFloor`, at most
    /// `pongWriteLimit`), so a flood of pings cannot hold a receive, or the send gate, for
    /// long. A pong that cannot be written in time ends the connection: a half-written
    /// frame cannot be taken back.
    private func answerPing(_ payload: [UInt8], deadline: ContinuousClock.Instant?) async throws {
        let now = ContinuousClock.now
        let window = max(min(deadline.map { $0 - now } ?? Self.pongWriteLimit, Self.pongWriteLimit), Self.pongWriteFloor)
        let end = now + window
        do {
            try await withTimeout(end - now, "writing a pong") {
                try await self.sendFrame(WebSocketFrame(opcode: .pong, payload: payload))
            }
        } catch let error as PhotonError where error.code == .timeout {
            closeState.withLock {
                $0.sentClose = true
                if $0.peerCode == nil { $0.peerCode = 1006 }
            }
            await stream.close()
            throw PhotonError(
                .timeout, "the peer stopped reading: a pong could not be written within \(String(format: "%.1f", (end - now).seconds)) s",
                hint: "the TV (or whatever answers at its address) sends pings without reading the answers; the connection was closed")
        } catch {
            // The connection is closing or closed; the next read reports it.
        }
    }

    /// Closes after a protocol error with the matching close code.
    private func fail(_ error: PhotonError, code: UInt16? = nil) async {
        let closeCode = code ?? (error.code == .messageTooLarge ? 1009 : 1002)
        await close(code: closeCode, reason: String(error.message.prefix(100)), waitForPeer: false)
        closeState.withLock { if $0.peerCode == nil { $0.peerCode = 1006 } }
    }

    // MARK: sending

    public func send(_ message: WebSocketMessage) async throws {
        try CommandDeadline.checkBeforeSending()
        let (opcode, payload): (WebSocketFrame.Opcode, [UInt8])
        switch message {
        case .text(let text): (opcode, payload) = (.text, Array(text.utf8))
        case .binary(let bytes): (opcode, payload) = (.binary, bytes)
        }
        if let size = outgoingFragmentSize, payload.count > size {
            try await sendGate.withGate {
                var offset = 0
                var first = true
                while offset < payload.count {
                    let end = min(offset + size, payload.count)
                    let frame = WebSocketFrame(
                        fin: end == payload.count, opcode: first ? opcode : .continuation,
                        payload: Array(payload[offset..<end]))
                    try await writeFrame(frame)
                    offset = end
                    first = false
                }
            }
        } else {
            try await sendFrame(WebSocketFrame(opcode: opcode, payload: payload))
        }
    }

    /// Sends a ping with `payload` (at most 125 bytes).
    public func ping(_ payload: [UInt8] = []) async throws {
        try await sendFrame(WebSocketFrame(opcode: .ping, payload: Array(payload.prefix(125))))
    }

    private func sendFrame(_ frame: WebSocketFrame, force: Bool = false) async throws {
        try await sendGate.withGate { try await writeFrame(frame, force: force) }
    }

    private func writeFrame(_ frame: WebSocketFrame, force: Bool = false) async throws {
        if !force, closeState.withLock({ $0.sentClose }) {
            throw PhotonError(.connectionClosed, "the WebSocket is closing")
        }
        // A data frame that waited for the send gate past its command's expiry is not sent.
        if !frame.opcode.isControl { try CommandDeadline.checkBeforeSending() }
        let key = role == .client ? try SecureRandom.bytes(4) : nil
        try await stream.write(frame.encoded(maskingKey: key), timeout: .seconds(30))
    }

    // MARK: closing

    public func close(code: UInt16 = 1000, reason: String = "") async {
        await close(code: code, reason: reason, waitForPeer: true)
    }

    private func close(code: UInt16, reason: String, waitForPeer: Bool) async {
        let first = closeState.withLock { s -> Bool in
            defer { s.sentClose = true }
            return !s.sentClose
        }
        if first {
            try? await sendGate.withGate {
                try await writeFrame(
                    WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: code, reason: reason)),
                    force: true)
            }
            if waitForPeer && closeState.withLock({ $0.peerCode == nil }) {
                // Give the peer a moment to answer; anything before its close frame is
                // read and dropped. Bounded even if another task is reading, and even if
                // that read does not notice being cancelled (closing the stream ends it).
                _ = try? await waitAtMost(.seconds(2)) {
                    while self.closeState.withLock({ $0.peerCode == nil }) {
                        guard try await self.receive(timeout: nil) != nil else { break }
                    }
                }
            }
        }
        await stream.close()
    }
}

/// The value of `Sec-WebSocket-Accept` for a key (RFC 6455 §4.2.2).
public func webSocketAccept(forKey key: String) -> String {
    let digest = Digest.sha1(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))
    return Data(digest).base64EncodedString()
}
