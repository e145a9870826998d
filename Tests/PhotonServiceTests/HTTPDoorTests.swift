import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonKit
import PhotonNet
import PhotonPlugins
import PhotonStore
import PhotonTestSupport
import Roku
import RokuEmulator
import Testing

@testable import PhotonService

/// The HTTP door of a daemon in this process, in front of an emulated Roku, driven by a
/// plain HTTP client: pairing, commands reaching the TV, the event stream, gestures, and
/// every refusal the door owes (docs/http-api.md).
@Suite(.serialized) struct HTTPDoorTests {
    /// A daemon with its HTTP door on 127.0.0.1, one paired Roku named `tv`.
    final class Fixture: Sendable {
        let server: ServiceServer
        let door: HTTPDoor
        let running: Task<Void, Never>
        let roku: EmulatedRoku
        let events: Locked<[EmulatorEvent]>
        let store: Store

        init(configure: (inout HTTPDoorSettings) -> Void = { _ in }, limits: ServiceLimits = ServiceLimits()) async throws {
            let events = Locked<[EmulatorEvent]>([])
            var configuration = EmulatedRoku.Configuration()
            configuration.port = 0
            roku = try EmulatedRoku.start(configuration) { event in events.withLock { $0.append(event) } }
            self.events = events
            let paths = StorePaths(home: try await TestEnvironment.home("photon-http"))
            store = Store(paths: paths)
            let context = AdapterContext(connector: NetConnector(), clientIdentity: try TestEnvironment.sharedClientIdentity, timeout: .seconds(3))
            var paired = try await RokuAdapter().pairing(
                with: Endpoint(host: "127.0.0.1", port: roku.port), options: AdapterOptionValues(), context: context
            ).run(responder: NoQuestions())
            paired.device.nickname = "tv"
            try await store.save(paired)
            let photon = try Photon(
                adapters: BuiltInPlugins.adapters, paths: paths, timeout: .seconds(5), policy: .keepWarm(ReconnectBackoff()), cachesStore: true)
            server = ServiceServer(photon: photon, limits: limits, log: ServiceLog(notice: { _ in }, debug: .silent))
            try server.start()
            running = Task { [server] in await server.run() }
            var settings = HTTPDoorSettings()
            settings.port = 0
            settings.version = "test"
            settings.revocationCheck = .milliseconds(100)
            configure(&settings)
            door = try server.startHTTP(settings)
        }

        var port: UInt16 { door.port }
        var origin: String { "\(door.fingerprint == nil ? "http" : "https")://127.0.0.1:\(port)" }

        /// A connection to the door: TLS pinned to its certificate when it serves HTTPS.
        func connect() async throws -> any ByteStream {
            if let pin = door.fingerprint {
                return try await TLSStream.connect(
                    host: "127.0.0.1", port: port, options: TLSClientOptions(trust: .pinned(pin)), timeout: .seconds(3))
            }
            return try await SocketStream.connect(host: "127.0.0.1", port: port, timeout: .seconds(3))
        }

        func keys() -> [String] { events.withLock { $0.filter { $0.name == "key" }.compactMap { $0["key"]?.string } } }

        /// What the web remote sends with each request: its cookie (the token's first half)
        /// and its page key (the rest).
        func pageHeaders(_ token: String) -> [(String, String)] {
            [
                ("Cookie", "photon_token=\(token.prefix(PresentedToken.cookieLength))"),
                (PresentedToken.pageKeyHeader, String(token.dropFirst(PresentedToken.cookieLength))),
            ]
        }

        /// A paired client's token.
        func pairClient(_ name: String = "phone") async throws -> String {
            let code = try await store.startWebPairing(name: name)
            let answer = try await request("POST", "/api/v1/pair", json: #"{"code":"\#(code)"}"#)
            #expect(answer.status == 200, "\(answer.body)")
            return try #require(answer.json["token"]?.stringValue)
        }

        func stop() async {
            await server.stop()
            await running.value
            await roku.stop()
        }

        /// One request on its own connection; `raw` bytes are sent as they are.
        func request(
            _ method: String, _ path: String, headers: [(String, String)] = [], json: String? = nil, host: String? = nil,
            token: String? = nil
        ) async throws -> HTTPTestAnswer {
            var fields = [("Host", host ?? "127.0.0.1:\(port)")] + headers
            if let token { fields.append(("Authorization", "Bearer \(token)")) }
            var body: [UInt8] = []
            if let json {
                body = Array(json.utf8)
                fields += [("Content-Type", "application/json"), ("Content-Length", String(body.count))]
            }
            fields.append(("Connection", "close"))
            return try await raw(HTTPHead(startLine: "\(method) \(path) HTTP/1.1", headers: fields).bytes + body)
        }

        func raw(_ bytes: [UInt8], pause: Duration? = nil) async throws -> HTTPTestAnswer {
            let stream = try await connect()
            defer { Task { await stream.close() } }
            try await stream.write(bytes, timeout: .seconds(3))
            return try await HTTPTestAnswer.read(from: stream)
        }
    }

    struct NoQuestions: PairingResponder {
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer { .wait }
    }

    struct HTTPTestAnswer {
        let status: Int
        let head: HTTPHead
        let body: String
        var json: JSONValue { (try? JSONValue.parse(Array(body.utf8), maximumDepth: 16)) ?? .null }
        var code: String? { json["code"]?.stringValue }

        static func read(from stream: any ByteStream) async throws -> HTTPTestAnswer {
            let (head, rest) = try await HTTPHeadReader.read(from: stream, timeout: .seconds(10))
            let length = Int(head["Content-Length"] ?? "0") ?? 0
            var body = rest
            while body.count < length {
                let chunk = try await stream.read(maxLength: length - body.count, timeout: .seconds(5))
                if chunk.isEmpty { break }
                body += chunk
            }
            return HTTPTestAnswer(status: head.statusCode ?? 0, head: head, body: String(decoding: body, as: UTF8.self))
        }
    }

    @Test func aPairedScriptSendsAKeyThatReachesTheTV() async throws {
        let tv = try await Fixture()
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        let list = try await tv.request("GET", "/api/v1/tvs", token: token)
        #expect(list.status == 200)
        #expect(list.json["tvs"]?.arrayValue?.first?["nickname"]?.stringValue == "tv")
        let sent = try await tv.request("POST", "/api/v1/tvs/tv/commands", json: #"{"key":"home"}"#, token: token)
        #expect(sent.status == 200, "\(sent.body)")
        #expect(sent.json["acknowledged"]?.boolValue == true)
        #expect(tv.keys().contains("Home"))
        // The same fields as the socket API, under "command", with an envelope.
        let id = UUID().uuidString
        let now = Date().timeIntervalSince1970
        let enveloped = #"{"command":{"key":"up"},"commandId":"\#(id)","issuedAt":\#(now),"expiresAt":\#(now + 5)}"#
        #expect(try await tv.request("POST", "/api/v1/tvs/tv/commands", json: enveloped, token: token).status == 200)
        let again = try await tv.request("POST", "/api/v1/tvs/tv/commands", json: enveloped, token: token)
        #expect(again.status == 409 && again.code == "duplicate", "\(again.body)")
        #expect(tv.keys().filter { $0 == "Up" }.count == 1)
        let unsupported = try await tv.request("POST", "/api/v1/tvs/tv/commands", json: #"{"notify":"hi"}"#, token: token)
        #expect(unsupported.status == 501 && unsupported.code == "unsupported", "\(unsupported.body)")
        let unknown = try await tv.request("GET", "/api/v1/tvs/nope", token: token)
        #expect(unknown.status == 404, "\(unknown.body)")
    }

    @Test func thePairingAnswerSetsAStrictCookieAndThePageWorksWithIt() async throws {
        let tv = try await Fixture()
        defer { Task { await tv.stop() } }
        let code = try await tv.store.startWebPairing(name: nil)
        let paired = try await tv.request("POST", "/api/v1/pair", headers: [("Origin", tv.origin)], json: #"{"code":"\#(code)","name":"pixel"}"#)
        let cookie = try #require(paired.head["Set-Cookie"])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains("Secure"))
        let token = try #require(paired.json["token"]?.stringValue)
        // The cookie carries only the token's first half (round 4, L5: a browser sends it to
        // every port of the host): alone it is refused, with the page's key it works.
        #expect(cookie.hasPrefix("photon_token=\(token.prefix(PresentedToken.cookieLength));"), "\(cookie)")
        let cookieAlone = try await tv.request(
            "GET", "/api/v1/whoami", headers: [("Cookie", "photon_token=\(token.prefix(PresentedToken.cookieLength))")])
        #expect(cookieAlone.status == 401)
        let wholeTokenInCookie = try await tv.request("GET", "/api/v1/whoami", headers: [("Cookie", "photon_token=\(token)")])
        #expect(wholeTokenInCookie.status == 401)
        let me = try await tv.request("GET", "/api/v1/whoami", headers: tv.pageHeaders(token))
        #expect(me.json["name"]?.stringValue == "pixel")
        // A page's change carries its Origin; with the cookie alone and no Origin it is refused.
        let fromPage = try await tv.request(
            "POST", "/api/v1/tvs/tv/commands", headers: tv.pageHeaders(token) + [("Origin", tv.origin)], json: #"{"key":"back"}"#)
        #expect(fromPage.status == 200, "\(fromPage.body)")
        let noOrigin = try await tv.request(
            "POST", "/api/v1/tvs/tv/commands", headers: tv.pageHeaders(token), json: #"{"key":"back"}"#)
        #expect(noOrigin.status == 403 && noOrigin.code == "forbidden-origin")
        #expect(tv.keys().filter { $0 == "Back" }.count == 1)
        let page = try await tv.request("GET", "/")
        #expect(page.status == 200 && page.body.contains("data-gesture-arm"))
        #expect(page.head["Content-Security-Policy"]?.contains("default-src 'none'") == true)
    }

    @Test func everyRefusalLeavesTheTVAlone() async throws {
        let tv = try await Fixture { $0.requestBurst = 200 }
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        let key = #"{"key":"home"}"#
        let cases: [(String, HTTPTestAnswer, Int, String)] = [
            ("no token", try await tv.request("POST", "/api/v1/tvs/tv/commands", json: key), 401, "unauthorized"),
            (
                "a wrong token",
                try await tv.request("POST", "/api/v1/tvs/tv/commands", json: key, token: (token.first == "x" ? "y" : "x") + token.dropFirst()), 401,
                "unauthorized"
            ),
            (
                "a foreign Origin",
                try await tv.request("POST", "/api/v1/tvs/tv/commands", headers: [("Origin", "http://evil.example")], json: key, token: token), 403,
                "forbidden-origin"
            ),
            (
                "a foreign Host", try await tv.request("POST", "/api/v1/tvs/tv/commands", json: key, host: "evil.example", token: token), 421,
                "misdirected"
            ),
            (
                "a body over 16 KiB",
                try await tv.request("POST", "/api/v1/tvs/tv/commands", json: #"{"text":"\#(String(repeating: "a", count: 17000))"}"#, token: token),
                413,
                "too-large"
            ),
            (
                "another protocol", try await tv.request("GET", "/api/v1/tvs", headers: [("Photon-Web-Protocol", "2")], token: token), 409,
                "protocol-mismatch"
            ),
            ("not JSON", try await tv.request("POST", "/api/v1/tvs/tv/commands", json: "{", token: token), 400, "bad-request"),
        ]
        for (what, answer, status, code) in cases {
            #expect(answer.status == status && answer.code == code, "\(what): \(answer.status) \(answer.body)")
            #expect(!answer.head.headers.contains { $0.name.lowercased().hasPrefix("access-control") }, "\(what) carried a CORS header")
        }
        #expect(tv.keys().isEmpty)
        // A revoked token is refused at once.
        #expect(try await tv.store.revokeWebClient(named: "phone"))
        let revoked = try await tv.request("POST", "/api/v1/tvs/tv/commands", json: key, token: token)
        #expect(revoked.status == 401)
        #expect(tv.keys().isEmpty)
    }

    @Test func tooManyRequestsAreRefusedPerClient() async throws {
        let tv = try await Fixture {
            $0.requestsPerSecond = 0.01
            $0.requestBurst = 3
        }
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        var statuses: [Int] = []
        for _ in 0..<5 { statuses.append(try await tv.request("GET", "/api/v1/whoami", token: token).status) }
        #expect(statuses == [200, 200, 200, 429, 429])
    }

    @Test func fiveWrongCodesLockPairingThroughTheDoor() async throws {
        let tv = try await Fixture()
        defer { Task { await tv.stop() } }
        let code = try await tv.store.startWebPairing(name: nil)
        let wrong = code == "0000-0000" ? "1111-1111" : "0000-0000"
        var codes: [String?] = []
        for _ in 0..<5 { codes.append(try await tv.request("POST", "/api/v1/pair", json: #"{"code":"\#(wrong)"}"#).code) }
        #expect(codes == ["wrong-code", "wrong-code", "wrong-code", "wrong-code", "pairing-locked"])
        #expect(try await tv.request("POST", "/api/v1/pair", json: #"{"code":"\#(code)"}"#).code == "pairing-locked")
        #expect(try await tv.store.webClients().clients.isEmpty)
        // The wrong codes counted against this local user (from the kernel's socket table),
        // not against 127.0.0.1, which every local user shares (round 4, L5).
        let pairing = try #require(try await tv.store.webClients().pairing)
        #expect(pairing.failuresByDevice == ["uid:\(getuid())": 5])
        #expect(!pairing.isLocked)
    }

    @Test func hostileRequestsEndCleanly() async throws {
        let tv = try await Fixture { $0.requestTimeout = .milliseconds(400) }
        defer { Task { await tv.stop() } }
        let hugeHeader = try await tv.raw(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: \(String(repeating: "a", count: 20000))\r\n\r\n".utf8))
        #expect(hugeHeader.status == 431)
        let chunked = try await tv.raw(Array("POST /api/v1/pair HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8))
        #expect(chunked.status == 501)
        let garbage = try await tv.raw(Array("\u{0}\u{1}\u{2} nonsense\r\n\r\n".utf8))
        #expect(garbage.status == 400)
        // A slow client that never finishes its head is answered 408 and cut off.
        let slow = try await tv.raw(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
        #expect(slow.status == 408)
        // A body shorter than its Content-Length: 408 once the time is up.
        let short = try await tv.raw(Array("POST /api/v1/pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{".utf8))
        #expect(short.status == 408)
        // The door still serves.
        #expect(try await tv.request("GET", "/api/v1/version").status == 200)
    }

    @Test func gesturesNeedAnArmedSessionAndSendOnlyWhatGesturesMay() async throws {
        let tv = try await Fixture()
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        let unarmed = try await tv.request("POST", "/api/v1/tvs/tv/commands", json: #"{"key":"up","source":"gesture"}"#, token: token)
        #expect(unarmed.status == 403 && unarmed.code == "gesture-not-armed")
        let tooLong = try await tv.request("POST", "/api/v1/tvs/tv/gesture/arm", json: #"{"seconds":11}"#, token: token)
        #expect(tooLong.status == 400)
        let armed = try await tv.request("POST", "/api/v1/tvs/tv/gesture/arm", json: #"{"seconds":0.5}"#, token: token)
        let session = try #require(armed.json["sessionId"]?.stringValue)
        #expect((armed.json["armedUntil"]?.doubleValue ?? 0) > Date().timeIntervalSince1970)
        func gesture(_ key: String, _ seq: Int, lifetime: Double = 1) async throws -> HTTPTestAnswer {
            let now = Date().timeIntervalSince1970
            return try await tv.request(
                "POST", "/api/v1/tvs/tv/commands",
                json:
                    #"{"key":"\#(key)","source":"gesture","sessionId":"\#(session)","seq":\#(seq),"issuedAt":\#(now),"expiresAt":\#(now + lifetime)}"#,
                token: token)
        }
        #expect(try await gesture("left", 1).status == 200)
        let power = try await gesture("power", 2)
        #expect(power.status == 403 && power.code == "gesture-forbidden", "\(power.body)")
        let longLived = try await gesture("right", 3, lifetime: 5)
        #expect(longLived.status == 400, "\(longLived.body)")
        try await Task.sleep(for: .milliseconds(700))
        let late = try await gesture("right", 4)
        #expect(late.status == 403 && late.code == "gesture-not-armed", "\(late.body)")
        #expect(tv.keys() == ["Left"])
        // Another client cannot use this session.
        let other = try await tv.pairClient("other")
        let stolen = try await tv.request(
            "POST", "/api/v1/tvs/tv/commands", json: #"{"key":"up","source":"gesture","sessionId":"\#(session)","seq":9}"#, token: other)
        #expect(stolen.status == 404)
    }

    @Test func pageSessionsCarrySequenceNumbersAndCloseOnRequest() async throws {
        let tv = try await Fixture()
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        let opened = try await tv.request("POST", "/api/v1/tvs/tv/sessions", token: token)
        #expect(opened.status == 201)
        let session = try #require(opened.json["sessionId"]?.stringValue)
        func key(_ seq: Int) async throws -> Int {
            try await tv.request("POST", "/api/v1/tvs/tv/commands", json: #"{"key":"down","sessionId":"\#(session)","seq":\#(seq)}"#, token: token)
                .status
        }
        #expect(try await key(1) == 200)
        #expect(try await key(1) == 409)
        #expect(try await key(2) == 200)
        #expect(try await tv.request("DELETE", "/api/v1/sessions/\(session)", token: token).status == 204)
        #expect(try await key(3) == 404)
        #expect(tv.keys() == ["Down", "Down"])
    }

    @Test func overHTTPSTheCookieIsSecureAndPlainHTTPGetsNoAnswer() async throws {
        let identity = try TestEnvironment.sharedClientIdentity
        let tv = try await Fixture {
            $0.identity = StoredIdentity(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
        }
        defer { Task { await tv.stop() } }
        #expect(tv.door.url.hasPrefix("https://127.0.0.1:"))
        let code = try await tv.store.startWebPairing(name: nil)
        let paired = try await tv.request("POST", "/api/v1/pair", headers: [("Origin", tv.origin)], json: #"{"code":"\#(code)"}"#)
        #expect(paired.head["Set-Cookie"]?.contains("; Secure") == true, "\(paired.head)")
        let token = try #require(paired.json["token"]?.stringValue)
        let sent = try await tv.request("POST", "/api/v1/tvs/tv/commands", headers: [("Origin", tv.origin)], json: #"{"key":"home"}"#, token: token)
        #expect(sent.status == 200, "\(sent.body)")
        let plainOrigin = try await tv.request(
            "POST", "/api/v1/tvs/tv/commands", headers: [("Origin", "http://127.0.0.1:\(tv.port)")], json: #"{"key":"home"}"#, token: token)
        #expect(plainOrigin.status == 403)
        #expect(tv.keys() == ["Home"])
        // Plain HTTP on the HTTPS port is never answered in clear.
        let plain = try await SocketStream.connect(host: "127.0.0.1", port: tv.port, timeout: .seconds(3))
        try await plain.write(Array("GET /api/v1/version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8), timeout: .seconds(3))
        let answer = (try? await plain.read(maxLength: 4096, timeout: .seconds(5))) ?? []
        #expect(!String(decoding: answer, as: UTF8.self).contains("\"protocol\""))
        await plain.close()
        // A door on a non-loopback address without a certificate is refused before binding.
        var open = HTTPDoorSettings()
        open.host = "0.0.0.0"
        #expect(throws: PhotonError.self) { try tv.server.startHTTP(open) }
    }

    @Test func badWebSocketFramesEndOnlyThatStream() async throws {
        let tv = try await Fixture()
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        for garbage: [UInt8] in [[0x81, 0x03, 0x61, 0x62, 0x63], [0x8F, 0x80, 1, 2, 3, 4], [0x81, 0xFF] + [UInt8](repeating: 0xFF, count: 12)] {
            let stream = try await SocketStream.connect(host: "127.0.0.1", port: tv.port, timeout: .seconds(3))
            _ = try await WebSocketClient.connect(
                over: stream, host: "127.0.0.1:\(tv.port)", target: "/api/v1/events?tv=tv", headers: ["Authorization": "Bearer \(token)"],
                timeout: .seconds(3))
            // Unmasked, reserved opcode, or an absurd length: the door closes the stream.
            try await stream.write(garbage, timeout: .seconds(3))
            var closed = false
            let end = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < end {
                let bytes: [UInt8]
                do { bytes = try await stream.read(maxLength: 65536, timeout: .seconds(1)) } catch let error as PhotonError
                    where error.code == .timeout
                {
                    continue
                } catch {
                    closed = true
                    break
                }
                if bytes.isEmpty {
                    closed = true
                    break
                }
            }
            await stream.close()
            #expect(closed, "the door kept a stream open after \(garbage)")
        }
        #expect(try await tv.request("GET", "/api/v1/whoami", token: token).status == 200)
    }

    /// Every path and method of the OpenAPI description is served (none answers "no route").
    @Test func theOpenAPIDescriptionMatchesTheRoutes() async throws {
        let tv = try await Fixture { $0.requestBurst = 200 }
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        let document = try await tv.request("GET", "/api/v1/openapi.json")
        guard case .object(let paths)? = document.json["paths"] else {
            Issue.record("no paths in \(document.body.prefix(200))")
            return
        }
        for (template, item) in paths {
            guard case .object(let operations) = item else { continue }
            let path = template.replacingOccurrences(of: "{tv}", with: "tv").replacingOccurrences(of: "{id}", with: UUID().uuidString)
            for (method, _) in operations where ["get", "post", "delete"].contains(method) {
                if path == "/api/v1/events" || path == "/api/v1/pair" { continue }
                let body =
                    method == "post"
                    ? (path.hasSuffix("/run") ? #"{"steps":["key home"]}"# : path.hasSuffix("/commands") ? #"{"key":"home"}"# : "{}") : nil
                let answer = try await tv.request(method.uppercased(), path, json: body, token: token)
                #expect(answer.code != "not-found" && answer.status != 405, "\(method) \(template): \(answer.status) \(answer.body)")
            }
        }
    }
}
