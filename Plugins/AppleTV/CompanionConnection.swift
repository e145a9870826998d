import Foundation
import PhotonCore

/// One Companion connection to an Apple TV: frames in and out over a byte stream from the
/// core's transports, the pairing exchanges (auth frames carrying OPACK `{"_pd": TLV8}`),
/// then — once verified — every frame encrypted, requests matched to their responses by
/// `_x`, and events handed to a stream. A frame that fails to decrypt, an oversize frame
/// or garbage ends the connection.
public actor CompanionConnection {
    /// Message types in `_t`.
    public enum MessageType: Int64, Sendable {
        case event = 1
        case request = 2
        case response = 3
    }

    let stream: any ByteStream
    private var cipher: CompanionCipher?
    private var lastWrite: Task<Void, any Error>?
    private var nextID: Int64 = Int64.random(in: 1...0xFFFF)
    /// An answer awaited: registered before its request is written (the answer can arrive
    /// while the write is still in progress), then either the answer or the waiting task.
    private enum Slot {
        case expected
        case arrived(Result<OPACK, any Error>)
        case waiting(CheckedContinuation<OPACK, any Error>)
    }
    private var waiting: [Int64: Slot] = [:]
    private var authSlot: Slot?
    private var ended: PhotonError?
    private var reader: Task<Void, Never>?
    public nonisolated let events: AsyncStream<(name: String, content: OPACK)>
    private let eventSink: AsyncStream<(name: String, content: OPACK)>.Continuation

    public init(stream: any ByteStream) {
        self.stream = stream
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(128))
    }

    /// Starts reading; call once.
    public func start() {
        guard reader == nil else { return }
        reader = Task { [weak self, stream] in
            var decoder = CompanionFrameDecoder()
            while !Task.isCancelled {
                let bytes: [UInt8]
                do { bytes = try await stream.read(maxLength: 64 * 1024, timeout: nil) } catch {
                    await self?.end(PhotonError.wrap(error))
                    return
                }
                guard !bytes.isEmpty else {
                    await self?.end(PhotonError(.connectionClosed, "the Apple TV closed the connection"))
                    return
                }
                decoder.append(bytes)
                do {
                    while let (header, payload) = try decoder.next() { try await self?.received(header: header, payload: payload) }
                } catch {
                    await self?.end(PhotonError.wrap(error))
                    return
                }
            }
        }
    }

    /// Why the connection ended, once it has.
    public var endReason: PhotonError? { ended }

    // MARK: sending

    /// Sends a pairing message and waits for the Apple TV's answer to it.
    public func exchangeAuth(_ kind: CompanionFrame.Kind, _ message: OPACK, timeout: Duration) async throws -> OPACK {
        if let ended { throw ended }
        authSlot = .expected
        try await write(CompanionFrame(kind, message.encoded))
        let timer = Task { [weak self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            await self?.authTimedOut()
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            if case .arrived(let result)? = authSlot {
                authSlot = nil
                continuation.resume(with: result)
            } else {
                authSlot = .waiting(continuation)
            }
        }
    }

    /// From now on every frame is encrypted with the verified session's keys.
    public func enableEncryption(outgoing: [UInt8], incoming: [UInt8]) {
        cipher = CompanionCipher(outgoingKey: outgoing, incomingKey: incoming)
    }

    /// Sends a request and waits for its response's content; a response with `_em` is an
    /// error with the Apple TV's message.
    @discardableResult
    public func request(_ name: String, _ content: OPACK = .object([]), timeout: Duration) async throws -> OPACK {
        if let ended { throw ended }
        let id = nextID
        nextID += 1
        let message = OPACK.object([("_i", .string(name)), ("_t", .int(MessageType.request.rawValue)), ("_c", content), ("_x", .int(id))])
        waiting[id] = .expected
        do { try await write(CompanionFrame(.encryptedOPACK, message.encoded)) } catch {
            waiting[id] = nil
            throw error
        }
        let timer = Task { [weak self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            await self?.requestTimedOut(id, name)
        }
        defer { timer.cancel() }
        let response = try await withCheckedThrowingContinuation { continuation in
            if case .arrived(let result)? = waiting[id] {
                waiting[id] = nil
                continuation.resume(with: result)
            } else {
                waiting[id] = .waiting(continuation)
            }
        }
        if let problem = response["_em"]?.stringValue {
            throw PhotonError(.protocolViolation, "the Apple TV refused \(name): \(Redaction.sanitize(problem))")
        }
        return response["_c"] ?? .object([])
    }

    /// Sends an event (no answer comes).
    public func event(_ name: String, _ content: OPACK) async throws {
        if let ended { throw ended }
        let id = nextID
        nextID += 1
        let message = OPACK.object([("_i", .string(name)), ("_t", .int(MessageType.event.rawValue)), ("_c", content), ("_x", .int(id))])
        try await write(CompanionFrame(.encryptedOPACK, message.encoded))
    }

    /// Writes frames in the order they were sealed: the nonce is a counter, so the wire
    /// order must be the sealing order. The actor alone would not ensure it — a second
    /// sender (a request made while an event is handled) could seal its frame while the
    /// first one's write is suspended, and the Apple TV then fails to decrypt. Sealing and
    /// chaining happen before any suspension, so each write waits for the one sealed before.
    private func write(_ frame: CompanionFrame) async throws {
        let bytes = try cipher.map { _ in try cipher!.seal(frame) } ?? frame.encoded
        let previous = lastWrite
        let stream = self.stream
        let write = Task {
            _ = await previous?.result
            try await stream.write(bytes, timeout: .seconds(10))
        }
        lastWrite = write
        try await write.value
    }

    public func close() async {
        reader?.cancel()
        end(PhotonError(.connectionClosed, "the connection to the Apple TV was closed"))
        await stream.close()
    }

    // MARK: receiving

    /// The events the session uses (power and media state); any other event is dropped
    /// unread.
    static let allowedEvents: Set<String> = ["SystemStatus", "TVSystemStatus", "_iMC"]

    private func received(header: [UInt8], payload: [UInt8]) throws {
        // Before pair-verify turns encryption on, only pairing frames are read: a device
        // between Photon and the TV could otherwise insert a plaintext event ("asleep") or
        // make Photon decode a large OPACK value from anyone who answers at the address.
        guard cipher != nil || (3...6).contains(header[0]) else { return }
        let frame = try cipher.map { _ in try cipher!.open(header: header, payload: payload) } ?? CompanionFrame(kind: header[0], payload: payload)
        switch frame.kind {
        case 3...6:
            // Pairing frames belong before encryption; after it they are not Photon's.
            guard cipher == nil else { return }
            let message = try OPACK.decode(frame.payload)
            deliverAuth(.success(message))
        case 7, 8, 9:
            guard !frame.payload.isEmpty else { return }
            let message = try OPACK.decode(frame.payload)
            switch message["_t"]?.intValue {
            case MessageType.response.rawValue?:
                if let id = message["_x"]?.intValue { deliver(id, .success(message)) }
            case MessageType.event.rawValue?:
                if let name = message["_i"]?.stringValue, Self.allowedEvents.contains(name) { eventSink.yield((name, message["_c"] ?? .null)) }
            default: break
            }
        default: break  // NoOp and frame types Photon does not use
        }
    }

    private func deliver(_ id: Int64, _ result: Result<OPACK, any Error>) {
        switch waiting[id] {
        case .expected?: waiting[id] = .arrived(result)
        case .waiting(let continuation)?:
            waiting[id] = nil
            continuation.resume(with: result)
        default: break  // an answer nobody waits for (it timed out)
        }
    }

    private func deliverAuth(_ result: Result<OPACK, any Error>) {
        switch authSlot {
        case .expected?: authSlot = .arrived(result)
        case .waiting(let continuation)?:
            authSlot = nil
            continuation.resume(with: result)
        default: break
        }
    }

    private func end(_ reason: PhotonError) {
        guard ended == nil else { return }
        ended = reason
        deliverAuth(.failure(reason))
        for id in Array(waiting.keys) { deliver(id, .failure(reason)) }
        eventSink.finish()
    }

    private func authTimedOut() {
        deliverAuth(
            .failure(
                PhotonError(.timeout, "the Apple TV did not answer the pairing message in time", hint: "check that it is awake and on the network")))
    }

    private func requestTimedOut(_ id: Int64, _ name: String) {
        deliver(id, .failure(PhotonError(.timeout, "the Apple TV did not answer \(name) in time", hint: "check that it is awake and on the network")))
        waiting[id] = nil
    }
}
