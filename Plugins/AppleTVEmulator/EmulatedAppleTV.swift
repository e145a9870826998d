import AppleTV
import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonHAP
import PhotonNet

/// An emulated Apple TV speaking Companion for real over TCP: pair-setup with a PIN it
/// reports as an event (`pairing_code`), pair-verify with its long-term Ed25519 key, then
/// encrypted OPACK requests — the session start, HID keys, app launch and list, attention
/// state and the events it pushes. Misbehaviour hooks let client tests see checks fail.
/// Reports what it receives as events (`key`, `launch`, `text`, `volume`, `paired`,
/// `verified`, `power`).
public final class EmulatedAppleTV: Sendable {
    public enum Misbehaviour: String, Sendable {
        case none
        /// Pair-setup answers M4 with a proof that does not match.
        case wrongProof = "wrong-proof"
        /// Pair-setup signs M6 with another key.
        case wrongSignature = "wrong-signature"
        /// Pair-verify signs with another long-term key (an impostor).
        case newKey = "new-key"
        /// Answers every request with garbage after verifying.
        case garbage
        /// Sends an oversize frame after verifying.
        case oversize
        /// Never answers requests after verifying.
        case silent
        /// Puts a plaintext "asleep" event before its answer to pair-verify, as a device
        /// relaying the connection could.
        case plaintextEvent = "plaintext-event"
    }

    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port: UInt16 = 49153
        /// The PIN pairing shows; nil: a new random one each time.
        public var pin: String?
        public var name = "Living Room"
        public var model = "AppleTV14,1"
        public var identifier = "AA:BB:CC:DD:EE:FF"
        public var misbehaviour = Misbehaviour.none
        /// Whether a text field is open (the keyboard is up) when it starts.
        public var keyboard = true
        /// Whether it controls a volume (over HDMI-CEC or AirPlay speakers).
        public var volumeControl = true
        public init() {}
    }

    static let apps: [(String, String)] = [
        ("com.apple.TVWatchList", "TV"), ("com.netflix.Netflix", "Netflix"), ("com.google.ios.youtube", "YouTube"),
        ("com.disney.disneyplus", "Disney+"), ("com.apple.TVMusic", "Music"), ("com.apple.TVSettings", "Settings"),
    ]

    struct State {
        var controllers: [[UInt8]: [UInt8]] = [:]
        /// 1 asleep, 3 awake.
        var attention: Int64 = 3
        var foreground = "com.apple.TVWatchList"
        var volume = 0.5
        /// The focused text field's content; nil when no field is open.
        var textField: String? = ""
        /// Whether it controls a volume (HDMI-CEC or speakers); `_iMC` says so.
        var volumeControl = true
        var serving = true
    }

    public let configuration: Configuration
    private let key: Locked<Ed25519PrivateKey>
    var signingKey: Ed25519PrivateKey { key.withLock { $0 } }
    let emit: @Sendable (EmulatorEvent) -> Void
    let listener: TCPListener
    let state = Locked(State())
    private let connections = Locked<[UUID: SocketStream]>([:])
    private let accepting = Locked<Task<Void, Never>?>(nil)
    public var port: UInt16 { listener.port }
    public var tvID: [UInt8] { Array(configuration.identifier.utf8) }
    public var longTermPublicKey: [UInt8] { signingKey.publicKey }

    public static func start(_ configuration: Configuration, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) throws -> EmulatedAppleTV {
        let tv = try EmulatedAppleTV(configuration: configuration, emit: onEvent)
        onEvent(
            EmulatorEvent(
                "ready",
                [
                    ("brand", .string("appletv")), ("host", .string(configuration.host)), ("port", .int(Int(tv.port))),
                    ("identifier", .string(configuration.identifier)),
                ]))
        return tv
    }

    init(configuration: Configuration, emit: @escaping @Sendable (EmulatorEvent) -> Void) throws {
        self.configuration = configuration
        self.emit = emit
        key = Locked(try Ed25519PrivateKey())
        listener = try TCPListener(host: configuration.host, port: configuration.port)
        state.withLock {
            $0.textField = configuration.keyboard ? "" : nil
            $0.volumeControl = configuration.volumeControl
        }
        let task = Task { [weak self, listener] in
            while true {
                guard let stream = try? await listener.accept() else { return }
                guard let self else {
                    await stream.close()
                    return
                }
                let id = UUID()
                self.connections.withLock { $0[id] = stream }
                Task {
                    await self.serve(stream)
                    self.connections.withLock { _ = $0.removeValue(forKey: id) }
                }
            }
        }
        accepting.withLock { $0 = task }
    }

    public func stop() async {
        state.withLock { $0.serving = false }
        listener.close()
        accepting.withLock { $0 }?.cancel()
        for stream in connections.withLock({ Array($0.values) }) { await stream.close() }
    }

    /// A new long-term key (a reset or replaced Apple TV): clients paired before cannot
    /// verify it.
    public func rotateKey() throws { try key.withLock { $0 = try Ed25519PrivateKey() } }

    /// Writes raw bytes to every open connection (garbage, an oversize header).
    public func sendToAll(_ bytes: [UInt8]) async {
        for stream in connections.withLock({ Array($0.values) }) { try? await stream.write(bytes, timeout: .seconds(2)) }
    }

    /// Forgets every paired controller (a reset Apple TV).
    public func forgetControllers() { state.withLock { $0.controllers = [:] } }

    /// Closes every open connection.
    public func dropConnections() async { for stream in connections.withLock({ Array($0.values) }) { await stream.close() } }

    /// Sets the attention state and pushes it to subscribers (1 asleep, 3 awake).
    public func setAttention(_ value: Int64) { state.withLock { $0.attention = value } }

    // MARK: one connection

    final class Session: @unchecked Sendable {
        var setup: PairSetupAccessory?
        var verify: PairVerifyAccessory?
        var cipher: CompanionCipher?
        var interests: Set<String> = []
        /// The text-input session this client started (`_tiStart`), if any.
        var textSession: [UInt8]?
    }

    private func serve(_ stream: SocketStream) async {
        let session = Session()
        var decoder = CompanionFrameDecoder()
        emit(EmulatorEvent("client_connected", []))
        defer {
            emit(EmulatorEvent("client_disconnected", []))
            Task { await stream.close() }
        }
        while state.withLock({ $0.serving }) {
            guard let bytes = try? await stream.read(maxLength: 64 * 1024, timeout: nil), !bytes.isEmpty else { return }
            decoder.append(bytes)
            do {
                while let (header, payload) = try decoder.next() {
                    let frame: CompanionFrame
                    if var cipher = session.cipher {
                        frame = try cipher.open(header: header, payload: payload)
                        session.cipher = cipher
                    } else {
                        frame = CompanionFrame(kind: header[0], payload: payload)
                    }
                    for reply in try await handle(frame, session: session) {
                        var bytes = reply.encoded
                        if var cipher = session.cipher, !(3...6).contains(reply.kind) {
                            bytes = try cipher.seal(reply)
                            session.cipher = cipher
                        }
                        try await stream.write(bytes, timeout: .seconds(5))
                    }
                    if let keys = pendingKeys.withLock({ $0.removeValue(forKey: ObjectIdentifier(session)) }) {
                        session.cipher = CompanionCipher(outgoingKey: keys.outgoing, incomingKey: keys.incoming)
                        emit(EmulatorEvent("verified", []))
                        try await misbehave(stream, session: session)
                    }
                }
            } catch {
                emit(EmulatorEvent("client_error", [("error", .string(PhotonError.wrap(error).message))]))
                return
            }
        }
    }

    private let pendingKeys = Locked<[ObjectIdentifier: (outgoing: [UInt8], incoming: [UInt8])]>([:])

    private func misbehave(_ stream: SocketStream, session: Session) async throws {
        switch configuration.misbehaviour {
        case .oversize: try await stream.write(CompanionFrame.header(kind: 8, length: 0xFF_FFFF) + [1, 2, 3], timeout: .seconds(5))
        default: break
        }
    }

    private func handle(_ frame: CompanionFrame, session: Session) async throws -> [CompanionFrame] {
        switch frame.kind {
        case 3...6:
            let answer = try pairing(frame, session: session)
            guard configuration.misbehaviour == .plaintextEvent, frame.kind == 5 else { return [answer] }
            let asleep = OPACK.object([
                ("_i", .string("SystemStatus")), ("_t", .int(CompanionConnection.MessageType.event.rawValue)), ("_c", .object([("state", .int(1))])),
            ])
            emit(EmulatorEvent("plaintext_event"))
            return [CompanionFrame(.unencryptedOPACK, asleep.encoded), answer]
        case 7, 8, 9:
            guard session.cipher != nil else { throw PhotonError(.protocolViolation, "an OPACK message before verification") }
            guard !frame.payload.isEmpty else { return [] }
            let before = state.withLock { $0.attention }
            var replies = try request(try OPACK.decode(frame.payload), session: session)
            let after = state.withLock { $0.attention }
            // A power change is pushed to a subscriber, as tvOS does.
            if after != before, session.interests.contains("SystemStatus") {
                let event = OPACK.object([
                    ("_i", .string("SystemStatus")), ("_t", .int(CompanionConnection.MessageType.event.rawValue)),
                    ("_c", .object([("state", .int(after))])),
                ])
                replies.append(CompanionFrame(.encryptedOPACK, event.encoded))
            }
            return replies
        default: return []
        }
    }

    private func pairing(_ frame: CompanionFrame, session: Session) throws -> CompanionFrame {
        let message = try OPACK.decode(frame.payload)
        guard let data = message["_pd"]?.dataValue else { throw PhotonError(.protocolViolation, "a pairing frame without _pd") }
        let tlv = try TLV8.decode(data)
        let answer: TLV8
        let kind: CompanionFrame.Kind
        switch (frame.kind, tlv.byte(.state)) {
        case (3, _):
            let pin = configuration.pin ?? String(format: "%04d", Int.random(in: 0...9999))
            emit(EmulatorEvent("pairing_code", [("code", .string(pin))]))
            let misbehaviour: PairSetupAccessory.Misbehaviour? =
                configuration.misbehaviour == .wrongProof ? .wrongProof : configuration.misbehaviour == .wrongSignature ? .wrongSignature : nil
            let accessory = try PairSetupAccessory(code: pin, accessoryID: tvID, signingKey: signingKey, misbehaviour: misbehaviour)
            answer = try accessory.m2(answering: tlv, appleFlags: true)
            session.setup = accessory
            kind = .pairSetupNext
        case (4, 3?):
            guard var accessory = session.setup else { throw PhotonError(.protocolViolation, "M3 before M1") }
            answer = accessory.m4(answering: tlv)
            session.setup = accessory
            kind = .pairSetupNext
            if answer.byte(.error) != nil { emit(EmulatorEvent("pairing_refused", [("reason", .string("wrong PIN"))])) }
        case (4, 5?):
            guard var accessory = session.setup else { throw PhotonError(.protocolViolation, "M5 before M3") }
            answer = try accessory.m6(answering: tlv)
            session.setup = accessory
            kind = .pairSetupNext
            if let controller = accessory.controller {
                state.withLock { $0.controllers[controller.id] = controller.publicKey }
                emit(EmulatorEvent("paired", [("client", .string(String(decoding: controller.id, as: UTF8.self)))]))
            }
        case (5, _):
            let known = state.withLock { $0.controllers }
            var accessory = try PairVerifyAccessory(
                accessoryID: tvID, signingKey: signingKey, impostor: configuration.misbehaviour == .newKey, knows: { known[$0] })
            answer = try accessory.m2(answering: tlv)
            session.verify = accessory
            kind = .pairVerifyNext
        case (6, 3?):
            guard let accessory = session.verify else { throw PhotonError(.protocolViolation, "verify M3 before M1") }
            let (reply, verified) = try accessory.m4(answering: tlv)
            answer = reply
            kind = .pairVerifyNext
            if let shared = verified?.sharedSecret {
                // Companion's keys, from the TV's side: it writes with the server's key.
                let keys = (
                    outgoing: try HKDF.sha512(secret: shared, salt: "", info: "ServerEncrypt-main"),
                    incoming: try HKDF.sha512(secret: shared, salt: "", info: "ClientEncrypt-main")
                )
                pendingKeys.withLock { $0[ObjectIdentifier(session)] = keys }
            }
        default: throw PhotonError(.protocolViolation, "an unexpected pairing frame")
        }
        return CompanionFrame(kind, OPACK.object([("_pd", .data(answer.encoded))]).encoded)
    }
}
