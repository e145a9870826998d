import Foundation
import PhotonCore
import PhotonKit
import PhotonNet
import PhotonTestSupport
import Testing

@testable import PhotonService

/// The door's rules on who may do what, over time: revocation that cuts every stream
/// whoever reads the client file first, the source a door (not a client) sets, and a wake
/// admitted by the router like any command.
extension HTTPDoorTests {
    /// Waits until `events` ends (a close, or the connection cut), at most five seconds.
    func ended(_ events: WebSocketConnection) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            do {
                if try await events.receive(timeout: .seconds(1)) == nil { return true }
            } catch let error as PhotonError where error.code == .timeout {
                continue
            } catch {
                return true
            }
        }
        return false
    }

    /// Power on through the HTTP door (the `wake` the socket API runs too, one rule for every
    /// door): an expired or repeated request sends no Wake-on-LAN packet, a fresh one does.
    @Test func anExpiredOrRepeatedWakeSendsNoPacket() async throws {
        let receiver = try UDPReceiver(host: "127.0.0.1", port: 0)
        defer { receiver.close() }
        var limits = ServiceLimits()
        limits.wakeDestinations = ["127.0.0.1"]
        limits.wakePorts = [receiver.port]
        let tv = try await Fixture(limits: limits)
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        await tv.roku.stop()  // the TV is off: nothing answers at its address
        func packets(within limit: Duration) async -> Int {
            var count = 0
            while let (packet, _) = try? await receiver.receive(timeout: limit) {
                if packet.count == 102 { count += 1 }
            }
            return count
        }
        let now = Date().timeIntervalSince1970
        let stale = #"{"commandId":"\#(UUID().uuidString)","issuedAt":\#(now - 60),"expiresAt":\#(now - 30),"wait":1}"#
        let expired = try await tv.request("POST", "/api/v1/tvs/tv/wake", json: stale, token: token)
        #expect(expired.body.contains("expired"), "\(expired.body)")
        #expect(await packets(within: .milliseconds(300)) == 0, "an expired wake sent a packet")
        let fresh = #"{"commandId":"\#(UUID().uuidString)","issuedAt":\#(now),"expiresAt":\#(now + 9),"wait":1}"#
        _ = try await tv.request("POST", "/api/v1/tvs/tv/wake", json: fresh, token: token)
        #expect(await packets(within: .milliseconds(500)) >= 1, "a fresh wake sent no packet")
        let repeated = try await tv.request("POST", "/api/v1/tvs/tv/wake", json: fresh, token: token)
        #expect(repeated.code == "duplicate", "\(repeated.body)")
        #expect(await packets(within: .milliseconds(300)) == 0, "a repeated wake sent a packet")
    }

    /// Round 4, L1: the door sets the source. A page (cookie) is `web` and a script (bearer
    /// token) `api-client`; naming another is refused and sends nothing, so a page cannot
    /// escape the bounded-hold rule by calling itself a script.
    @Test func theDoorSetsTheSourceNotTheClient() async throws {
        let tv = try await Fixture()
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        let page = tv.pageHeaders(token) + [("Origin", tv.origin)]
        let escaped = try await tv.request(
            "POST", "/api/v1/tvs/tv/commands", headers: page, json: #"{"key":"select","action":"hold-start","source":"api-client"}"#)
        #expect(escaped.status == 400 && escaped.body.contains("set by the door"), "\(escaped.body)")
        let named = try await tv.request("POST", "/api/v1/tvs/tv/commands", json: #"{"key":"up","source":"web"}"#, token: token)
        #expect(named.status == 400, "\(named.body)")
        #expect(tv.keys().isEmpty, "\(tv.keys())")
        #expect(try await tv.request("POST", "/api/v1/tvs/tv/commands", json: #"{"key":"up","source":"api-client"}"#, token: token).status == 200)
        #expect(try await tv.request("POST", "/api/v1/tvs/tv/commands", headers: page, json: #"{"key":"down","source":"web"}"#).status == 200)
        #expect(tv.keys() == ["Up", "Down"])
    }

    @Test func theEventStreamCarriesStateAndARevokedClientIsCutOff() async throws {
        let tv = try await Fixture()
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        // A WebSocket from another origin is refused before the upgrade.
        let foreign = try await SocketStream.connect(host: "127.0.0.1", port: tv.port, timeout: .seconds(3))
        await #expect(throws: PhotonError.self) {
            _ = try await WebSocketClient.connect(
                over: foreign, host: "127.0.0.1:\(tv.port)", target: "/api/v1/events?tv=tv",
                headers: ["Authorization": "Bearer \(token)", "Origin": "http://evil.example"], timeout: .seconds(3))
        }
        await foreign.close()
        let stream = try await SocketStream.connect(host: "127.0.0.1", port: tv.port, timeout: .seconds(3))
        let events = try await WebSocketClient.connect(
            over: stream, host: "127.0.0.1:\(tv.port)", target: "/api/v1/events?tv=tv&protocol=1",
            headers: ["Authorization": "Bearer \(token)"], timeout: .seconds(3))
        guard case .text(let first)? = try await events.receive(timeout: .seconds(10)) else {
            Issue.record("no event arrived")
            return
        }
        let line = try JSONValue.parse(Array(first.utf8), maximumDepth: 8)
        #expect(line["tv"]?.stringValue?.hasPrefix("roku-") == true, "\(first)")
        #expect(try await tv.store.revokeWebClient(named: "phone"))
        // Cut off within the revocation check (100 ms here): the stream ends.
        #expect(await ended(events), "the revoked client's event stream stayed open")
    }

    /// Round 4, M1: a request that re-reads the client file first (any token, even a bogus
    /// one) does not hide the revocation from the watcher, and a client paired again under
    /// the revoked one's name owns none of its streams: the stream is cut all the same.
    @Test func aRevocationIsEnforcedWhoeverReadsItFirstAndANewNameOwnsNothing() async throws {
        let tv = try await Fixture(configure: { $0.revocationCheck = .milliseconds(300) })
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        let stream = try await SocketStream.connect(host: "127.0.0.1", port: tv.port, timeout: .seconds(3))
        let events = try await WebSocketClient.connect(
            over: stream, host: "127.0.0.1:\(tv.port)", target: "/api/v1/events?tv=tv&protocol=1",
            headers: ["Authorization": "Bearer \(token)"], timeout: .seconds(3))
        _ = try await events.receive(timeout: .seconds(10))
        #expect(try await tv.store.revokeWebClient(named: "phone"))
        // At once, before the watcher's next tick: a bogus token's request reads the file,
        // and a new client pairs under the same name.
        #expect(try await tv.request("GET", "/api/v1/tvs", token: "bogus-token").status == 401)
        _ = try await tv.pairClient()
        #expect(await ended(events), "the revoked client's event stream stayed open")
    }
}
