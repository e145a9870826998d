import Foundation
import LGWebOS
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet

/// An LG webOS TV for tests, demos and benchmarks: SSAP over WSS (its own self-signed
/// certificate, the same on every start with a state directory) and plain WS; hello,
/// system information and PROMPT registration (accepted, declined, or left to expire);
/// the 2026 firmware's refusal of signed manifests; permissions granted from the manifest
/// (signed-tier ones only to a signed one); the pointer input socket; the requests a
/// remote uses and subscriptions that push changes; hooks to misbehave.
public final class EmulatedLGTV: Sendable {
    public enum Accept: String, Sendable { case auto, deny, timeout }

    public enum Misbehaviour: String, Sendable {
        case none
        /// Stop reading: no replies, no pongs.
        case silent
        /// An unsolicited frame of an unknown type and a reply for an unknown id before
        /// every answer.
        case noisy
    }

    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// WSS port (0: any free port); nil: no TLS (a TV from before 2018).
        public var port: UInt16? = 3001
        /// Plain WS port (0: any free port); nil: none (2023+ firmware).
        public var plainPort: UInt16? = 3000
        public var name = "LG webOS TV OLED65C2"
        public var modelName = "OLED65C25LB"
        public var osRelease = "23.20.56"
        public var uuid = "6c3f2a1e-9b7d-4e15-a0c4-1f2e3d4c5b6a"
        /// The wired MAC; the Wi-Fi one is `wifiMAC`.
        public var mac = "02:00:00:4C:47:01"
        public var wifiMAC = "02:00:00:4C:47:02"
        public var accept = Accept.auto
        public var acceptDelay: Duration = .zero
        /// How long an unanswered prompt stays before the TV answers `403 cancelled`.
        public var promptTimeout: Duration = .seconds(120)
        /// Refuse signed manifests with the 2026 error (firmware 43.00.92+, webOS 26).
        public var blacklistSigned = true
        /// Permissions never granted (beyond the signed-tier ones an unsigned manifest lacks).
        public var withheld: Set<String> = []
        public var pairingTypes = ["PIN", "PROMPT", "COMBINED"]
        /// `Active`, `Active Standby`…
        public var powerState = "Active"
        /// Close with 1008 "invalid origin" when the upgrade carries an Origin header, as
        /// some firmware does.
        public var rejectOrigin = true
        public var channelCount = 3
        public var misbehaviour = Misbehaviour.none
        public var stateDirectory: URL?
        /// Answer SSDP searches for webOS's second-screen service on this UDP port (0: a
        /// free one); nil: none.
        public var ssdpPort: UInt16?
        public init() {}
    }

    /// One client's main socket and what it subscribed to.
    final class Client: Sendable {
        let connection: WebSocketConnection
        let secure: Bool
        struct State {
            var registered = false
            var granted: Set<String> = []
            var subscriptions: [(id: JSONValue, uri: String)] = []
            var pointerPath: String?
        }
        let state = Locked(State())
        init(connection: WebSocketConnection, secure: Bool) {
            self.connection = connection
            self.secure = secure
        }
    }

    struct State {
        var keys: Set<String> = []
        var identity: ClientIdentity
        var certificate: CertificateInfo
        var listeners: [any Sendable] = []
        var tasks: [Task<Void, Never>] = []
        var clients: [UInt64: Client] = [:]
        var pointers: [UInt64: WebSocketConnection] = [:]
        var nextID: UInt64 = 1
        var acceptOverride: Accept?
        var misbehaviour: Misbehaviour
        var powerState: String
        var processing: String?
        var volume = 12
        var muted = false
        /// The webOS id of the output the audio goes to (`changeSoundOutput`).
        var soundOutput = "tv_speaker"
        var app = "com.webos.app.home"
        var playState = "playing"
    }

    public let configuration: Configuration
    let state: Locked<State>
    let emit: @Sendable (EmulatorEvent) -> Void
    private let boundPorts = Locked<(tls: UInt16?, plain: UInt16?)>((nil, nil))
    private let ssdp = Locked<SSDPResponder?>(nil)
    /// The WSS port (nil when TLS is off).
    public var port: UInt16? { boundPorts.withLock { $0.tls } }
    public var plainPort: UInt16? { boundPorts.withLock { $0.plain } }
    public var fingerprint: CertificateFingerprint { state.withLock { $0.certificate.fingerprint } }
    public var clientKeys: Set<String> { state.withLock { $0.keys } }

    public static func start(_ configuration: Configuration, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) async throws -> EmulatedLGTV {
        let identity = try loadOrMakeIdentity(configuration)
        let tv = EmulatedLGTV(configuration: configuration, identity: identity, emit: onEvent)
        try tv.listen()
        if let ssdpPort = configuration.ssdpPort {
            let responder = try SSDPResponder(
                host: configuration.host, port: ssdpPort, searchTarget: LGWebOSAdapter.searchTarget,
                location: "http://\(configuration.host):\(tv.plainPort ?? tv.port ?? 0)/",
                usn: "uuid:\(configuration.uuid)::\(LGWebOSAdapter.searchTarget)"
            ) { from in onEvent(EmulatorEvent("ssdp_search", [("from", .string(from))])) }
            tv.ssdp.withLock { $0 = responder }
        }
        onEvent(
            EmulatorEvent(
                "ready",
                [
                    ("brand", .string(LGWebOSAdapter.brandID)), ("host", .string(configuration.host)), ("port", .int(Int(tv.port ?? 0))),
                    ("plain_port", .int(Int(tv.plainPort ?? 0))), ("fingerprint", .string(tv.fingerprint.description)),
                    ("name", .string(configuration.name)), ("mac", .string(configuration.mac)),
                    ("ssdp_port", .int(Int(tv.ssdp.withLock { $0?.port } ?? 0))),
                ]))
        return tv
    }

    private init(configuration: Configuration, identity: ClientIdentity, emit: @escaping @Sendable (EmulatorEvent) -> Void) {
        self.configuration = configuration
        let keys = EmulatorIssuedSecrets.load("client-keys.txt", in: configuration.stateDirectory)
        state = Locked(
            State(
                keys: keys, identity: identity, certificate: try! identity.certificateInfo(), misbehaviour: configuration.misbehaviour,
                powerState: configuration.powerState))
        self.emit = emit
    }

    /// LG's chain is "LGE TV SSG", issued by LG's private CA; this one is self-signed
    /// under the same subject.
    static func makeIdentity(freshKey: Bool = false) throws -> ClientIdentity {
        try EmulatorIdentity.selfSigned(subject: [("CN", "LGE TV SSG"), ("O", "LG Electronics Inc.")], freshKey: freshKey)
    }

    static func loadOrMakeIdentity(_ c: Configuration) throws -> ClientIdentity {
        try EmulatorIdentity.loadOrMake(in: c.stateDirectory) { try makeIdentity() }
    }

    func saveKeys() {
        try? EmulatorIssuedSecrets.save(clientKeys, as: "client-keys.txt", in: configuration.stateDirectory)
    }

    private func listen() throws {
        let (boundTLS, boundPlain) = boundPorts.withLock { ($0.tls, $0.plain) }
        let identity = state.withLock { $0.identity }
        var listeners: [any Sendable] = []
        var tasks: [Task<Void, Never>] = []
        var tlsPort: UInt16?
        var plainPort: UInt16?
        do {
            if let wanted = configuration.port {
                let tls = try TLSListener(
                    host: configuration.host, port: boundTLS ?? wanted,
                    configuration: TLSServerConfiguration(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM))
                listeners.append(tls)
                tlsPort = tls.port
                tasks.append(
                    Task {
                        await withTaskGroup(of: Void.self) { group in
                            while let pending = try? await tls.acceptPending() {
                                group.addTask {
                                    guard let stream = try? await pending.handshake() else { return }
                                    await self.serve(stream, secure: true)
                                }
                            }
                            group.cancelAll()
                        }
                    })
            }
            if let wanted = configuration.plainPort {
                let plain = try TCPListener(host: configuration.host, port: boundPlain ?? wanted)
                listeners.append(plain)
                plainPort = plain.port
                tasks.append(
                    Task {
                        await withTaskGroup(of: Void.self) { group in
                            while let stream = try? await plain.accept() {
                                group.addTask { await self.serve(stream, secure: false) }
                            }
                            group.cancelAll()
                        }
                    })
            }
        } catch {
            for l in listeners {
                (l as? TLSListener)?.close()
                (l as? TCPListener)?.close()
            }
            for t in tasks { t.cancel() }
            throw error
        }
        boundPorts.withLock { $0 = (tlsPort, plainPort) }
        state.withLock {
            $0.listeners = listeners
            $0.tasks = tasks
        }
    }

    public func stop() async {
        ssdp.withLock { $0?.stop() }
        let (listeners, tasks, clients, pointers) = state.withLock { s in
            defer {
                s.listeners = []
                s.tasks = []
                s.clients = [:]
                s.pointers = [:]
            }
            return (s.listeners, s.tasks, Array(s.clients.values), Array(s.pointers.values))
        }
        for l in listeners {
            (l as? TLSListener)?.close()
            (l as? TCPListener)?.close()
        }
        for t in tasks { t.cancel() }
        for c in clients { await c.connection.stream.close() }
        for p in pointers { await p.stream.close() }
    }

    /// A new certificate, as after a factory reset (or an impostor).
    public func rotateCertificate() async throws {
        guard configuration.port != nil else { throw PhotonError.unsupported("this emulated TV has no TLS port") }
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

    /// Forgets every client key, as after removing the apps on the TV.
    public func forgetKeys() {
        state.withLock { $0.keys.removeAll() }
        saveKeys()
        emit(EmulatorEvent("keys_revoked"))
    }

    /// From now on the user answers every prompt this way.
    public func setAccept(_ answer: Accept) { state.withLock { $0.acceptOverride = answer } }

    public func setMisbehaviour(_ m: Misbehaviour) { state.withLock { $0.misbehaviour = m } }

    /// Sends every main socket a frame, unchecked.
    public func broadcast(_ text: String) async {
        for client in state.withLock({ Array($0.clients.values) }) { try? await client.connection.send(.text(text)) }
    }

    /// Drops every connection without a close frame.
    public func dropAll() async {
        let (clients, pointers) = state.withLock { (Array($0.clients.values), Array($0.pointers.values)) }
        for c in clients { await c.connection.stream.close() }
        for p in pointers { await p.stream.close() }
    }

    /// Changes the power state as the TV's own remote would, telling subscribers.
    /// Sets the power state subscribers see; `processing` as the TV reports a change in
    /// progress ("Request Active Standby" while still Active).
    public func setPowerState(_ value: String, processing: String? = nil) async {
        state.withLock {
            $0.powerState = value
            $0.processing = processing
        }
        await push("com.webos.service.tvpower/power/getPowerState")
    }
}
