import Foundation
import Philips
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet

/// One answer of the emulated TV.
struct PhilipsEmulatorAnswer {
    var status = 200
    var body: [UInt8] = []
    var contentType = "application/json"
    var challenge: String?

    static func json(_ value: JSONValue) -> PhilipsEmulatorAnswer { PhilipsEmulatorAnswer(body: Array(value.encoded.utf8)) }
    static let notFound = PhilipsEmulatorAnswer(status: 404, body: Array("Not Found".utf8), contentType: "text/plain")
    static let ok = PhilipsEmulatorAnswer(body: [], contentType: "application/json")
}

/// The emulated TV's apps, channels and inputs, and how it answers each call.
extension EmulatedPhilips {
    static let apps: [(label: String, package: String, className: String)] = [
        ("Netflix", "com.netflix.ninja", "com.netflix.ninja.MainActivity"),
        ("YouTube", "com.google.android.youtube.tv", "com.google.android.apps.youtube.tv.activity.ShellActivity"),
        ("Prime Video", "com.amazon.amazonvideo.livingroom", "com.amazon.ignition.IgnitionActivity"),
        ("Spotify", "com.spotify.tv.android", "com.spotify.tv.android.SpotifyTVActivity"),
        ("Kodi", "org.xbmc.kodi", "org.xbmc.kodi.Splash"),
        ("Watch TV", "org.droidtv.playtv", "org.droidtv.playtv.PlayTvActivity"),
    ]

    /// Forty channels, ccid 1648 on, presets 1–40.
    static let channels: [(ccid: Int, preset: String, name: String)] = (0..<40).map { (1648 + $0, String($0 + 1), "Channel \($0 + 1)") }

    /// The standard name of a passthrough or channel uri (`hdmi2`, `tv`).
    static func inputName(_ uri: String) -> String? {
        if uri.hasPrefix(PhilipsSources.channel) { return "tv" }
        for n in 1...4 where uri.hasSuffix("HW\(n + 4)") && uri.hasPrefix(PhilipsSources.passthrough) { return "hdmi\(n)" }
        return nil
    }

    static func intent(_ package: String, _ className: String) -> JSONValue {
        .object([
            ("component", .object([("packageName", .string(package)), ("className", .string(className))])),
            ("action", "android.intent.action.MAIN"),
        ])
    }

    /// What the TV reports for each path `notifychange` watches.
    func watched(_ s: State) -> [(String, JSONValue)] {
        [
            ("powerstate", .object([("powerstate", .string(s.standby ? "Standby" : "On"))])),
            ("audio/volume", volume(s)), ("activities/current", s.activity),
            (
                "activities/tv",
                .object([("channel", .object([("ccid", .int(s.ccid))])), ("channelList", .object([("id", "all"), ("version", "10")]))])
            ),
            ("context", .object([("level1", "NA"), ("level2", "NA"), ("level3", "NA"), ("data", "NA")])),
            ("screenstate", .object([("screenstate", .string(s.standby ? "Off" : "On"))])),
        ]
    }

    func volume(_ s: State) -> JSONValue { .object([("muted", .bool(s.muted)), ("current", .int(s.volume)), ("min", 0), ("max", 60)]) }

    /// The answer to one request.
    func answer(_ request: HTTPServerRequest, secure: Bool) async -> PhilipsEmulatorAnswer {
        guard request.path.hasPrefix("/6/") else { return .notFound }
        let path = String(request.path.dropFirst(3))
        let body = (try? JSONValue.parse(request.body, maximumDepth: 16)) ?? .object([])
        if request.method == "GET", path == "system" {
            if !secure && configuration.systemOnHTTPSOnly { return PhilipsEmulatorAnswer(body: [], contentType: "text/plain") }
            return .json(systemAnswer)
        }
        guard secure else { return .notFound }
        switch (request.method, path) {
        case ("POST", "pair/request"): return pairRequest(body)
        case ("POST", "pair/grant"):
            guard let pending = state.withLock({ $0.pending }), authenticated(request, user: pending.device, password: pending.authKey) else {
                return challenge()
            }
            return grant(body, pending: pending)
        default: break
        }
        let user = digestUser(request)
        guard let user, let password = state.withLock({ $0.paired[user] }), authenticated(request, user: user, password: password) else {
            if request.head["Authorization"] != nil { emit(EmulatorEvent("refused", [("path", .string(path))])) }
            return challenge()
        }
        if request.method == "GET" { emit(EmulatorEvent("read", [("path", .string(path))])) }
        return await authorised(request.method, path, body)
    }

    func pairRequest(_ body: JSONValue) -> PhilipsEmulatorAnswer {
        guard let device = body["device"]?["id"]?.stringValue, !device.isEmpty, device.utf8.count <= 64 else {
            return .json(.object([("error_id", "INVALID_PARAMETER")]))
        }
        let pin = configuration.pin ?? String(format: "%04d", Int.random(in: 0...9999))
        let authKey = Hex.encode((try? SecureRandom.bytes(32)) ?? [])
        let timestamp = Int.random(in: 1000...999_999)
        state.withLock { $0.pending = (device, authKey, pin, timestamp) }
        emit(EmulatorEvent("pin", [("code", .string(pin)), ("device", .string(device))]))
        return .json(
            .object([
                ("error_id", "SUCCESS"), ("error_text", "Authorization required"), ("auth_key", .string(authKey)),
                ("timestamp", .int(timestamp)), ("timeout", 60),
            ]))
    }

    func grant(_ body: JSONValue, pending: (device: String, authKey: String, pin: String, timestamp: Int)) -> PhilipsEmulatorAnswer {
        let auth = body["auth"]
        let pin = auth?["pin"]?.stringValue ?? ""
        let signature = auth?["auth_signature"]?.stringValue ?? ""
        guard pin == pending.pin, signature == PhilipsSharedKey.signature(timestamp: String(pending.timestamp), pin: pin) else {
            emit(EmulatorEvent("pin_refused"))
            return .json(.object([("error_id", "INVALID_PIN"), ("error_text", "Invalid pin")]))
        }
        state.withLock { s in
            s.paired[pending.device] = pending.authKey
            s.pending = nil
        }
        emit(EmulatorEvent("paired", [("device", .string(pending.device))]))
        return .json(.object([("error_id", "SUCCESS"), ("error_text", "Pairing completed")]))
    }

    /// A 401 with a new nonce.
    func challenge() -> PhilipsEmulatorAnswer {
        let nonce = Hex.encode((try? SecureRandom.bytes(16)) ?? [])
        state.withLock { s in
            if s.nonces.count > 1024 { s.nonces.removeAll() }
            s.nonces.insert(nonce)
        }
        return PhilipsEmulatorAnswer(
            status: 401, body: Array("Unauthorized".utf8), contentType: "text/plain",
            challenge: "Digest realm=\"XTV\", qop=\"auth\", nonce=\"\(nonce)\", opaque=\"\(String(nonce.reversed()))\"")
    }

    func digestFields(_ request: HTTPServerRequest) -> [String: String]? {
        guard let header = request.head["Authorization"], header.prefix(7).lowercased() == "digest " else { return nil }
        return try? DigestFields.parse(String(header.dropFirst(7)))
    }

    func digestUser(_ request: HTTPServerRequest) -> String? { digestFields(request)?["username"] }

    /// Whether the request's Digest answer is right for `user` and `password` and a nonce
    /// this TV gave (any nonce count: a reused nonce is accepted, as real TVs do).
    func authenticated(_ request: HTTPServerRequest, user: String, password: String) -> Bool {
        guard let fields = digestFields(request), fields["username"] == user, let nonce = fields["nonce"],
            state.withLock({ $0.nonces.contains(nonce) }), fields["uri"] == request.target, let response = fields["response"],
            let hash = DigestHash(fields["algorithm"] ?? "MD5")
        else { return false }
        let qop = fields["qop"].map { _ in (nc: fields["nc"] ?? "", cnonce: fields["cnonce"] ?? "") }
        let expected = DigestChallenge.response(
            hash: hash, user: user, realm: "XTV", password: password, method: request.method, uri: request.target, nonce: nonce, qop: qop)
        return ConstantTime.equal(Array(expected.utf8), Array(response.lowercased().utf8))
    }
}
