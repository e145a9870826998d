import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet
import Vizio

/// An emulated Vizio SmartCast TV: the HTTPS API with a self-signed certificate, PIN
/// pairing (the PIN shown as a `pin` event; a second start while one is pending blocks the
/// TV until it restarts, as real ones do), the `AUTH` token, settings changed by HASHVAL (a
/// stale one refused), both firmware generations (`legacy`: port 9000, no
/// `/state_extended`), answers in upper or lower case, and misbehaviour for tests.
public final class EmulatedVizio: Sendable {
    public enum Misbehaviour: String, Sendable { case none, slow, garbage, huge, close }

    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port.
        public var port: UInt16 = 7345
        public var serial = "LWZQPHOTON01"
        public var model = "P65Q9-J01"
        /// The PIN it shows (nil: a new random one each time).
        public var pin: String?
        /// Firmware before 4.0: no `/state_extended`.
        public var legacy = false
        /// Answers with every key in lower case (some firmware does).
        public var lowercase = false
        public var standby = false
        public var stateDirectory: URL?
        public init() {}
    }

    struct State {
        var standby: Bool
        var volume = 20
        var volumeHash = 1000
        var muted = false
        var input = "HDMI-1"
        var inputHash = 2000
        var picture = "Standard"
        var pictureHash = 3000
        var app: (space: Int, id: String, message: String?)?
        var pending: (device: String, token: Int, pin: String)?
        var blocked = false
        var tokens: Set<String> = []
        var misbehaviour = Misbehaviour.none
        var misbehaveOnce = false
        var connections: [Int: any ByteStream] = [:]
        var nextConnection = 0
        var identity: ClientIdentity
        var certificate: CertificateInfo
        var listener: TLSListener?
        var accepting: Task<Void, Never>?
    }

    public let configuration: Configuration
    let emit: @Sendable (EmulatorEvent) -> Void
    let state: Locked<State>
    /// The port it listens on, kept across a certificate rotation.
    public let port: UInt16

    /// Inputs as a TV lists them (`NAME` is what a switch sends; HDMI 2 renamed by the user).
    static let inputs: [(cname: String, name: String, label: String, standard: String)] = [
        ("hdmi1", "HDMI-1", "", "hdmi1"), ("hdmi2", "HDMI-2", "PlayStation", "hdmi2"), ("hdmi3", "HDMI-3", "", "hdmi3"),
        ("hdmi4", "HDMI-4", "", "hdmi4"), ("comp", "COMP", "", "component"), ("tv", "TV", "", "tv"), ("cast", "CAST", "", "cast"),
    ]
    static let pictureModes = ["Vivid", "Bright", "Calibrated", "Calibrated Dark", "Game", "Sports", "Standard", "Custom"]
    /// The apps it can launch (`NAME_SPACE:APP_ID`), as the app catalog maps them.
    static let apps: Set<String> = Set(VizioAdapter.appCatalogIDs.values.flatMap { $0 })

    public static func start(_ configuration: Configuration, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) throws -> EmulatedVizio {
        let tv = try EmulatedVizio(configuration: configuration, emit: onEvent)
        onEvent(
            EmulatorEvent(
                "ready",
                [
                    ("brand", .string("vizio")), ("host", .string(configuration.host)), ("port", .int(Int(tv.port))),
                    ("serial", .string(configuration.serial)), ("fingerprint", .string(tv.fingerprint.description)),
                ]))
        return tv
    }

    static func makeIdentity(freshKey: Bool = false) throws -> ClientIdentity {
        try EmulatorIdentity.selfSigned(subject: [("CN", "VIZIO SmartCast"), ("O", "VIZIO, Inc.")], freshKey: freshKey)
    }

    private init(configuration: Configuration, emit: @escaping @Sendable (EmulatorEvent) -> Void) throws {
        self.configuration = configuration
        self.emit = emit
        let identity = try EmulatorIdentity.loadOrMake(in: configuration.stateDirectory) { try Self.makeIdentity() }
        let listener = try Self.listen(configuration.host, configuration.port, identity)
        port = listener.port
        state = Locked(State(standby: configuration.standby, identity: identity, certificate: try identity.certificateInfo()))
        accept(on: listener)
    }

    private static func listen(_ host: String, _ port: UInt16, _ identity: ClientIdentity) throws -> TLSListener {
        try TLSListener(
            host: host, port: port,
            configuration: TLSServerConfiguration(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM))
    }

    private func accept(on listener: TLSListener) {
        let accepting = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                while let pending = try? await listener.acceptPending() {
                    group.addTask {
                        guard let stream = try? await pending.handshake(), let self else { return }
                        await self.serve(stream)
                    }
                }
                group.cancelAll()
            }
        }
        state.withLock { s in
            s.listener = listener
            s.accepting = accepting
        }
    }

    public var fingerprint: CertificateFingerprint { state.withLock { $0.certificate.fingerprint } }

    public func stop() async {
        let (listener, accepting, open) = state.withLock { s in
            defer {
                s.listener = nil
                s.accepting = nil
            }
            return (s.listener, s.accepting, Array(s.connections.values))
        }
        listener?.close()
        accepting?.cancel()
        for stream in open { await stream.close() }
    }

    /// A new certificate on the same port (a factory reset, or an impostor).
    public func rotateCertificate() async throws {
        let identity = try Self.makeIdentity(freshKey: true)
        let info = try identity.certificateInfo()
        await stop()
        state.withLock { s in
            s.identity = identity
            s.certificate = info
        }
        accept(on: try Self.listen(configuration.host, port, identity))
        emit(EmulatorEvent("certificate_rotated", [("fingerprint", .string(info.fingerprint.description))]))
    }

    public func misbehave(_ m: Misbehaviour) { state.withLock { $0.misbehaviour = m } }
    public func misbehaveOnce(_ m: Misbehaviour) {
        state.withLock {
            $0.misbehaviour = m
            $0.misbehaveOnce = true
        }
    }

    /// Forgets every paired device (and any block: a restart).
    public func forgetPairings() {
        state.withLock { s in
            s.tokens = []
            s.pending = nil
        }
    }

    /// Whether pairing is blocked (a start left unfinished, then another start).
    public var isBlocked: Bool { state.withLock { $0.blocked } }

    public func goAway() async { await stop() }

    private func serve(_ stream: any ByteStream) async {
        let id = state.withLock { s -> Int in
            s.nextConnection += 1
            s.connections[s.nextConnection] = stream
            return s.nextConnection
        }
        emit(EmulatorEvent("client_connected"))
        defer {
            _ = state.withLock { $0.connections.removeValue(forKey: id) }
            emit(EmulatorEvent("client_disconnected"))
        }
        while true {
            guard let request = try? await HTTPServerRequest.read(from: stream, maxBody: 64 * 1024, timeout: .seconds(120)) else { break }
            let misbehaviour = state.withLock { s -> Misbehaviour in
                let m = s.misbehaviour
                if s.misbehaveOnce, m != .none {
                    s.misbehaviour = .none
                    s.misbehaveOnce = false
                }
                return m
            }
            switch misbehaviour {
            case .close:
                await stream.close()
                return
            case .slow: try? await Task.sleep(for: .seconds(30))
            case .garbage:
                _ = try? await request.respond(
                    status: 200, reason: "OK", headers: ["Content-Type": "application/json"], body: Array("{\"STATUS\": {".utf8))
                continue
            case .huge:
                let body =
                    Array("{\"STATUS\": {\"RESULT\": \"SUCCESS\"}, \"X\": \"".utf8) + [UInt8](repeating: 0x61, count: 400 * 1024) + Array("\"}".utf8)
                _ = try? await request.respond(status: 200, reason: "OK", headers: ["Content-Type": "application/json"], body: body)
                continue
            case .none: break
            }
            let answer = Self.cased(answer(request), lower: configuration.lowercase)
            guard
                (try? await request.respond(
                    status: 200, reason: "OK", headers: ["Content-Type": "application/json"], body: Array(answer.encoded.utf8))) != nil
            else { break }
        }
        await stream.close()
    }

    /// Every key in lower case, for the firmware that answers so.
    static func cased(_ value: JSONValue, lower: Bool) -> JSONValue {
        guard lower else { return value }
        switch value {
        case .object(let pairs): return .object(pairs.map { ($0.0.lowercased(), cased($0.1, lower: true)) })
        case .array(let items): return .array(items.map { cased($0, lower: true) })
        default: return value
        }
    }

    static func status(_ result: String, detail: String? = nil) -> JSONValue {
        .object([("RESULT", .string(result)), ("DETAIL", .string(detail ?? result.capitalized))])
    }

    static func answer(_ result: String = "SUCCESS", _ fields: [(String, JSONValue)] = []) -> JSONValue {
        .object([("STATUS", status(result))] + fields)
    }

    static func item(_ cname: String, name: String, type: String = "T_VALUE_V1", value: JSONValue, hashval: Int? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = [("CNAME", .string(cname)), ("TYPE", .string(type)), ("NAME", .string(name)), ("VALUE", value)]
        if let hashval { fields.append(("HASHVAL", .int(hashval))) }
        return .object(fields)
    }

    /// The answer to one request.
    func answer(_ request: HTTPServerRequest) -> JSONValue {
        let path = request.target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.target
        let body = (try? JSONValue.parse(request.body, maximumDepth: 12)) ?? .object([])
        let field = { (key: String) in VizioJSON.field(body, key) }
        switch (request.method, path) {
        case ("PUT", "/pairing/start"):
            guard let device = VizioJSON.text(field("DEVICE_ID")), !device.isEmpty else { return Self.answer("INVALID_PARAMETER") }
            let outcome = state.withLock { s -> (String, Int)? in
                if s.blocked { return nil }
                if s.pending != nil {
                    // A start over an unfinished one: the TV blocks pairing until it restarts.
                    s.blocked = true
                    s.pending = nil
                    return nil
                }
                let pin = configuration.pin ?? String(format: "%04d", Int.random(in: 0...9999))
                let token = Int.random(in: 100_000...999_999)
                s.pending = (device, token, pin)
                return (pin, token)
            }
            guard let (pin, token) = outcome else {
                emit(EmulatorEvent("blocked"))
                return Self.answer("BLOCKED")
            }
            emit(EmulatorEvent("pin", [("code", .string(pin)), ("device", .string(device))]))
            return Self.answer("SUCCESS", [("ITEM", .object([("CHALLENGE_TYPE", .int(1)), ("PAIRING_REQ_TOKEN", .int(token))]))])
        case ("PUT", "/pairing/pair"):
            let device = VizioJSON.text(field("DEVICE_ID"))
            let token = VizioJSON.integer(field("PAIRING_REQ_TOKEN"))
            let typed = VizioJSON.text(field("RESPONSE_VALUE"))
            let issued = state.withLock { s -> String?? in
                guard let pending = s.pending, pending.device == device, pending.token == token else { return .some(nil) }
                guard typed == pending.pin else { return nil }
                s.pending = nil
                let auth = "Z" + (0..<9).map { _ in String(Int.random(in: 0...9)) }.joined()
                s.tokens.insert(auth)
                return .some(auth)
            }
            switch issued {
            case nil:
                emit(EmulatorEvent("pin_refused"))
                return Self.answer("CHALLENGE_INCORRECT")
            case .some(nil): return Self.answer("INVALID_PARAMETER")
            case .some(let auth?):
                emit(EmulatorEvent("paired", [("device", .string(device ?? ""))]))
                return Self.answer("SUCCESS", [("ITEM", .object([("AUTH_TOKEN", .string(auth))]))])
            }
        case ("PUT", "/pairing/cancel"):
            state.withLock { $0.pending = nil }
            emit(EmulatorEvent("pairing_cancelled"))
            return Self.answer()
        case ("GET", "/state/device/deviceinfo"):
            return Self.answer(
                "SUCCESS",
                [
                    (
                        "ITEMS",
                        .array([
                            Self.item(
                                "deviceinfo", name: "Device Info", type: "T_DEVICE_INFO_V1",
                                value: .object([
                                    ("MODEL_NAME", .string(configuration.model)),
                                    (
                                        "SYSTEM_INFO",
                                        .object([("MODEL_NAME", .string(configuration.model)), ("SERIAL_NUMBER", .string(configuration.serial))])
                                    ),
                                ]))
                        ])
                    )
                ])
        case ("GET", let p) where p.hasSuffix("/tv_information/serial_number"):
            // Served without a token, as pyvizio reads it.
            return Self.answer(
                "SUCCESS", [("ITEMS", .array([Self.item("serial_number", name: "Serial Number", value: .string(configuration.serial))]))])
        default: break
        }
        guard let auth = request.head["AUTH"], state.withLock({ $0.tokens.contains(auth) }) else {
            emit(EmulatorEvent("refused", [("path", .string(path))]))
            return Self.answer("REQUIRES_PAIRING")
        }
        if request.method == "GET" { emit(EmulatorEvent("read", [("path", .string(path))])) }
        return authorised(request.method, path, field)
    }

    /// Checks a MODIFY's HASHVAL against the setting's and moves the setting's on.
    func modify(_ field: (String) -> JSONValue?, hash: WritableKeyPath<State, Int>) -> Bool {
        guard VizioJSON.text(field("REQUEST"))?.uppercased() == "MODIFY", let quoted = VizioJSON.integer(field("HASHVAL")) else { return false }
        return state.withLock { s in
            guard s[keyPath: hash] == quoted else { return false }
            s[keyPath: hash] += 1
            return true
        }
    }
}
