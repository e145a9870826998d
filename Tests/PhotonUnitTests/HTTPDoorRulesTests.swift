import Foundation
import PhotonCore
import Testing

@testable import PhotonService

/// The HTTP door's pure checks: request heads, Host and Origin, tokens, the rate limiter,
/// and the status each error class gets.
@Suite struct HTTPDoorRulesTests {
    func head(_ text: String) throws -> HTTPHead { try HTTPHead.parse(Array(text.utf8)[...]) }

    func refusal(_ text: String, maximumBody: Int = 16384) throws -> HTTPRefusal? {
        let parsed = try head(text)
        do throws(HTTPRefusal) {
            _ = try HTTPRequestRules.check(parsed, maximumBody: maximumBody)
            return nil
        } catch { return error }
    }

    @Test func aPlainRequestIsChecked() throws {
        let checked = try HTTPRequestRules.check(try head("POST /api/v1/pair HTTP/1.1\r\nHost: a\r\nContent-Length: 12"), maximumBody: 16384)
        #expect(checked == HTTPRequestRules.Checked(method: "POST", target: "/api/v1/pair", contentLength: 12, keepsAlive: true))
        #expect(try HTTPRequestRules.check(try head("GET / HTTP/1.0\r\nHost: a"), maximumBody: 1).keepsAlive == false)
        #expect(try HTTPRequestRules.check(try head("GET / HTTP/1.1\r\nConnection: close"), maximumBody: 1).keepsAlive == false)
    }

    @Test func badHeadsGetTheirStatus() throws {
        #expect(try refusal("POST / HTTP/1.1\r\nTransfer-Encoding: chunked")?.status == 501)
        #expect(try refusal("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3")?.status == 400)
        #expect(try refusal("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4")?.status == 400)
        #expect(try refusal("POST / HTTP/1.1\r\nContent-Length: -1")?.status == 400)
        #expect(try refusal("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999")?.status == 400)
        #expect(try refusal("POST / HTTP/1.1\r\nContent-Length: 16385")?.status == 413)
        #expect(try refusal("PUT / HTTP/1.1")?.status == 405)
        #expect(try refusal("GET http://elsewhere/ HTTP/1.1")?.status == 400)
        #expect(try refusal("GET / HTTP/2.0")?.status == 505)
        #expect(try refusal("GET  / HTTP/1.1")?.status == 400)
        #expect(try refusal("GET / HTTP/1.1\r\nBad Name: x")?.status == 400)
        #expect(try refusal("GET / HTTP/1.1\r\nX: a\u{1}b")?.status == 400)
        // Every refusal of a head closes the connection: the rest of the request is unread.
        #expect(try refusal("POST / HTTP/1.1\r\nContent-Length: 16385")?.closesConnection == true)
    }

    @Test func theHostMustBeOneOfOurs() throws {
        let loopback = HTTPOriginPolicy(
            hosts: HTTPOriginPolicy.hosts(boundTo: "127.0.0.1", machineNames: ["kitchen"], machineAddresses: ["192.168.1.5"]), port: 8080,
            secure: false)
        try loopback.checkHost("127.0.0.1:8080")
        try loopback.checkHost("localhost:8080")
        try loopback.checkHost("LOCALHOST")
        try loopback.checkHost("[::1]:8080")
        for bad in ["evil.example", "evil.example:8080", "127.0.0.1:9999", "kitchen:8080", "192.168.1.5:8080", "", "127.0.0.1:x", "a@127.0.0.1"] {
            #expect(throws: HTTPRefusal.self) { try loopback.checkHost(bad) }
        }
        #expect(throws: HTTPRefusal.self) { try loopback.checkHost(nil) }
        let wildcard = HTTPOriginPolicy(
            hosts: HTTPOriginPolicy.hosts(
                boundTo: "0.0.0.0", machineNames: ["kitchen", "kitchen.local"], machineAddresses: ["192.168.1.5", "fe80::1"]),
            port: 8443, secure: true)
        try wildcard.checkHost("kitchen.local:8443")
        try wildcard.checkHost("192.168.1.5:8443")
        try wildcard.checkHost("[fe80::1]:8443")
        #expect(throws: HTTPRefusal.self) { try wildcard.checkHost("0.0.0.0:8443") }
        #expect(throws: HTTPRefusal.self) { try wildcard.checkHost("rebound.attacker.example:8443") }
    }

    @Test func changesComeFromOurOriginOrAScript() throws {
        let policy = HTTPOriginPolicy(hosts: ["127.0.0.1"], port: 8080, secure: false)
        try policy.checkOrigin("http://127.0.0.1:8080", host: "127.0.0.1:8080", bearer: false)
        try policy.checkOrigin(nil, host: "127.0.0.1:8080", bearer: true)
        #expect(throws: HTTPRefusal.self) { try policy.checkOrigin(nil, host: "127.0.0.1:8080", bearer: false) }
        #expect(throws: HTTPRefusal.self) { try policy.checkOrigin("http://evil.example", host: "127.0.0.1:8080", bearer: true) }
        #expect(throws: HTTPRefusal.self) { try policy.checkOrigin("https://127.0.0.1:8080", host: "127.0.0.1:8080", bearer: false) }
        #expect(throws: HTTPRefusal.self) { try policy.checkOrigin("null", host: "127.0.0.1:8080", bearer: false) }
        let secure = HTTPOriginPolicy(hosts: ["tv.lan"], port: 443, secure: true)
        try secure.checkOrigin("https://tv.lan", host: "tv.lan:443", bearer: false)
        try secure.checkOrigin("https://tv.lan", host: "tv.lan", bearer: false)
    }

    @Test func tokensComeFromTheBearerHeaderOrTheCookie() {
        #expect(PresentedToken.from(authorization: "Bearer abc", cookies: []) == .bearer("abc"))
        #expect(PresentedToken.from(authorization: "bearer  abc ", cookies: []) == .bearer("abc"))
        #expect(PresentedToken.from(authorization: "Basic abc", cookies: ["photon_token=x"]) == nil)
        // A page's token is its cookie (the first half) and its page key (the rest); the
        // cookie alone, as another port on the host would receive it, is no token (round 4, L5).
        let half = String(repeating: "c", count: PresentedToken.cookieLength)
        #expect(PresentedToken.from(authorization: nil, cookies: ["a=1; photon_token=\(half); b=2"], pageKey: "rest") == .cookie(half + "rest"))
        #expect(PresentedToken.from(authorization: nil, cookies: ["a=1; photon_token=\(half); b=2"]) == nil)
        #expect(PresentedToken.from(authorization: nil, cookies: ["photon_token=" + half + "legacyfulltoken"], pageKey: nil) == nil)
        #expect(PresentedToken.from(authorization: nil, cookies: ["photon_token=xyz"], pageKey: "rest") == nil)
        #expect(PresentedToken.from(authorization: nil, cookies: ["photon_token_other=1"], pageKey: "rest") == nil)
        #expect(PresentedToken.from(authorization: nil, cookies: ["photon_token=\(half)"], pageKey: String(repeating: "a", count: 300)) == nil)
        #expect(PresentedToken.pageKey(offeredProtocols: "photon-web, photon-key.abc_-1") == "abc_-1")
        #expect(PresentedToken.pageKey(offeredProtocols: "photon-web") == nil)
        #expect(WebRemoteScript.javascript.contains("const COOKIE_LENGTH = \(PresentedToken.cookieLength);"))
        #expect(PresentedToken.from(authorization: nil, cookies: []) == nil)
    }

    @Test func theRateLimiterRefillsOverTime() {
        var limiter = RateLimiter(perSecond: 2, burst: 3)
        let start = ContinuousClock.now
        var answers: [Bool] = []
        for _ in 0..<4 { answers.append(limiter.admit("a", now: start)) }
        answers.append(limiter.admit("b", now: start))
        answers.append(limiter.admit("a", now: start + .milliseconds(600)))
        answers.append(limiter.admit("a", now: start + .milliseconds(600)))
        #expect(answers == [true, true, true, false, true, true, false])
    }

    @Test func errorClassesGetTheirStatus() {
        #expect(HTTPRefusal.from(PhotonError(.usage, "x")).status == 400)
        #expect(HTTPRefusal.from(PhotonError(.notFound, "x")).status == 404)
        #expect(HTTPRefusal.from(PhotonError(.unreachable, "x")).status == 504)
        #expect(HTTPRefusal.from(PhotonError(.pinMismatch, "x")).status == 502)
        #expect(HTTPRefusal.from(PhotonError(.unsupported, "x")).status == 501)
        #expect(HTTPRefusal.from(PhotonError(.notPaired, "x")).status == 409)
        #expect(WebAPI.refusal(for: .gestureForbidden).code == "gesture-forbidden")
        #expect(WebAPI.refusal(for: .gestureArmingExpired).code == "gesture-not-armed")
        #expect(WebAPI.refusal(for: .gestureNotArmed).status == 403)
    }

    @Test func theAnswerNeverCarriesCORSAndAlwaysForbidsCaching() {
        let bytes = HTTPAnswer.json(200, .object([])).encoded(keepAlive: true)
        let text = String(decoding: bytes, as: UTF8.self).lowercased()
        #expect(!text.contains("access-control"))
        #expect(text.contains("cache-control: no-store"))
    }

    @Test func theOpenAPIDocumentIsJSON() throws {
        let document = try JSONValue.parse(Array(WebAPIDocument.json.utf8), maximumDepth: 32)
        #expect(document["openapi"]?.stringValue == "3.1.0")
        guard case .object(let paths)? = document["paths"] else {
            Issue.record("no paths")
            return
        }
        #expect(paths.count >= 15)
    }

    @Test func thePageLoadsNothingFromElsewhere() {
        for text in [WebRemotePage.html, WebRemotePage.css, WebRemoteScript.javascript] {
            #expect(!text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"))
        }
        for hook in ["name=\"code\"", "name=\"tv\"", "data-status", "data-gesture-arm", "data-key=\"up\"", "data-action=\"text\""] {
            #expect(WebRemotePage.html.contains(hook), "the page lacks the hook \(hook)")
        }
        #expect(WebRemoteAssets.contentSecurityPolicy.contains("default-src 'none'"))
    }
}
