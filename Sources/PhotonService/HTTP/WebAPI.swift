import Foundation
import PhotonCore
import PhotonKit
import PhotonNet
import PhotonStore

/// API v1 of the HTTP door (docs/http-api.md): the checks every request passes (Host,
/// protocol version, token, rate, Origin), then the routes. The operations themselves are
/// the daemon's (`DaemonOperations`), shared with the socket API.
final class WebAPI: Sendable {
    /// The version the web remote and the door must agree on; a page of another version is
    /// refused (`protocol-mismatch`) and asked to reload.
    static let protocolVersion = 1
    static let protocolHeader = "Photon-Web-Protocol"

    let operations: DaemonOperations
    let clients: WebClientGate
    let settings: HTTPDoorSettings
    let log: ServiceLog
    let policy: Locked<HTTPOriginPolicy>
    let sessions = WebSessions()
    let events: WebEventStreams
    let voice: WebVoiceStreams
    private let limiter: Locked<RateLimiter>

    init(operations: DaemonOperations, clients: WebClientGate, settings: HTTPDoorSettings, log: ServiceLog) {
        self.operations = operations
        self.clients = clients
        self.settings = settings
        self.log = log
        let hosts = HTTPOriginPolicy.hosts(
            boundTo: settings.host, machineNames: settings.machineNames, machineAddresses: settings.machineAddresses)
        policy = Locked(HTTPOriginPolicy(hosts: hosts, port: settings.port, secure: settings.isSecure))
        limiter = Locked(RateLimiter(perSecond: settings.requestsPerSecond, burst: settings.requestBurst))
        events = WebEventStreams(photon: operations.photon, log: log, ping: settings.eventPing)
        voice = WebVoiceStreams(operations: operations, log: log, limits: settings.voice)
    }

    /// The port is known once bound (port 0 in tests).
    func listening(on port: UInt16) {
        policy.withLock { $0.port = port }
    }

    /// Answers one request. `identified` learns which client the connection belongs to, so
    /// revoking it cuts the connection.
    func handle(_ request: DoorRequest, stream: any ByteStream, peer: DoorPeer, identified: (String) -> Void) async -> HTTPAnswer {
        do {
            return try await route(request, stream: stream, peer: peer, identified: identified)
        } catch let refusal as HTTPRefusal {
            if refusal.status >= 500 { log.notice("http: \(request.method) \(request.pathForLog): \(refusal.message)") }
            return .refusal(refusal)
        } catch let rejection as RouterRejection {
            return .refusal(Self.refusal(for: rejection))
        } catch {
            return .refusal(HTTPRefusal.from(PhotonError.wrap(error)))
        }
    }

    /// The gesture rules' refusals carry codes a page can act on.
    static func refusal(for rejection: RouterRejection) -> HTTPRefusal {
        let error = rejection.error
        switch rejection {
        case .gestureForbidden, .gestureHoldTooLong:
            return HTTPRefusal(403, "gesture-forbidden", error.message, hint: error.hint)
        case .gestureNotArmed, .gestureArmingExpired:
            return HTTPRefusal(403, "gesture-not-armed", error.message, hint: "hold the arm control, then gesture")
        case .unknownSession, .closedSession:
            return HTTPRefusal(404, "unknown-session", error.message, hint: "open a new session")
        case .duplicate: return HTTPRefusal(409, "duplicate", error.message)
        case .outOfOrder: return HTTPRefusal(409, "out-of-order", error.message)
        case .expired: return HTTPRefusal(408, "expired", error.message, hint: "check the phone's clock, or the network's delay")
        default: return HTTPRefusal.from(error)
        }
    }

    // MARK: checks and routes

    private func route(_ request: DoorRequest, stream: any ByteStream, peer: DoorPeer, identified: (String) -> Void) async throws
        -> HTTPAnswer
    {
        let policy = self.policy.withLock { $0 }
        try policy.checkHost(request.head["Host"])
        if let spoken = request.head[Self.protocolHeader], spoken != String(Self.protocolVersion) {
            throw HTTPRefusal(
                409, "protocol-mismatch", "this server speaks web protocol \(Self.protocolVersion), the page \(Redaction.sanitize(spoken))",
                hint: "reload the page")
        }
        let path = request.path
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        // Served to anyone who may reach the door: the page, its assets, the API description.
        if request.method == "GET" || request.method == "HEAD" {
            if let asset = WebRemoteAssets.asset(at: path) {
                return HTTPAnswer(status: 200, headers: asset.headers, body: asset.body)
            }
            if path == "/api/v1/openapi.json" {
                return HTTPAnswer(status: 200, headers: [("Content-Type", "application/json")], body: Array(WebAPIDocument.json.utf8))
            }
            if path == "/api/v1/version" {
                return .json(200, .object([("protocol", .int(Self.protocolVersion)), ("version", .string(settings.version))]))
            }
        }
        guard segments.count >= 2, segments[0] == "api", segments[1] == "v1" else {
            throw HTTPRefusal(404, "not-found", "nothing is served at \(Redaction.sanitize(String(path.prefix(100))))")
        }
        let rest = Array(segments.dropFirst(2))
        let changes = request.method == "POST" || request.method == "DELETE"
        let presented = PresentedToken.from(
            authorization: request.head["Authorization"], cookies: request.head.headers.filter { $0.name.lowercased() == "cookie" }.map(\.value),
            pageKey: request.head[PresentedToken.pageKeyHeader] ?? PresentedToken.pageKey(offeredProtocols: request.head["Sec-WebSocket-Protocol"]))
        if rest == ["pair"] {
            guard request.method == "POST" else { throw Self.methodNotAllowed }
            // A pairing comes from our page or from a script (which has no token yet).
            if request.head["Origin"] != nil { try policy.checkOrigin(request.head["Origin"], host: request.head["Host"]!, bearer: false) }
            guard limiter.withLock({ $0.admit("pair:" + peer.host, now: .now) }) else { throw Self.tooMany }
            return try await pair(request, device: peer.device)
        }
        guard let presented, let identity = await clients.authenticate(presented.token) else {
            throw HTTPRefusal(
                401, "unauthorized", presented == nil ? "this request needs a client token" : "the client token is not valid (revoked?)",
                hint: "pair this device: run `photon web pair` on the daemon's machine and enter the code")
        }
        // Connections, streams and sessions are owned by the token's key, not the name.
        let client = identity.key
        identified(client)
        guard limiter.withLock({ $0.admit("client:" + client, now: .now) }) else { throw Self.tooMany }
        let isUpgrade = request.head.header("Upgrade", contains: "websocket")
        if changes || isUpgrade {
            if case .bearer = presented {
            } else if request.head["Origin"] == nil {
                throw HTTPRefusal(403, "forbidden-origin", "a page's request must carry its Origin")
            }
            try policy.checkOrigin(request.head["Origin"], host: request.head["Host"]!, bearer: presented.isBearer)
        }
        if changes {
            guard request.body.isEmpty || request.head["Content-Type"]?.lowercased().hasPrefix("application/json") == true else {
                throw HTTPRefusal(415, "bad-request", "request bodies are JSON", hint: "send Content-Type: application/json")
            }
        }
        // The door sets the source, never the client: a page (its cookie) is `web`, a script
        // (its bearer token) `api-client`; only a gesture session's commands are `gesture`.
        let source: CommandSource = presented.isBearer ? .apiClient : .web
        return try await dispatch(request, rest, client: client, name: identity.name, source: source, stream: stream)
    }

    private func dispatch(
        _ request: DoorRequest, _ rest: [String], client: String, name: String, source: CommandSource, stream: any ByteStream
    ) async throws -> HTTPAnswer {
        switch (request.method, rest.count, rest.first) {
        case ("GET", 1, "whoami"): return .json(200, .object([("name", .string(name))]))
        case ("GET", 1, "events"):
            return try await events.open(request, stream: stream, client: client, protocolVersion: Self.protocolVersion)
        case ("GET", 1, "macros"): return .json(200, .object([("macros", .array(try savedMacros()))]))
        case ("GET", 1, "tvs"): return .json(200, .object([("tvs", .array(try await operations.list()))]))
        case ("DELETE", 2, "sessions"):
            guard let id = UUID(uuidString: rest[1]), await sessions.close(id, of: client, router: operations.photon.router) else {
                throw HTTPRefusal(404, "unknown-session", "no such session of this client")
            }
            return HTTPAnswer(status: 204, headers: [], body: [])
        default: break
        }
        guard rest.first == "tvs", rest.count >= 2 else { throw Self.notFound(request) }
        let tv = try Self.tvName(rest[1])
        let tail = rest.dropFirst(2).joined(separator: "/")
        switch (request.method, tail) {
        case ("GET", ""):
            let settle = Duration.clampedSeconds(Double(request.query["wait"] ?? "") ?? 1.5, maximum: 5)
            // With the keys its brand has, so a page offers only those (newcomer #9).
            var status = try await operations.status(tv, settle: settle)
            if case .object(let fields) = status {
                status = .object(fields + [("keys", .array(try await operations.keyNames(of: tv).map { .string($0) }))])
            }
            return .json(200, .object([("tv", status)]))
        case ("GET", let list) where TVListKind(rawValue: list) != nil:
            let kind = TVListKind(rawValue: list)!
            return .json(200, .object([(kind.rawValue, .array(try await operations.items(kind, of: tv)))]))
        case ("POST", "commands"): return try await command(request, tv: tv, client: client, source: source)
        case ("POST", "run"): return try await runMacro(request, tv: tv)
        case ("POST", "wake"):
            let body = try Self.body(request)
            let woke = try await operations.wake(
                tv, destinations: [], ports: [], patience: .clampedSeconds(body["wait"]?.doubleValue ?? 45, maximum: 120),
                envelope: try EnvelopeFields(body), source: .web)
            return .json(200, .object([("woke", .bool(woke))]))
        case ("POST", "sessions"):
            let (session, deviceID) = try await operations.openSession(tv, source: .web)
            await sessions.add(session, client: client, kind: .page, router: operations.photon.router)
            return .json(201, .object([("sessionId", .string(session.uuidString)), ("tv", .string(deviceID))]))
        case ("POST", "gesture/arm"): return try await arm(request, tv: tv, client: client)
        case ("GET", "homekit"): return .json(200, .object([("homekit", try await homeKit(tv))]))
        case ("GET", "voice"):
            return try await voice.open(request, tv: tv, stream: stream, client: client, source: source, protocolVersion: Self.protocolVersion)
        default: throw Self.notFound(request)
        }
    }

    // MARK: operations

    /// `GET /tvs/{tv}/homekit`: whether the daemon serves the TV in Apple Home and, while no
    /// controller is paired, its setup code and QR code (an SVG) — the code is useless once
    /// one is (pair-setup is refused), so it is not shown then.
    private func homeKit(_ tv: String) async throws -> JSONValue {
        let device = try await operations.photon.device(tv)
        guard settings.homeKitPorts()[device.id] != nil else { return .object([("served", .bool(false))]) }
        let identity = try await operations.photon.store.homeKitAccessory(for: device.id).identity
        var fields: [(String, JSONValue)] = [("served", .bool(true)), ("paired", .bool(identity.isPaired))]
        if !identity.isPaired {
            fields += [("setupCode", .string(identity.setupCode.formatted)), ("setupURI", .string(identity.setupURI))]
            if let qr = QRCode(identity.setupURI) { fields.append(("qrSVG", .string(qr.svg))) }
        }
        return .object(fields)
    }

    /// `POST /pair`. Wrong codes count against `device` (the peer's address, or on loopback
    /// its local user) and against everyone's total.
    private func pair(_ request: DoorRequest, device: String) async throws -> HTTPAnswer {
        let body = try Self.body(request)
        guard let code = body["code"]?.stringValue, !code.isEmpty, code.utf8.count <= 32 else {
            throw HTTPRefusal(400, "bad-request", "\"code\" is required: the code `photon web pair` shows")
        }
        let outcome = try await operations.photon.store.redeemWebPairing(code: code, deviceName: body["name"]?.stringValue, from: device)
        switch outcome {
        case .paired(let name, let token):
            log.notice("http: paired the web client \(name)")
            await clients.refresh()
            // The cookie carries the token's first half; the page keeps the rest (the
            // answer's token past `cookieLength`) in its own origin's storage.
            var cookie =
                "\(PresentedToken.cookieName)=\(token.prefix(PresentedToken.cookieLength)); Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000"
            if settings.isSecure { cookie += "; Secure" }
            return .json(200, .object([("token", .string(token)), ("name", .string(name))]), headers: [("Set-Cookie", cookie)])
        case .noPairingOpen:
            throw HTTPRefusal(403, "pairing-closed", "no pairing code is open", hint: "run `photon web pair` for a new code")
        case .expired:
            throw HTTPRefusal(403, "pairing-expired", "the pairing code expired", hint: "run `photon web pair` for a new code")
        case .wrongCode(let left):
            log.notice("http: a wrong pairing code (\(left) attempt(s) left)")
            throw HTTPRefusal(403, "wrong-code", "the code is not right (\(left) attempt(s) left before pairing locks)")
        case .lockedForDevice:
            log.notice("http: \(Redaction.sanitize(device)) is locked out of pairing after \(WebPairing.attemptLimit) wrong codes")
            throw HTTPRefusal(
                403, "pairing-locked", "this device sent \(WebPairing.attemptLimit) wrong codes and may not try this code again",
                hint: "run `photon web pair` for a new code")
        case .locked:
            throw HTTPRefusal(
                403, "pairing-locked", "pairing is locked after \(WebPairing.totalAttemptLimit) wrong codes",
                hint: "run `photon web pair` for a new code")
        }
    }

    /// `POST /tvs/{tv}/commands`: the socket API's command fields, in the body itself or
    /// under `command`; in a session (`sessionId`, `seq`) or alone.
    private func command(_ request: DoorRequest, tv: String, client: String, source doorSource: CommandSource) async throws -> HTTPAnswer {
        let body = try Self.body(request)
        let command = try ServiceProtocol.command(from: body["command"] ?? body)
        // A client may name the source the door gives it, or `gesture` (which only an armed
        // gesture session takes); never another (round 4, L1: a page that said `api-client`
        // escaped the bounded-hold rule).
        let sourceName = body["source"]?.stringValue ?? doorSource.rawValue
        guard sourceName == doorSource.rawValue || sourceName == CommandSource.gesture.rawValue else {
            throw HTTPRefusal(
                400, "bad-request", "\"source\" is set by the door: \(doorSource.rawValue) for this client (or gesture in a gesture session)")
        }
        let source: CommandSource = sourceName == CommandSource.gesture.rawValue ? .gesture : doorSource
        guard let sessionText = body["sessionId"]?.stringValue else {
            if source == .gesture { throw Self.refusal(for: .gestureNotArmed) }
            let outcome = try await operations.submitOneShot(command, to: tv, envelope: try EnvelopeFields(body), source: source)
            return .json(200, .object(sentFields(command, outcome)))
        }
        guard let session = UUID(uuidString: sessionText), let owned = await sessions.owned(session, by: client) else {
            throw HTTPRefusal(404, "unknown-session", "no such session of this client", hint: "open a new session")
        }
        if source == .gesture, owned != .gesture { throw Self.refusal(for: .gestureNotArmed) }
        // Commands from the remote's sessions live at most a second (the seeds' rule).
        let envelope = try EnvelopeFields(body, defaultLifetime: 1)
        guard envelope.expiresAt.timeIntervalSince(envelope.issuedAt) <= 1.001 else {
            throw HTTPRefusal(400, "bad-request", "commands in a session live at most 1 s (expiresAt - issuedAt)")
        }
        guard let sequence = body["seq"]?.intValue, sequence >= 0 else {
            throw HTTPRefusal(400, "bad-request", "\"seq\" is required in a session: a number greater than the last one")
        }
        let outcome = try await operations.submit(
            command, in: session, sequence: UInt64(sequence), tv: tv, envelope: envelope, source: owned == .gesture ? .gesture : source)
        return .json(200, .object(sentFields(command, outcome)))
    }

    /// `POST /tvs/{tv}/gesture/arm`: a gesture session bound to the TV, armed for at most
    /// 10 s (or the named one armed again).
    private func arm(_ request: DoorRequest, tv: String, client: String) async throws -> HTTPAnswer {
        let body = try Self.body(request)
        let seconds = body["seconds"]?.doubleValue ?? 10
        guard seconds > 0, seconds <= 10 else { throw HTTPRefusal(400, "bad-request", "\"seconds\" is from 0 to 10") }
        let router = operations.photon.router
        let session: UUID
        if let text = body["sessionId"]?.stringValue {
            guard let id = UUID(uuidString: text), await sessions.owned(id, by: client) == .gesture else {
                throw HTTPRefusal(404, "unknown-session", "no such gesture session of this client")
            }
            session = id
        } else {
            session = try await operations.openSession(tv, source: .gesture).session
            await sessions.add(session, client: client, kind: .gesture, router: router)
        }
        try await router.armGesture(session, for: seconds)
        let until = Date().addingTimeInterval(seconds).timeIntervalSince1970
        return .json(200, .object([("sessionId", .string(session.uuidString)), ("armedUntil", .double(until))]))
    }

    private func runMacro(_ request: DoorRequest, tv: String) async throws -> HTTPAnswer {
        let body = try Self.body(request)
        let macro: Macro
        if let name = body["macro"]?.stringValue {
            try MacroLibrary.check(name: name)
            macro = try MacroLibrary(paths: operations.photon.store.paths).macro(name)
        } else {
            guard let texts = body["steps"]?.arrayValue, texts.count <= Macro.stepLimit else {
                throw HTTPRefusal(400, "bad-request", "\"macro\" (a saved macro's name) or \"steps\" (at most \(Macro.stepLimit)) is required")
            }
            macro = try Macro(steps: texts.map { try Self.step($0) })
        }
        let lifetime = Duration.clampedSeconds(body["lifetime"]?.doubleValue ?? 10, maximum: 60)
        let results = try await operations.runMacro(macro, on: tv, lifetime: lifetime, broadcast: [], source: .web)
        return .json(200, .object([("results", .array(results))]))
    }

    private func savedMacros() throws -> [JSONValue] {
        let library = MacroLibrary(paths: operations.photon.store.paths)
        return try library.names().prefix(200).map { name in
            let steps = (try? library.macro(name).steps.map { JSONValue.string($0.text) }) ?? []
            return .object([("name", .string(name)), ("steps", .array(steps))])
        }
    }

    func closeAllSessions() async {
        await sessions.closeAll(router: operations.photon.router)
        await events.closeAll()
        await voice.closeAll()
    }

    func closeSessions(ofClientsNotIn current: Set<String>) async {
        await sessions.close(ofClientsNotIn: current, router: operations.photon.router)
    }

    func closeEventStreams(ofClientsNotIn current: Set<String>) async {
        await events.close(ofClientsNotIn: current)
        await voice.close(ofClientsNotIn: current)
    }

    // MARK: helpers

    static func body(_ request: DoorRequest) throws -> JSONValue {
        guard !request.body.isEmpty else { return .object([]) }
        let value: JSONValue
        do {
            value = try JSONValue.parse(request.body, maximumDepth: 8)
        } catch {
            throw HTTPRefusal(400, "bad-request", "the body is not valid JSON: \(PhotonError.wrap(error).message)")
        }
        guard value.isObject else { throw HTTPRefusal(400, "bad-request", "the body is a JSON object") }
        return value
    }

    static func step(_ value: JSONValue) throws -> String {
        guard let step = value.stringValue else { throw HTTPRefusal(400, "bad-request", "each step is a string such as \"key home\"") }
        return step
    }

    static func tvName(_ segment: String) throws -> String {
        guard let name = segment.removingPercentEncoding, !name.isEmpty, name.utf8.count <= 256 else {
            throw HTTPRefusal(400, "bad-request", "the TV's name in the path is not valid")
        }
        return name
    }

    static func notFound(_ request: DoorRequest) -> HTTPRefusal {
        HTTPRefusal(
            404, "not-found", "no route for \(request.method) \(Redaction.sanitize(String(request.path.prefix(100))))",
            hint: "see /api/v1/openapi.json")
    }

    static let methodNotAllowed = HTTPRefusal(405, "method-not-allowed", "this path takes another method", hint: "see /api/v1/openapi.json")
    static let tooMany = HTTPRefusal(429, "rate-limited", "too many requests", hint: "slow down; the limit is per client")
}

extension PresentedToken {
    var isBearer: Bool {
        if case .bearer = self { return true }
        return false
    }
}
