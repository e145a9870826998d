import AndroidTV
import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet

/// An Android TV that speaks both ports of the Remote v2 protocol for real over TLS, for
/// tests, demos and benchmarks. It has its own RSA identity with a certificate subject
/// shaped like a real TV's, shows pairing codes as events, keeps a paired-client list
/// (optionally persisted), rejects unpaired clients right after the TLS handshake, pings,
/// reports power/volume/app, takes text, app links and voice, and can be told to
/// misbehave.
public final class EmulatedAndroidTV: Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port.
        public var remotePort: UInt16 = 6466
        /// nil: remote port + 1 (or a free one when the remote port is 0).
        public var pairingPort: UInt16?
        public var name = "Photon Emulated TV"
        public var mac = "02:00:00:AA:BB:CC"
        /// The TV's feature mask (639: everything; 637: a TV that refuses keys).
        public var features: Int32 = 639
        public var stateDirectory: URL?
        public var pingInterval: Duration = .seconds(5)
        public var model = "Emulated TV"
        /// Whether SEARCH opens a voice session (false: a TV whose assistant is off, which
        /// takes the key and never sends voice_begin).
        public var startsVoice = true

        public init() {}
    }

    /// Ways to misbehave, for tests of the client's defences.
    public enum Misbehaviour: Sendable, Equatable {
        case none
        /// Stop sending anything (pings included) and stop answering.
        case silent
        /// Send a frame whose protobuf is garbage.
        case malformedFrames
        /// Announce a frame larger than any limit.
        case oversizeFrames
    }

    struct State {
        var paired: Set<String> = []
        var identity: ClientIdentity
        var certificate: CertificateInfo
        var power = true
        var volume = RemoteVolume(playerModel: "Emulated TV", level: 10, maximum: 100, muted: false)
        var app = "com.google.android.tvlauncher"
        var misbehaviour = Misbehaviour.none
        var sessions: [UInt64: FramedStream] = [:]
        /// The features each session activated, for state reports to every remote.
        var activeFeatures: [UInt64: RemoteFeatures] = [:]
        var nextSession: UInt64 = 1
        var listeners: [TLSListener] = []
        var acceptTasks: [Task<Void, Never>] = []
        var voiceSession: Int32 = 0
    }

    public let configuration: Configuration
    let state: Locked<State>
    let emit: @Sendable (EmulatorEvent) -> Void
    private let boundPorts = Locked<(remote: UInt16, pairing: UInt16)>((0, 0))
    public var remotePort: UInt16 { boundPorts.withLock { $0.remote } }
    public var pairingPort: UInt16 { boundPorts.withLock { $0.pairing } }

    /// Makes the TV (its identity is loaded from the state directory or generated) and
    /// starts listening on both ports.
    public static func start(
        _ configuration: Configuration, onEvent: @escaping @Sendable (EmulatorEvent) -> Void
    ) async throws -> EmulatedAndroidTV {
        let identity = try loadOrMakeIdentity(configuration)
        let paired = loadPaired(configuration)
        let tv = EmulatedAndroidTV(configuration: configuration, identity: identity, paired: paired, emit: onEvent)
        try tv.listen()
        onEvent(
            EmulatorEvent(
                "ready",
                [
                    ("brand", .string("androidtv")), ("host", .string(configuration.host)), ("port", .int(Int(tv.remotePort))),
                    ("pairing_port", .int(Int(tv.pairingPort))), ("fingerprint", .string(tv.fingerprint.description)),
                    ("name", .string(configuration.name)), ("mac", .string(configuration.mac)),
                ]))
        return tv
    }

    private init(configuration: Configuration, identity: ClientIdentity, paired: Set<String>, emit: @escaping @Sendable (EmulatorEvent) -> Void) {
        self.configuration = configuration
        let info = (try? identity.certificateInfo())!
        state = Locked(State(paired: paired, identity: identity, certificate: info))
        self.emit = emit
    }

    public var fingerprint: CertificateFingerprint { state.withLock { $0.certificate.fingerprint } }
    public var certificate: CertificateInfo { state.withLock { $0.certificate } }
    public var pairedClients: Set<String> { state.withLock { $0.paired } }
    public var connectedClients: Int { state.withLock { $0.sessions.count } }

    /// `atvremote/<product>/<device>/<model>/<MAC>`, with the name shortened to keep the
    /// CN within X.509's 64 characters.
    static func subject(_ c: Configuration) -> [(String, String)] {
        let fixed = "atvremote/photon/emulator//\(c.mac)".count
        return [("CN", "atvremote/photon/emulator/\(c.name.prefix(max(1, 64 - fixed)))/\(c.mac)")]
    }

    static func makeIdentity(_ c: Configuration, freshKey: Bool = false) throws -> ClientIdentity {
        try EmulatorIdentity.selfSigned(subject: subject(c), subjectAltNames: ["DNS:androidtv.local"], freshKey: freshKey)
    }

    static func loadOrMakeIdentity(_ c: Configuration) throws -> ClientIdentity {
        try EmulatorIdentity.loadOrMake(in: c.stateDirectory) { try makeIdentity(c) }
    }

    static func loadPaired(_ c: Configuration) -> Set<String> {
        guard let dir = c.stateDirectory,
            let text = try? String(contentsOf: dir.appendingPathComponent("paired-clients.txt"), encoding: .utf8)
        else { return [] }
        return Set(text.split(separator: "\n").map(String.init))
    }

    func savePaired() {
        guard let dir = configuration.stateDirectory else { return }
        let text = state.withLock { $0.paired.sorted().joined(separator: "\n") } + "\n"
        try? text.write(to: dir.appendingPathComponent("paired-clients.txt"), atomically: true, encoding: .utf8)
    }

    // MARK: listening

    private func listen() throws {
        let identity = state.withLock { $0.identity }
        // After the first start the ports stay the same (a restart is the same TV).
        let (boundRemote, boundPairing) = boundPorts.withLock { ($0.remote, $0.pairing) }
        let config = TLSServerConfiguration(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
        // The remote port refuses a client certificate it has not paired inside the
        // handshake, with a TLS alert (certificate unknown), as real TVs do.
        var remoteConfig = config
        remoteConfig.acceptsClient = { [weak self] fingerprint in
            guard let self else { return false }
            guard self.pairedClients.contains(fingerprint.compactHex) else {
                self.emit(EmulatorEvent("client_rejected", [("reason", .string("client certificate not paired"))]))
                return false
            }
            return true
        }
        let remote = try TLSListener(
            host: configuration.host, port: boundRemote != 0 ? boundRemote : configuration.remotePort, configuration: remoteConfig)
        let wantedPairing =
            boundPairing != 0
            ? boundPairing : (configuration.pairingPort ?? (configuration.remotePort == 0 ? 0 : configuration.remotePort + 1))
        let pairing: TLSListener
        do {
            pairing = try TLSListener(host: configuration.host, port: wantedPairing, configuration: config)
        } catch {
            remote.close()
            throw error
        }
        boundPorts.withLock { $0 = (remote.port, pairing.port) }
        let remoteTask = Task { await self.acceptLoop(remote) { await self.serveRemote($0) } }
        let pairingTask = Task { await self.acceptLoop(pairing) { await self.servePairing($0) } }
        state.withLock {
            $0.listeners = [remote, pairing]
            $0.acceptTasks = [remoteTask, pairingTask]
        }
    }

    private func acceptLoop(_ listener: TLSListener, _ serve: @escaping @Sendable (TLSStream) async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            while !Task.isCancelled {
                let pending: PendingTLSConnection
                do {
                    pending = try await listener.acceptPending()
                } catch {
                    break
                }
                group.addTask {
                    do {
                        let stream = try await pending.handshake()
                        await serve(stream)
                    } catch {
                        self.emit(EmulatorEvent("client_rejected", [("reason", .string("TLS handshake failed: \(PhotonError.wrap(error).message)"))]))
                    }
                }
            }
            group.cancelAll()
        }
    }

    /// Stops listening and drops every client.
    public func stop() async {
        let (listeners, tasks, sessions) = state.withLock { s in
            defer {
                s.listeners = []
                s.acceptTasks = []
                s.sessions = [:]
            }
            return (s.listeners, s.acceptTasks, Array(s.sessions.values))
        }
        for l in listeners { l.close() }
        for t in tasks { t.cancel() }
        for s in sessions { await s.close() }
    }

    /// Drops every client and listens again on the same ports (a TV reboot).
    public func restart() async throws {
        await stop()
        try listen()
        emit(EmulatorEvent("restarted"))
    }

    /// A new certificate (a factory reset, or an impostor): paired clients should refuse it.
    public func rotateCertificate() async throws {
        let identity = try Self.makeIdentity(configuration, freshKey: true)
        let info = try identity.certificateInfo()
        state.withLock {
            $0.identity = identity
            $0.certificate = info
        }
        try await restart()
        emit(EmulatorEvent("certificate_rotated", [("fingerprint", .string(info.fingerprint.description))]))
    }

    public func setMisbehaviour(_ m: Misbehaviour) { state.withLock { $0.misbehaviour = m } }

    /// Forgets a paired client (as clearing the TV's remote service storage does).
    public func unpairAll() {
        state.withLock { $0.paired.removeAll() }
        savePaired()
    }
}
