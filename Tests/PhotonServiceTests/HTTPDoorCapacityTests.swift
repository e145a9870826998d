import Foundation
import PhotonCore
import PhotonKit
import PhotonNet
import PhotonStore
import PhotonTestSupport
import Testing

@testable import PhotonService

/// What the door holds open and for whom (round 4, L2): the connection cap counts TLS
/// handshakes in progress, connections without a token make way for a client at the cap,
/// and an event stream that answers no ping is closed.
extension HTTPDoorTests {
    /// Whether the door has closed `stream` (end of stream, or an error), within `limit`.
    func isClosed(_ stream: any ByteStream, within limit: Duration = .seconds(3)) async -> Bool {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            do {
                if try await stream.read(maxLength: 4096, timeout: .milliseconds(100)).isEmpty { return true }
            } catch let error as PhotonError where error.code == .timeout {
                continue
            } catch {
                return true
            }
        }
        return false
    }

    @Test func silentTLSHandshakesAreHeldToTheConnectionCap() async throws {
        let identity = try TestEnvironment.sharedClientIdentity
        let tv = try await Fixture {
            $0.identity = StoredIdentity(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
            $0.maximumConnections = 4
        }
        defer { Task { await tv.stop() } }
        // Ten clients that connect and never start TLS (measured before: every one held
        // until the handshake timeout, beyond the cap).
        var silent: [SocketStream] = []
        for _ in 0..<10 { silent.append(try await SocketStream.connect(host: "127.0.0.1", port: tv.port, timeout: .seconds(3))) }
        defer { for stream in silent { Task { await stream.close() } } }
        // Which four it keeps depends on the order its accept tasks ran in (under load, not
        // always the order of the connects): all ten are watched at once, and six must close.
        let closed = await withTaskGroup(of: Bool.self) { group in
            for stream in silent { group.addTask { await self.isClosed(stream) } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(closed == 6, "the door held \(10 - closed) silent handshakes with a cap of 4")
        // A real client still gets in and is served.
        #expect(try await tv.request("GET", "/api/v1/version").status == 200)
    }

    @Test func tokenlessKeepAliveConnectionsMakeWayForAPairedClient() async throws {
        let tv = try await Fixture { $0.maximumConnections = 4 }
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        // Four keep-alive connections without a token fill the door (measured before: the
        // paired client got 503 until they left).
        var idle: [any ByteStream] = []
        for _ in 0..<4 {
            let stream = try await tv.connect()
            try await stream.write(
                HTTPHead(startLine: "GET /api/v1/version HTTP/1.1", headers: [("Host", "127.0.0.1:\(tv.port)")]).bytes, timeout: .seconds(3))
            #expect(try await HTTPTestAnswer.read(from: stream).status == 200)
            idle.append(stream)
        }
        defer { for stream in idle { Task { await stream.close() } } }
        let sent = try await tv.request("POST", "/api/v1/tvs/tv/commands", json: #"{"key":"home"}"#, token: token)
        #expect(sent.status == 200, "\(sent.body)")
        #expect(await isClosed(idle[0]), "the oldest tokenless connection was kept")
        #expect(tv.keys() == ["Home"])
    }

    @Test func anEventStreamThatAnswersNoPingIsClosedAndOneThatAnswersStays() async throws {
        // 400 ms: long enough that a loaded machine's late pong is still in time.
        let tv = try await Fixture { $0.eventPing = .milliseconds(400) }
        defer { Task { await tv.stop() } }
        let token = try await tv.pairClient()
        func open() async throws -> WebSocketConnection {
            let stream = try await SocketStream.connect(host: "127.0.0.1", port: tv.port, timeout: .seconds(3))
            let events = try await WebSocketClient.connect(
                over: stream, host: "127.0.0.1:\(tv.port)", target: "/api/v1/events?tv=tv&protocol=1",
                headers: ["Authorization": "Bearer \(token)"], timeout: .seconds(3))
            guard case .text? = try await events.receive(timeout: .seconds(10)) else { throw TestFailure("no first event") }
            return events
        }
        let silent = try await open()
        let answering = try await open()
        // The answering client reads (and so answers pings) for three seconds, many
        // intervals; the silent one reads nothing meanwhile.
        let end = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < end {
            do { if try await answering.receive(timeout: .milliseconds(200)) == nil { break } } catch let error as PhotonError
                where error.code == .timeout
            {
                continue
            }
        }
        #expect(await answering.closeCode == nil, "a stream that answers pings was closed")
        #expect(await ended(silent), "a stream that answers no ping stayed open")
        #expect(await silent.closeCode == 1001)
        await answering.close()
    }
}
