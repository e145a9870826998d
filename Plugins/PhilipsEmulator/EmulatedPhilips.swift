import Foundation
import Philips
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet

/// An emulated Philips Android TV (JointSpace 6): `system` with its encrypted fields on
/// plain HTTP (or, as newer firmware does, an empty 200 there and the answer on HTTPS
/// only), the HTTPS API with a self-signed certificate, PIN pairing signed with the shared
/// key, HTTP Digest on every call (a nonce reused forever with `nc=00000001` accepted, as
/// real TVs do), keys, apps, sources, channels, volume, power, Ambilight, the
/// `notifychange` long-poll, standby with and without the network, and misbehaviour.
public final class EmulatedPhilips: Sendable {
    public enum Misbehaviour: String, Sendable { case none, slow, garbage, huge, close }

    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port.
        public var httpsPort: UInt16 = 1926
        public var httpPort: UInt16 = 1925
        public var serial = "FZ1A2345678901"
        public var model = "65OLED855/12"
        /// The PIN it shows (nil: a new random one each time).
        public var pin: String?
        public var standby = false
        /// Whether the network stays up in standby ("switch on with Wi-Fi"); without it a
        /// TV in standby answers nothing.
        public var networkInStandby = true
        /// Newer firmware: `system` only on HTTPS (an empty 200 on plain HTTP).
        public var systemOnHTTPSOnly = false
        /// How long a `notifychange` is held when nothing changes.
        public var notifyHold: Duration = .seconds(30)
        public var stateDirectory: URL?
        public init() {}
    }

    struct State {
        var standby: Bool
        var volume = 18
        var muted = false
        var activity: JSONValue = EmulatedPhilips.launcherActivity
        var ccid = 1648
        var ambilightPower = true
        var ambilightStyle = "FOLLOW_VIDEO"
        var ambilightSetting = "STANDARD"
        /// The pairing shown on screen: the device, its auth key, PIN and timestamp.
        var pending: (device: String, authKey: String, pin: String, timestamp: Int)?
        var paired: [String: String] = [:]
        var nonces: Set<String> = []
        var misbehaviour = Misbehaviour.none
        var misbehaveOnce = false
        /// Counts misbehaviours set, with the last one: every `notifychange` held when one
        /// is set acts on it (an old client's held call must not swallow it).
        var misbehaviourSet = (count: 0, kind: Misbehaviour.none)
        var version = 0
        var connections: [Int: any ByteStream] = [:]
        var nextConnection = 0
        var identity: ClientIdentity
        var certificate: CertificateInfo
        var tlsListener: TLSListener?
        var plainListener: TCPListener?
        var tasks: [Task<Void, Never>] = []
    }

    public let configuration: Configuration
    let emit: @Sendable (EmulatorEvent) -> Void
    let state: Locked<State>
    public let httpsPort: UInt16
    public let httpPort: UInt16
    let systemAnswer: JSONValue

    static let launcherActivity: JSONValue = .object([
        (
            "component",
            .object([
                ("packageName", "com.google.android.tvlauncher"), ("className", "com.google.android.tvlauncher.MainActivity"),
            ])
        )
    ])

    public static func start(_ configuration: Configuration, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) throws -> EmulatedPhilips {
        let tv = try EmulatedPhilips(configuration: configuration, emit: onEvent)
        onEvent(
            EmulatorEvent(
                "ready",
                [
                    ("brand", .string("philips")), ("host", .string(configuration.host)), ("port", .int(Int(tv.httpsPort))),
                    ("http_port", .int(Int(tv.httpPort))), ("serial", .string(configuration.serial)),
                    ("fingerprint", .string(tv.fingerprint.description)),
                ]))
        return tv
    }

    static func makeIdentity(freshKey: Bool = false) throws -> ClientIdentity {
        try EmulatorIdentity.selfSigned(subject: [("CN", "Philips TV"), ("O", "TP Vision")], freshKey: freshKey)
    }

    private init(configuration: Configuration, emit: @escaping @Sendable (EmulatorEvent) -> Void) throws {
        self.configuration = configuration
        self.emit = emit
        systemAnswer = try Self.system(configuration)
        let identity = try EmulatorIdentity.loadOrMake(in: configuration.stateDirectory) { try Self.makeIdentity() }
        let tls = try Self.listen(configuration.host, configuration.httpsPort, identity)
        let plain = try TCPListener(host: configuration.host, port: configuration.httpPort)
        httpsPort = tls.port
        httpPort = plain.port
        state = Locked(State(standby: configuration.standby, identity: identity, certificate: try identity.certificateInfo()))
        accept(tls: tls)
        accept(plain: plain)
    }

    private static func listen(_ host: String, _ port: UInt16, _ identity: ClientIdentity) throws -> TLSListener {
        try TLSListener(
            host: host, port: port,
            configuration: TLSServerConfiguration(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM))
    }

    /// `system` as an Android TV of API 6.4 sends it, the identifying fields encrypted.
    static func system(_ configuration: Configuration) throws -> JSONValue {
        .object([
            ("notifyChange", "http"), ("menulanguage", "English"), ("name", .string(configuration.model)), ("country", "Netherlands"),
            ("serialnumber_encrypted", .string(try PhilipsSharedKey.encrypt(configuration.serial))),
            ("softwareversion_encrypted", .string(try PhilipsSharedKey.encrypt("TPM191E_R.101.001.208.001"))),
            ("model_encrypted", .string(try PhilipsSharedKey.encrypt(configuration.model))),
            ("deviceid_encrypted", .string(try PhilipsSharedKey.encrypt("1234567890"))), ("nettvversion", "9.0.0"),
            ("epgsource", "broadcast"), ("api_version", .object([("Major", 6), ("Minor", 4), ("Patch", 0)])),
            (
                "featuring",
                .object([
                    (
                        "jsonfeatures",
                        .object([
                            ("ambilight", .array(["LoungeLight", "Hue", "Ambilight"])), ("applications", .array(["TV_Apps", "TV_Games"])),
                            ("inputkey", .array(["key"])), ("activities", .array(["intent"])), ("textentry", .array(["not_available"])),
                        ])
                    ),
                    (
                        "systemfeatures",
                        .object([
                            ("tvtype", "consumer"), ("pairing_type", "digest_auth_pairing"), ("secured_transport", "true"),
                            ("companion_screen", "true"),
                        ])
                    ),
                ])
            ),
            ("os_type", "MSAF_2019_P"),
        ])
    }

    private func accept(tls listener: TLSListener) {
        let task = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                while let pending = try? await listener.acceptPending() {
                    group.addTask {
                        guard let stream = try? await pending.handshake(), let self else { return }
                        await self.serve(stream, secure: true)
                    }
                }
                group.cancelAll()
            }
        }
        state.withLock { s in
            s.tlsListener = listener
            s.tasks.append(task)
        }
    }

    private func accept(plain listener: TCPListener) {
        let task = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                while let stream = try? await listener.accept() {
                    group.addTask { [weak self] in await self?.serve(stream, secure: false) }
                }
                group.cancelAll()
            }
        }
        state.withLock { s in
            s.plainListener = listener
            s.tasks.append(task)
        }
    }

    public var fingerprint: CertificateFingerprint { state.withLock { $0.certificate.fingerprint } }

    public func stop() async {
        let (tls, plain, tasks, open) = state.withLock { s in
            defer {
                s.tlsListener = nil
                s.plainListener = nil
                s.tasks = []
            }
            return (s.tlsListener, s.plainListener, s.tasks, Array(s.connections.values))
        }
        tls?.close()
        plain?.close()
        for task in tasks { task.cancel() }
        for stream in open { await stream.close() }
    }

    /// A new certificate on the same HTTPS port (a factory reset, or an impostor).
    public func rotateCertificate() async throws {
        let identity = try Self.makeIdentity(freshKey: true)
        let info = try identity.certificateInfo()
        let (tls, open) = state.withLock { s in
            defer { s.tlsListener = nil }
            return (s.tlsListener, Array(s.connections.values))
        }
        tls?.close()
        for stream in open { await stream.close() }
        state.withLock { s in
            s.identity = identity
            s.certificate = info
        }
        accept(tls: try Self.listen(configuration.host, httpsPort, identity))
        emit(EmulatorEvent("certificate_rotated", [("fingerprint", .string(info.fingerprint.description))]))
    }

    public func misbehave(_ m: Misbehaviour) {
        state.withLock {
            $0.misbehaviour = m
            $0.misbehaviourSet = ($0.misbehaviourSet.count + 1, m)
        }
    }
    public func misbehaveOnce(_ m: Misbehaviour) {
        state.withLock {
            $0.misbehaviour = m
            $0.misbehaveOnce = true
            $0.misbehaviourSet = ($0.misbehaviourSet.count + 1, m)
        }
    }

    /// Forgets every paired device (Settings → remove paired devices).
    public func forgetPairings() {
        state.withLock { s in
            s.paired = [:]
            s.pending = nil
        }
    }

    /// Closes every connection and stops answering.
    public func goAway() async { await stop() }

    /// Standby (`on` false) or on, as the remote's power key does.
    public func setPower(on: Bool) { change { $0.standby = !on } }

    /// The misbehaviour to act on now (a one-off one is used up).
    func takeMisbehaviour() -> Misbehaviour {
        state.withLock { s -> Misbehaviour in
            let m = s.misbehaviour
            if s.misbehaveOnce, m != .none {
                s.misbehaviour = .none
                s.misbehaveOnce = false
            }
            return m
        }
    }

    /// Changes the state and wakes every waiting `notifychange`.
    func change(_ body: (inout State) -> Void) {
        state.withLock { s in
            body(&s)
            s.version += 1
        }
    }

    private func serve(_ stream: any ByteStream, secure: Bool) async {
        let id = state.withLock { s -> Int in
            s.nextConnection += 1
            s.connections[s.nextConnection] = stream
            return s.nextConnection
        }
        emit(EmulatorEvent("client_connected", [("secure", .bool(secure))]))
        defer {
            _ = state.withLock { $0.connections.removeValue(forKey: id) }
            emit(EmulatorEvent("client_disconnected"))
        }
        while true {
            guard let request = try? await HTTPServerRequest.read(from: stream, maxBody: 64 * 1024, timeout: .seconds(150)) else { break }
            if state.withLock({ $0.standby }) && !configuration.networkInStandby { break }
            let misbehaviour = request.path.hasSuffix("/notifychange") ? .none : takeMisbehaviour()
            if let answered = await misbehave(misbehaviour, request: request, stream: stream) {
                if answered { continue } else { return }
            }
            let answer = await answer(request, secure: secure)
            var headers = ["Content-Type": answer.contentType]
            if let challenge = answer.challenge { headers["WWW-Authenticate"] = challenge }
            guard (try? await request.respond(status: answer.status, reason: Self.reason(answer.status), headers: headers, body: answer.body)) != nil
            else { break }
        }
        await stream.close()
    }

    /// Acts on a misbehaviour: nil when there is none, true when it answered (go on),
    /// false when it closed the connection.
    func misbehave(_ misbehaviour: Misbehaviour, request: HTTPServerRequest, stream: any ByteStream) async -> Bool? {
        switch misbehaviour {
        case .none: return nil
        case .close:
            await stream.close()
            return false
        case .slow:
            try? await Task.sleep(for: .seconds(30))
            return nil
        case .garbage:
            _ = try? await request.respond(
                status: 200, reason: "OK", headers: ["Content-Type": "application/json"], body: Array("{\"powerstate\": [".utf8))
            return true
        case .huge:
            let body = Array("{\"x\": \"".utf8) + [UInt8](repeating: 0x61, count: 600 * 1024) + Array("\"}".utf8)
            _ = try? await request.respond(status: 200, reason: "OK", headers: ["Content-Type": "application/json"], body: body)
            return true
        }
    }

    static func reason(_ status: Int) -> String {
        [200: "OK", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error"][status] ?? "Error"
    }
}
