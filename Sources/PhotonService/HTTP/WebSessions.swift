import Foundation
import PhotonCore
import PhotonKit
import PhotonNet

/// The router sessions web clients opened: one per page load (`page`, the `web` source)
/// and the armed gesture sessions. Each belongs to the client that opened it; a client
/// keeps a few at most (the oldest closes first), and all of a revoked client's close.
actor WebSessions {
    enum Kind: Sendable { case page, gesture }

    static let perClient = 8

    private struct Owned {
        var client: String
        var kind: Kind
        var opened: ContinuousClock.Instant
    }
    private var sessions: [UUID: Owned] = [:]

    func add(_ id: UUID, client: String, kind: Kind, router: CommandRouter) async {
        sessions[id] = Owned(client: client, kind: kind, opened: .now)
        let mine = sessions.filter { $0.value.client == client && $0.value.kind == kind }.sorted { $0.value.opened < $1.value.opened }
        for (old, _) in mine.dropLast(Self.perClient) {
            sessions[old] = nil
            await router.closeSession(old)
        }
    }

    /// The session's kind if `client` owns it.
    func owned(_ id: UUID, by client: String) -> Kind? {
        guard let owned = sessions[id], owned.client == client else { return nil }
        return owned.kind
    }

    /// Closes a session of `client` (pending commands are cancelled); false when it has none such.
    func close(_ id: UUID, of client: String, router: CommandRouter) async -> Bool {
        guard sessions[id]?.client == client else { return false }
        sessions[id] = nil
        await router.closeSession(id)
        return true
    }

    func close(ofClientsNotIn current: Set<String>, router: CommandRouter) async {
        for (id, owned) in sessions where !current.contains(owned.client) {
            sessions[id] = nil
            await router.closeSession(id)
        }
    }

    func closeAll(router: CommandRouter) async {
        for id in sessions.keys { await router.closeSession(id) }
        sessions = [:]
    }
}

/// `GET /api/v1/events`: a WebSocket that carries the TVs' state changes as the socket
/// API's subscription lines (`{"event":"volume","tv":…}`), the current state first. One TV
/// (`?tv=NAME`) or every paired TV. Closed with 1008 when its client is revoked, and with
/// 1001 when it answers no ping for two intervals (a phone that walked away).
final class WebEventStreams: Sendable {
    let photon: Photon
    let log: ServiceLog
    let ping: Duration
    private let open = WebSocketRegistry()
    static let perClient = 8

    init(photon: Photon, log: ServiceLog, ping: Duration) {
        self.photon = photon
        self.log = log
        self.ping = ping
    }

    func open(_ request: DoorRequest, stream: any ByteStream, client: String, protocolVersion: Int) async throws -> HTTPAnswer {
        if let spoken = request.query["protocol"], spoken != String(protocolVersion) {
            throw HTTPRefusal(409, "protocol-mismatch", "this server speaks web protocol \(protocolVersion)", hint: "reload the page")
        }
        var tvs: [PooledTV] = []
        if let name = request.query["tv"] {
            tvs = [try await photon.pool.tv(named: name)]
        } else {
            for device in try await photon.pairedTVs().prefix(64) { tvs.append(try await photon.pool.tv(named: device.id)) }
        }
        guard open.count(of: client) < Self.perClient else { throw Self.tooMany }
        let upgrade = HTTPServerRequest(
            head: request.head, method: request.method, target: request.target, body: [], stream: stream, leftover: request.leftover)
        // The page offers `photon-web` (with its key as a second subprotocol): a browser
        // fails the connection unless the server chooses one of those it offered.
        let offered = (request.head["Sec-WebSocket-Protocol"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let connection = try await upgrade.upgrade(
            maxMessageSize: 4096, subprotocol: offered.contains(PresentedToken.webSocketProtocol) ? PresentedToken.webSocketProtocol : nil)
        guard let id = open.add(connection, client: client, limit: Self.perClient) else {
            await connection.close(code: 1008, reason: "too many event streams")
            return .upgraded
        }
        let outbox = Outbox(maximumLines: 256, maximumBytes: 1 << 20)
        for tv in tvs {
            let deviceID = tv.deviceID
            await tv.subscribe(id) { update in outbox.push(ServiceProtocol.line(update, tv: deviceID).encoded) }
            await tv.warm()
        }
        let writer = Task {
            while let lines = await outbox.next() {
                for line in lines {
                    do { try await connection.send(.text(line)) } catch { return }
                }
            }
            // A client that does not keep up is closed rather than buffered without end.
            if outbox.overflowed { await connection.close(code: 1008, reason: "too slow") }
        }
        // The client only answers pings and closes; anything it sends is ignored. A stream
        // quiet for an interval is pinged; one that has answered nothing for two is gone.
        let opened = ContinuousClock.now
        while true {
            do {
                guard try await connection.receive(timeout: ping) != nil else { break }
            } catch let error as PhotonError where error.code == .timeout {
                if ContinuousClock.now - (connection.lastActivity ?? opened) >= ping * 2 {
                    log.debug("http: closed an event stream that answered no ping")
                    await connection.close(code: 1001, reason: "no answer to pings")
                    break
                }
                do { try await connection.sendPing() } catch { break }
            } catch {
                break
            }
        }
        outbox.close()
        writer.cancel()
        for tv in tvs { await tv.unsubscribe(id) }
        open.remove(id)
        await connection.close()
        return .upgraded
    }

    static let tooMany = HTTPRefusal(429, "rate-limited", "this client has \(perClient) event streams open", hint: "close some first")

    func close(ofClientsNotIn current: Set<String>) async { await open.close(ofClientsNotIn: current) }

    func closeAll() async { await open.closeAll() }
}
