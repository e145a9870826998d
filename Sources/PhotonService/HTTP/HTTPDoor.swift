import Foundation
import PhotonCore
import PhotonCrypto
import PhotonKit
import PhotonNet
import PhotonStore

/// How the HTTP door listens and what it tolerates from one client.
public struct HTTPDoorSettings: Sendable {
    /// The address to bind (127.0.0.1 by default; a wildcard or LAN address needs TLS).
    public var host = "127.0.0.1"
    public var port: UInt16 = 8080
    /// The HTTPS certificate and key; nil serves plain HTTP, which only a loopback address
    /// may do.
    public var identity: StoredIdentity?
    /// This machine's names and addresses, which `Host` may name on a wildcard address.
    public var machineNames: [String] = []
    public var machineAddresses: [String] = []
    public var maximumBody = 16 * 1024
    public var maximumHead = 16 * 1024
    /// How long a client has to send a whole request head (slow clients are cut off).
    public var requestTimeout: Duration = .seconds(10)
    /// How long an idle keep-alive connection stays open.
    public var idleTimeout: Duration = .seconds(30)
    /// Connections at once, TLS handshakes in progress included. At the cap, the oldest
    /// connection no client has identified itself on makes way for the new one.
    public var maximumConnections = 64
    public var maximumConnectionsPerPeer = 16
    /// How often an event stream with nothing to say is pinged; one that answers nothing
    /// (no pong) for two intervals is closed.
    public var eventPing: Duration = .seconds(20)
    /// The microphone streams' bounds.
    public var voice = WebVoiceLimits()
    public var requestsPerSecond = 20.0
    public var requestBurst = 40.0
    /// How often the door looks for revoked clients to cut off.
    public var revocationCheck: Duration = .milliseconds(500)
    /// Photon's version, which `/api/v1/version` reports.
    public var version = ""
    /// The TVs the daemon's HomeKit door serves (device id → port), for the page's Apple
    /// Home section; set by `ServiceServer` when it runs one.
    public var homeKitPorts: @Sendable () -> [String: UInt16] = { [:] }

    public init() {}

    public var isSecure: Bool { identity != nil }
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" || host == "localhost" }
}

/// `photon serve --http`: the daemon's HTTP door. Serves API v1 (docs/http-api.md), the
/// OpenAPI description and the web remote, over HTTPS on any non-loopback address. Every
/// command goes through the same router as the other doors, from the `web` or `gesture`
/// source; clients are companion devices paired with a one-time code.
public final class HTTPDoor: Sendable {
    let settings: HTTPDoorSettings
    let log: ServiceLog
    let api: WebAPI
    let clients: WebClientGate
    private let state = Locked<State>(State())

    private struct State {
        var plain: TCPListener?
        var secure: TLSListener?
        var slots: [UUID: Slot] = [:]
        var stopped = false
        var watcher: Task<Void, Never>?
    }

    /// One connection counted against the caps, from accept (before any TLS handshake)
    /// to close.
    struct Slot {
        let peer: String
        let opened: ContinuousClock.Instant
        /// The key of the client whose token the connection presented; nil until then.
        var client: String?
        var close: @Sendable () async -> Void
    }

    public init(photon: Photon, limits: ServiceLimits, settings: HTTPDoorSettings, log: ServiceLog) throws {
        guard settings.isSecure || settings.isLoopback else {
            throw PhotonError(
                .usage, "the HTTP door serves HTTPS only on a non-loopback address (\(settings.host))",
                hint: "give --tls-cert and --tls-key, or let photon make its own certificate (the default)")
        }
        self.settings = settings
        self.log = log
        clients = WebClientGate(store: photon.store)
        api = WebAPI(
            operations: DaemonOperations(photon: photon, limits: limits), clients: clients, settings: settings, log: log)
    }

    /// The address clients use (`http://127.0.0.1:8080/`).
    public var url: String {
        let host = HTTPOriginPolicy.bracketed(
            settings.host == "0.0.0.0" || settings.host == "::" ? (settings.machineNames.first ?? "localhost") : settings.host)
        return "\(settings.isSecure ? "https" : "http")://\(host):\(port)/"
    }

    public var port: UInt16 { state.withLock { $0.plain?.port ?? $0.secure?.port ?? settings.port } }

    /// The SHA-256 fingerprint of the HTTPS certificate, for users to compare.
    public var fingerprint: CertificateFingerprint? {
        guard let identity = settings.identity else { return nil }
        return try? Certificate(pem: identity.certificatePEM).info.fingerprint
    }

    /// Binds the port.
    public func start() throws {
        if let identity = settings.identity {
            var configuration = TLSServerConfiguration(
                certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM, handshakeTimeout: settings.requestTimeout)
            // Clients are known by their tokens; none is asked for a certificate (round 4, L3).
            configuration.requestsClientCertificate = false
            let listener = try TLSListener(host: settings.host, port: settings.port, configuration: configuration)
            state.withLock { $0.secure = listener }
        } else {
            let listener = try TCPListener(host: settings.host, port: settings.port)
            state.withLock { $0.plain = listener }
        }
        api.listening(on: port)
    }

    /// Accepts connections until `stop()`.
    public func run() async {
        let watcher = Task { await watchRevocations() }
        state.withLock { $0.watcher = watcher }
        await withTaskGroup(of: Void.self) { group in
            while true {
                do {
                    let (plain, secure) = state.withLock { ($0.plain, $0.secure) }
                    if let plain {
                        let stream = try await plain.accept()
                        group.addTask { await self.admit(stream) }
                    } else if let secure {
                        let pending = try await secure.acceptPending()
                        group.addTask {
                            // The handshake holds a slot: a crowd of silent TLS clients is
                            // held to the cap like any other (round 4, L2).
                            let peer = pending.peerAddress?.host ?? "?"
                            guard let slot = await self.reserve(peer: peer, close: { pending.abort() }) else {
                                pending.abort()
                                return
                            }
                            defer { self.release(slot) }
                            guard let stream = try? await pending.handshake() else { return }
                            await self.serve(stream, slot: slot, address: pending.peerAddress)
                        }
                    } else {
                        break
                    }
                } catch {
                    if !state.withLock({ $0.stopped }) { log.notice("http: stopped accepting: \(PhotonError.wrap(error).message)") }
                    break
                }
            }
        }
        watcher.cancel()
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        let (plain, secure, open, watcher) = state.withLock { s in
            s.stopped = true
            defer {
                s.plain = nil
                s.secure = nil
            }
            return (s.plain, s.secure, Array(s.slots.values), s.watcher)
        }
        plain?.close()
        secure?.close()
        watcher?.cancel()
        for slot in open { await slot.close() }
        await api.closeAllSessions()
        await clients.flushSeen()
    }

    // MARK: connections

    /// Takes a slot for a new connection from `peer`, or nil when the peer has its share or
    /// the door is full of identified clients. At the cap, the oldest connection that has
    /// not presented a valid token is closed to make way: 64 tokenless keep-alive
    /// connections no longer lock a real client out (round 4, L2).
    private func reserve(peer: String, close: @escaping @Sendable () async -> Void) async -> UUID? {
        let id = UUID()
        let (admitted, evicted) = state.withLock { s -> (Bool, Slot?) in
            guard !s.stopped, s.slots.values.count(where: { $0.peer == peer }) < settings.maximumConnectionsPerPeer else {
                return (false, nil)
            }
            var evicted: Slot?
            if s.slots.count >= settings.maximumConnections {
                guard let oldest = s.slots.filter({ $0.value.client == nil }).min(by: { $0.value.opened < $1.value.opened }) else {
                    return (false, nil)
                }
                evicted = s.slots.removeValue(forKey: oldest.key)
            }
            s.slots[id] = Slot(peer: peer, opened: .now, client: nil, close: close)
            return (true, evicted)
        }
        if let evicted {
            log.debug("http: full; closed an unidentified connection from \(evicted.peer) for one from \(peer)")
            await evicted.close()
        }
        return admitted ? id : nil
    }

    private func release(_ slot: UUID) {
        state.withLock { _ = $0.slots.removeValue(forKey: slot) }
    }

    private func admit(_ stream: SocketStream) async {
        let peer = stream.peerAddress?.host ?? "?"
        guard let slot = await reserve(peer: peer, close: { await stream.close() }) else {
            let refusal = HTTPRefusal(503, "busy", "too many connections", hint: "try again shortly", closesConnection: true)
            try? await stream.write(HTTPAnswer.refusal(refusal).encoded(keepAlive: false), timeout: .seconds(1))
            await stream.close()
            return
        }
        defer { release(slot) }
        await serve(stream, slot: slot, address: stream.peerAddress)
    }

    /// Serves requests on one connection (keep-alive) until it closes, misbehaves or
    /// upgrades to the event stream. A connection no client has identified itself on waits
    /// for its next request only `requestTimeout`, not the keep-alive `idleTimeout`.
    private func serve(_ stream: any ByteStream, slot: UUID, address: SocketAddress?) async {
        let peer = DoorPeer(address: address, serverPort: port)
        let admitted = state.withLock { s -> Bool in
            guard !s.stopped, s.slots[slot] != nil else { return false }
            s.slots[slot]?.close = { await stream.close() }
            return true
        }
        guard admitted else { return await stream.close() }
        var served = 0
        while true {
            let identified = state.withLock { $0.slots[slot]?.client != nil }
            let request: HTTPRequestReading.Outcome
            do {
                request = try await HTTPRequestReading.read(
                    from: stream, maximumHead: settings.maximumHead, maximumBody: settings.maximumBody,
                    timeout: served == 0 || !identified ? settings.requestTimeout : settings.idleTimeout, first: served == 0)
            } catch {
                break
            }
            served += 1
            switch request {
            case .refused(let refusal):
                log.debug("http \(peer.host): refused (\(refusal.status) \(refusal.code)): \(refusal.message)")
                try? await stream.write(HTTPAnswer.refusal(refusal).encoded(keepAlive: false), timeout: .seconds(2))
                await stream.close()
                return
            case .request(let request, let pipelined):
                let answer = await api.handle(request, stream: stream, peer: peer) { client in
                    state.withLock { $0.slots[slot]?.client = client }
                }
                if case .upgraded = answer.kind { return }
                let keepAlive = !answer.closesConnection && !pipelined && request.keepsAlive
                log.debug("http \(peer.host): \(request.method) \(request.pathForLog) → \(answer.status)")
                do {
                    try await stream.write(answer.encoded(keepAlive: keepAlive, head: request.method == "HEAD"), timeout: .seconds(10))
                } catch {
                    break
                }
                if !keepAlive {
                    await stream.close()
                    return
                }
            }
        }
        await stream.close()
    }

    /// Cuts off the connections, event streams and sessions of clients that were revoked
    /// (by `photon web revoke`, which edits the client file), within `revocationCheck`.
    private func watchRevocations() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: settings.revocationCheck) } catch { return }
            // Every tick compares with the clients paired now, whoever re-read the file
            // first (a request's authentication may have: round 4, M1), and cuts what any
            // other key owns.
            await clients.refresh()
            let current = clients.currentKeys
            // Event streams first, with a close frame that tells the page why (1008).
            await api.closeEventStreams(ofClientsNotIn: current)
            let cut = state.withLock { s in
                s.slots.values.filter { slot in slot.client.map { !current.contains($0) } ?? false }.map(\.close)
            }
            for close in cut { await close() }
            await api.closeSessions(ofClientsNotIn: current)
            if !cut.isEmpty { log.notice("http: cut off \(cut.count) connection(s) of revoked clients") }
        }
    }
}

/// Who is at the other end of a door connection: the address the rate limits and caps
/// count, and the device a wrong pairing code counts against.
struct DoorPeer: Sendable {
    let address: SocketAddress?
    let serverPort: UInt16

    var host: String { address?.host ?? "?" }

    /// The address of a device on the network. On loopback, where every local user comes
    /// from 127.0.0.1, the user owning the connecting socket (round 4, L5: another local
    /// user could lock the owner's code).
    var device: String {
        guard let address else { return "?" }
        let host = address.host
        guard host.hasPrefix("127.") || host == "::1" || host.hasPrefix("::ffff:127.") else { return host }
        guard let uid = LoopbackSocketOwner.uid(clientPort: address.port, serverPort: serverPort) else { return "loopback" }
        return "uid:\(uid)"
    }
}
