import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet
import SamsungTV

/// A Samsung Tizen TV for tests, demos and benchmarks: REST and plain WebSocket on one
/// port, HTTPS and WSS on another with its own self-signed certificate; the "Allow"
/// prompt simulated (accept, deny or let it time out, after a delay); tokens issued,
/// remembered (optionally in a state directory) and revocable; the noise events real
/// sets send before connecting; keys, text and launches recorded; pings sent; hooks to
/// misbehave.
public final class EmulatedSamsungTV: Sendable {
    public enum Accept: String, Sendable { case auto, deny, timeout }

    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// WSS port (0: any free port).
        public var port: UInt16 = 8002
        /// REST and plain WebSocket port (0: any free port).
        public var restPort: UInt16 = 8001
        public var name = "[TV] Photon Emulated Samsung (55)"
        public var modelName = "QE55EMU"
        public var mac = "02:00:00:5A:4D:53"
        public var tokenAuthSupport = true
        public var accept = Accept.auto
        public var acceptDelay: Duration = .zero
        /// How long the simulated prompt waits before `ms.channel.timeOut`.
        public var promptTimeout: Duration = .seconds(30)
        public var stateDirectory: URL?
        public var pingInterval: Duration = .seconds(10)
        public var powerState = "on"
        /// Newer TVs never answer the installed-apps request.
        public var answersAppList = true
        /// Also send `ms.remote.touchEnable` before connecting, as some sets do. Off by
        /// default: samsungtvws 3.0.6 only skips `ed.edenTV.update` and
        /// `ms.voiceApp.hide` there and fails on anything else.
        public var touchEnableBeforeConnect = false
        /// A Frame: the art channel, art mode, and KEY_POWER toggling art (held: off).
        public var frame = false
        /// The art API version it reports; "0.97" is the older one (uploads in one binary
        /// WebSocket frame, thumbnails inline).
        public var artAPIVersion = "4.3.4.0"
        /// Starts in art mode (a Frame only).
        public var artMode = false
        public init() {}
    }

    public enum Misbehaviour: Sendable, Equatable {
        case none
        /// Send a frame larger than any client limit.
        case oversizeFrame
        /// Send text that is not JSON.
        case invalidFrame
        /// Send a WebSocket frame that breaks the protocol (reserved bits set).
        case malformedFrame
        /// Close with no status code (1005).
        case close1005
        /// Drop the connection without a close frame (1006).
        case drop
    }

    struct State {
        var tokens: Set<String> = []
        var identity: ClientIdentity
        var certificate: CertificateInfo
        var listeners: [any Sendable] = []
        var tasks: [Task<Void, Never>] = []
        var channels: [UInt64: WebSocketConnection] = [:]
        var nextChannel: UInt64 = 1
        var rotateTokenOnNextConnect = false
        /// The user's answer to prompts from now on, overriding the configuration.
        var acceptOverride: Accept?
        var powerState: String
        var frame: FrameArt
        var artChannels: [UInt64: WebSocketConnection] = [:]
    }

    public let configuration: Configuration
    let state: Locked<State>
    let emit: @Sendable (EmulatorEvent) -> Void
    private let boundPorts = Locked<(wss: UInt16, rest: UInt16)>((0, 0))
    public var port: UInt16 { boundPorts.withLock { $0.wss } }
    public var restPort: UInt16 { boundPorts.withLock { $0.rest } }
    public var fingerprint: CertificateFingerprint { state.withLock { $0.certificate.fingerprint } }
    public var tokens: Set<String> { state.withLock { $0.tokens } }

    public static func start(_ configuration: Configuration, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws
        -> EmulatedSamsungTV
    {
        let identity = try loadOrMakeIdentity(configuration)
        let tv = EmulatedSamsungTV(configuration: configuration, identity: identity, emit: onEvent)
        try tv.listen()
        onEvent(
            EmulatorEvent(
                "ready",
                [
                    ("brand", .string("samsung")), ("host", .string(configuration.host)), ("port", .int(Int(tv.port))),
                    ("rest_port", .int(Int(tv.restPort))), ("fingerprint", .string(tv.fingerprint.description)),
                    ("name", .string(configuration.name)), ("mac", .string(configuration.mac)),
                ]))
        return tv
    }

    private init(configuration: Configuration, identity: ClientIdentity, emit: @escaping @Sendable (EmulatorEvent) -> Void) {
        self.configuration = configuration
        let tokens = EmulatorIssuedSecrets.load("tokens.txt", in: configuration.stateDirectory)
        state = Locked(
            State(
                tokens: tokens, identity: identity, certificate: try! identity.certificateInfo(), powerState: configuration.powerState,
                frame: FrameArt(artMode: configuration.artMode)))
        self.emit = emit
    }

    static func makeIdentity(freshKey: Bool = false) throws -> ClientIdentity {
        try EmulatorIdentity.selfSigned(subject: [("CN", "SmartViewSDK"), ("O", "Samsung Electronics")], freshKey: freshKey)
    }

    static func loadOrMakeIdentity(_ c: Configuration) throws -> ClientIdentity {
        try EmulatorIdentity.loadOrMake(in: c.stateDirectory) { try makeIdentity() }
    }

    func saveTokens() {
        try? EmulatorIssuedSecrets.save(tokens, as: "tokens.txt", in: configuration.stateDirectory)
    }

    private func listen() throws {
        let (boundWSS, boundREST) = boundPorts.withLock { ($0.wss, $0.rest) }
        let identity = state.withLock { $0.identity }
        let tls = try TLSListener(
            host: configuration.host, port: boundWSS != 0 ? boundWSS : configuration.port,
            configuration: TLSServerConfiguration(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM))
        let plain: TCPListener
        do {
            plain = try TCPListener(host: configuration.host, port: boundREST != 0 ? boundREST : configuration.restPort)
        } catch {
            tls.close()
            throw error
        }
        boundPorts.withLock { $0 = (tls.port, plain.port) }
        let tlsTask = Task {
            await withTaskGroup(of: Void.self) { group in
                while let pending = try? await tls.acceptPending() {
                    group.addTask {
                        guard let stream = try? await pending.handshake() else { return }
                        await self.serve(stream, secure: true)
                    }
                }
                group.cancelAll()
            }
        }
        let plainTask = Task {
            await withTaskGroup(of: Void.self) { group in
                while let stream = try? await plain.accept() {
                    group.addTask { await self.serve(stream, secure: false) }
                }
                group.cancelAll()
            }
        }
        state.withLock {
            $0.listeners = [tls, plain]
            $0.tasks = [tlsTask, plainTask]
        }
    }

    public func stop() async {
        let (listeners, tasks, channels) = state.withLock { s in
            defer {
                s.listeners = []
                s.tasks = []
                s.channels = [:]
            }
            return (s.listeners, s.tasks, Array(s.channels.values))
        }
        for l in listeners {
            (l as? TLSListener)?.close()
            (l as? TCPListener)?.close()
        }
        for t in tasks { t.cancel() }
        for c in channels { await c.stream.close() }
    }

    /// A new TLS certificate, as after a factory reset (or an impostor).
    public func rotateCertificate() async throws {
        let identity = try Self.makeIdentity(freshKey: true)
        let info = try identity.certificateInfo()
        state.withLock {
            $0.identity = identity
            $0.certificate = info
        }
        await stop()
        try listen()
        emit(EmulatorEvent("certificate_rotated", [("fingerprint", .string(info.fingerprint.description))]))
    }

    /// Forgets every token (the user removed the clients from the Device List).
    public func revokeTokens() {
        state.withLock { $0.tokens.removeAll() }
        saveTokens()
        emit(EmulatorEvent("tokens_revoked"))
    }

    /// From now on the user answers every prompt this way.
    public func setAccept(_ answer: Accept) { state.withLock { $0.acceptOverride = answer } }

    /// The next connection with a valid token gets a new one in `data.token`.
    public func rotateTokenOnNextConnect() { state.withLock { $0.rotateTokenOnNextConnect = true } }

    public func setPowerState(_ value: String) { state.withLock { $0.powerState = value } }

    /// Misbehaves on every open channel now.
    public func misbehave(_ m: Misbehaviour) async {
        let channels = state.withLock { Array($0.channels.values) }
        for c in channels {
            switch m {
            case .none: break
            case .oversizeFrame: try? await c.send(.text(String(repeating: "x", count: SamsungEvent.maximumSize + 10)))
            case .invalidFrame: try? await c.send(.text("{not json"))
            case .malformedFrame: try? await c.stream.write([0xF1, 0x01, 0x41], timeout: .seconds(2))
            case .close1005: await c.close(code: 1005, reason: "")
            case .drop: await c.stream.close()
            }
        }
    }
}
