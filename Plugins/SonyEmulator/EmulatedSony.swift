import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import Sony

/// An emulated Sony Bravia: IP control's JSON-RPC services and IRCC-SOAP over HTTP/1.1 with
/// keep-alive, PIN registration (the PIN shown as a `pin` event) with cookies that expire,
/// a pre-shared key, a case-sensitive IRCC path, IRCC that ignores the first code after a
/// nap, standby, and misbehaviour for tests. Reports what it receives as `EmulatorEvent`s.
public final class EmulatedSony: Sendable {
    public enum Misbehaviour: String, Sendable { case none, slow, garbage, huge, close }

    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port.
        public var port: UInt16 = 80
        public var serial = "7000123"
        public var name = "BRAVIA"
        public var model = "KD-55X85J"
        public var mac = "02:00:00:53:4F:4E"
        /// The pre-shared key it accepts (nil: PIN registration only).
        public var psk: String?
        /// The PIN it shows (nil: a new random one each time).
        public var pin: String?
        /// How long a cookie lasts (Bravias: 14 days, or until a reboot).
        public var cookieLifetime: TimeInterval = 1_209_600
        /// `ircc` or `IRCC`: the one path this TV serves IRCC on.
        public var irccPath = "ircc"
        /// Ignores the first IRCC code after this long without one (nil: never naps).
        public var irccNap: TimeInterval?
        public var standby = false
        public init() {}
    }

    struct State {
        var standby: Bool
        var volume = 18
        var muted = false
        var input = "extInput:hdmi?port=1"
        var app: String?
        var sound = "speaker"
        var picture = "standard"
        var pendingPIN: String?
        /// Registered clients by client id, with the PIN they registered with.
        var registered: [String: String] = [:]
        /// Live cookies: client id and expiry.
        var cookies: [String: (client: String, expires: Date)] = [:]
        var lastIRCC: Date?
        var misbehaviour = Misbehaviour.none
        var misbehaveOnce = false
        var connections: [Int: SocketStream] = [:]
        var nextConnection = 0
    }

    public let configuration: Configuration
    let emit: @Sendable (EmulatorEvent) -> Void
    let listener: TCPListener
    let state: Locked<State>
    private let tasks = Locked<[Task<Void, Never>]>([])
    public var port: UInt16 { listener.port }

    /// The inputs (HDMI 2 renamed by the user).
    static let inputs: [(uri: String, title: String, label: String, standard: String)] = [
        ("extInput:hdmi?port=1", "HDMI 1", "", "hdmi1"), ("extInput:hdmi?port=2", "HDMI 2", "PlayStation", "hdmi2"),
        ("extInput:hdmi?port=3", "HDMI 3", "", "hdmi3"), ("extInput:hdmi?port=4", "HDMI 4/ARC", "", "hdmi4"),
        ("extInput:composite?port=1", "AV", "", "av"),
    ]
    static let apps: [(uri: String, title: String)] =
        [
            (SonyAdapter.appCatalogIDs["netflix"]![0], "Netflix"), (SonyAdapter.appCatalogIDs["youtube"]![0], "YouTube"),
            (SonyAdapter.appCatalogIDs["prime-video"]![0], "Prime Video"),
            ("com.sony.dtv.com.sony.dtv.tvplayer.com.sony.dtv.tvplayer.MainActivity", "TV"),
        ]
    static let soundOutputs = ["speaker", "audioSystem", "speaker_hdmi"]
    static let pictureModes = ["vivid", "standard", "cinemaPro", "cinemaHome", "sports", "animation", "game", "graphics", "custom"]
    /// The tuner's channels: 60, so that a list takes two pages.
    static let channels: [(uri: String, number: String, title: String)] = (1...60).map { n in
        ("tv:dvbt?trip=8468.\(1000 + n).\(n)&srvName=Photon%20\(n)", String(format: "%03d", n), n == 7 ? "Photon News" : "Photon \(n)")
    }
    /// The remote's keys: Photon's names and a few of Sony's own, with IRCC codes shaped as
    /// Bravias give them (known codes where they are known).
    static let keyCodes: [(name: String, code: String)] = {
        let known: [String: UInt8] = ["TvPower": 21, "WakeUp": 46, "PowerOff": 47, "Home": 96, "Confirm": 101, "Up": 116, "Down": 117]
        let names = Array(Set(SonyKeys.table.values)).sorted() + ["Netflix", "PicOff", "Teletext", "Exit"]
        var next: UInt8 = 130
        return names.map { name in
            let number =
                known[name]
                ?? { () -> UInt8 in
                    defer { next += 1 }
                    return next
                }()
            return (name, Data([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, number, 3]).base64EncodedString())
        }
    }()

    public static func start(_ configuration: Configuration, onEvent: @escaping @Sendable (EmulatorEvent) -> Void) throws -> EmulatedSony {
        let tv = try EmulatedSony(configuration: configuration, emit: onEvent)
        onEvent(
            EmulatorEvent(
                "ready",
                [
                    ("brand", .string("sony")), ("host", .string(configuration.host)), ("port", .int(Int(tv.port))),
                    ("serial", .string(configuration.serial)),
                ]))
        return tv
    }

    private init(configuration: Configuration, emit: @escaping @Sendable (EmulatorEvent) -> Void) throws {
        self.configuration = configuration
        self.emit = emit
        listener = try TCPListener(host: configuration.host, port: configuration.port)
        state = Locked(State(standby: configuration.standby))
        let accepting = Task { [listener, weak self] in
            while let stream = try? await listener.accept() {
                guard let self else { return }
                let id = self.state.withLock { s -> Int in
                    s.nextConnection += 1
                    s.connections[s.nextConnection] = stream
                    return s.nextConnection
                }
                let task = Task { await self.serve(stream, id: id) }
                self.tasks.withLock { $0.append(task) }
            }
        }
        tasks.withLock { $0.append(accepting) }
    }

    public func stop() async {
        listener.close()
        for task in tasks.withLock({ $0 }) { task.cancel() }
        for stream in state.withLock({ Array($0.connections.values) }) { await stream.close() }
    }

    public func misbehave(_ m: Misbehaviour) { state.withLock { $0.misbehaviour = m } }
    public func misbehaveOnce(_ m: Misbehaviour) {
        state.withLock {
            $0.misbehaviour = m
            $0.misbehaveOnce = true
        }
    }

    /// A reboot: every cookie is gone; registrations stay, so a client registers again
    /// with its PIN.
    public func reboot() { state.withLock { $0.cookies = [:] } }

    /// Removes every registered device (Settings → Network → Remote device settings).
    public func forgetRegistrations() {
        state.withLock { s in
            s.registered = [:]
            s.cookies = [:]
        }
    }

    /// Closes every connection and stops answering.
    public func goAway() async {
        listener.close()
        for stream in state.withLock({ Array($0.connections.values) }) { await stream.close() }
    }

    private func serve(_ stream: SocketStream, id: Int) async {
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
                    status: 200, reason: "OK", headers: ["Content-Type": "application/json"], body: Array("{\"result\": [".utf8))
                continue
            case .huge:
                let body = Array("{\"result\": [\"".utf8) + [UInt8](repeating: 0x61, count: 600 * 1024) + Array("\"]}".utf8)
                _ = try? await request.respond(status: 200, reason: "OK", headers: ["Content-Type": "application/json"], body: body)
                continue
            case .none: break
            }
            let (status, body, headers) = answer(request)
            guard (try? await request.respond(status: status, reason: Self.reason(status), headers: headers, body: body)) != nil else { break }
        }
        await stream.close()
    }

    static func reason(_ status: Int) -> String {
        [200: "OK", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error"][status] ?? "Error"
    }

    typealias Reply = (Int, [UInt8], [String: String])

    func answer(_ request: HTTPServerRequest) -> Reply {
        let path = request.target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.target
        guard request.method == "POST", path.hasPrefix("/sony/") else { return (404, [], [:]) }
        let service = String(path.dropFirst(6))
        if service.lowercased() == "ircc" {
            guard service == configuration.irccPath else { return (404, [], [:]) }
            guard authorised(request) else { return (403, [], [:]) }
            return ircc(request.body)
        }
        guard let call = try? JSONValue.parse(request.body, maximumDepth: 12), let method = call["method"]?.stringValue else {
            return json(.object([("error", .array([.int(2), .string("Illegal JSON")])), ("id", .int(0))]))
        }
        let id = call["id"] ?? .int(0)
        let params = call["params"]?.arrayValue ?? []
        if service == "accessControl" && method == "actRegister" { return register(request, params: params, id: id) }
        if !(service == "system" && method == "getInterfaceInformation") && !authorised(request) {
            emit(EmulatorEvent("refused", [("method", .string(method))]))
            return (403, Array("{\"error\": [403, \"Forbidden\"]}".utf8), ["Content-Type": "application/json"])
        }
        // A read of the TV's state (what a test checks the order of against a key).
        if method.hasPrefix("get") { emit(EmulatorEvent("read", [("method", .string(method))])) }
        switch rpc(service, method, params.first ?? .null) {
        case .success(let result): return json(.object([("result", .array(result)), ("id", id)]))
        case .failure(let error): return json(.object([("error", .array([.int(error.code), .string(error.message)])), ("id", id)]))
        }
    }

    private func json(_ value: JSONValue) -> Reply { (200, Array(value.encoded.utf8), ["Content-Type": "application/json"]) }

    /// A pre-shared key that matches, or a live cookie.
    private func authorised(_ request: HTTPServerRequest) -> Bool {
        if let psk = configuration.psk, request.head["X-Auth-PSK"] == psk { return true }
        guard let header = request.head["Cookie"] else { return false }
        let cookie = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("auth=") }.map {
            String($0.dropFirst(5))
        }
        return state.withLock { s in
            guard let cookie, let live = s.cookies[cookie] else { return false }
            guard live.expires > Date() else {
                s.cookies[cookie] = nil
                return false
            }
            return s.registered[live.client] != nil
        }
    }

    /// `actRegister`: `0000` shows a PIN (401); the PIN shown, or the one a client
    /// registered with before, gives a cookie.
    private func register(_ request: HTTPServerRequest, params: [JSONValue], id: JSONValue) -> Reply {
        guard let client = params.first?["clientid"]?.stringValue, !client.isEmpty else {
            return json(.object([("error", .array([.int(3), .string("Illegal Argument")])), ("id", id)]))
        }
        let typed = request.head["Authorization"].flatMap { header -> String? in
            guard header.hasPrefix("Basic "), let data = Data(base64Encoded: String(header.dropFirst(6))) else { return nil }
            return String(decoding: data, as: UTF8.self).split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).last.map(String.init)
        }
        let outcome = state.withLock { s -> String? in
            guard let typed, typed != "0000" || s.registered[client] == "0000" else {
                s.pendingPIN = configuration.pin ?? String(format: "%04d", Int.random(in: 0...9999))
                return nil
            }
            guard typed == s.pendingPIN || s.registered[client] == typed else { return nil }
            s.pendingPIN = nil
            s.registered[client] = typed
            let cookie = (0..<24).map { _ in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".randomElement()! }.map(String.init)
                .joined()
            s.cookies[cookie] = (client, Date().addingTimeInterval(configuration.cookieLifetime))
            return cookie
        }
        guard let cookie = outcome else {
            if typed == nil || typed == "0000", let shown = state.withLock({ $0.pendingPIN }) {
                emit(EmulatorEvent("pin", [("code", .string(shown)), ("client", .string(client))]))
            } else {
                emit(EmulatorEvent("pin_refused", [("client", .string(client))]))
            }
            return (401, Array("{\"error\": [401, \"Unauthorized\"]}".utf8), ["Content-Type": "application/json"])
        }
        emit(EmulatorEvent("registered", [("client", .string(client))]))
        var reply = json(.object([("result", .array([])), ("id", id)]))
        reply.2["Set-Cookie"] =
            "auth=\(cookie); Path=/sony/; Max-Age=\(Int(configuration.cookieLifetime)); Expires=Thu, 01 Jan 2099 00:00:00 GMT+00:00"
        return reply
    }

    /// IRCC-SOAP: the code's key by name, or a SOAP fault for a code it does not have. An
    /// empty code wakes IRCC up; after a nap the first real code is ignored.
    private func ircc(_ body: [UInt8]) -> Reply {
        let text = String(decoding: body, as: UTF8.self)
        guard let open = text.range(of: "<IRCCCode>"), let close = text.range(of: "</IRCCCode>"), open.upperBound <= close.lowerBound else {
            return (500, Array("<s:Fault>no IRCCCode</s:Fault>".utf8), ["Content-Type": "text/xml"])
        }
        let code = String(text[open.upperBound..<close.lowerBound])
        let now = Date()
        let napped = state.withLock { s -> Bool in
            defer { s.lastIRCC = now }
            guard let nap = configuration.irccNap else { return false }
            return s.lastIRCC.map { now.timeIntervalSince($0) > nap } ?? true
        }
        if code.isEmpty { return (200, [], ["Content-Type": "text/xml"]) }
        guard let key = Self.keyCodes.first(where: { $0.code == code }) else {
            return (500, Array("<s:Fault><errorCode>800</errorCode></s:Fault>".utf8), ["Content-Type": "text/xml"])
        }
        if napped {
            emit(EmulatorEvent("ignored", [("key", .string(key.name))]))
            return (200, [], ["Content-Type": "text/xml"])
        }
        state.withLock { s in
            switch key.name {
            case "TvPower": s.standby.toggle()
            case "Home": s.app = nil
            case "VolumeUp": s.volume = min(100, s.volume + 1)
            case "VolumeDown": s.volume = max(0, s.volume - 1)
            case "Mute": s.muted.toggle()
            default: break
            }
        }
        emit(EmulatorEvent("key", [("key", .string(key.name))]))
        return (200, [], ["Content-Type": "text/xml"])
    }
}
