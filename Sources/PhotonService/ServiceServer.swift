import Foundation
import Glibc
import PhotonCore
import PhotonKit
import PhotonNet
import PhotonStore

/// The limits that keep one client from costing the others.
public struct ServiceLimits: Sendable {
    /// The longest request line, in bytes.
    public var requestBytes = 64 * 1024
    /// What may wait in one client's outbox before it is disconnected as too slow.
    public var queuedLines = 1024
    public var queuedBytes = 1 << 20
    /// How long a write to a client may wait for it to read.
    public var writeStall: Duration = .seconds(5)
    public var clients = 128
    public var sessionsPerClient = 64
    public var subscriptionsPerClient = 64
    /// Where a `wake` that names no broadcast address or port sends its packet (`photon
    /// serve --wake-broadcast`, `--wake-port`): empty means every broadcast address, ports 9
    /// and 7.
    public var wakeDestinations: [String] = []
    public var wakePorts: [UInt16] = []
    public init() {}
}

/// `photon serve`: holds warm sessions to the TVs its clients use and serves the
/// JSON-lines API (docs/daemon.md) on a Unix socket that only this user can reach —
/// the socket is 0600 in a 0700 directory, and every client's uid is checked with
/// SO_PEERCRED before it is read from.
public final class ServiceServer: Sendable {
    public let paths: StorePaths
    /// The one façade of the daemon: its session service (warm sessions that reconnect)
    /// and its router, which the socket API and the MQTT bridge share.
    public let photon: Photon
    let limits: ServiceLimits
    let log: ServiceLog
    private let state = Locked<State>(State())

    private struct State {
        var bridge: MQTTBridge?
        var bridgeTask: Task<Void, Never>?
        var door: HTTPDoor?
        var doorTask: Task<Void, Never>?
        var homeKit: HomeKitDoor?
        var listener: UnixListener?
        var lock: ServiceLock?
        var clients: [UUID: APIConnection] = [:]
        var stopped = false
        var reloadHooks: [@Sendable () async -> Void] = []
    }

    /// `photon` must hold warm sessions (`SessionPolicy.keepWarm`).
    public init(photon: Photon, limits: ServiceLimits = ServiceLimits(), log: ServiceLog) {
        self.paths = photon.store.paths
        self.photon = photon
        self.limits = limits
        self.log = log
    }

    public var socketPath: String { paths.socketPath }

    /// Takes the home's daemon lock and starts listening. Throws when another daemon
    /// serves this home or the runtime directory is not private.
    public func start() throws {
        let store = photon.store
        try store.prepareRuntimeDirectory()
        guard let lock = try store.acquireServiceLock() else {
            throw PhotonError(
                .usage, "photon serve is already running for this home\(store.serviceLockHolder().map { " (pid \($0))" } ?? "")",
                hint: "stop it first, or use another --home")
        }
        let listener = try UnixListener(path: socketPath)
        state.withLock {
            $0.lock = lock
            $0.listener = listener
        }
        log.notice("listening on \(socketPath)")
    }

    /// Starts the MQTT bridge (`--mqtt`): every paired TV is connected and published to
    /// Home Assistant, and commands from the broker go through the router.
    /// `onFatal` is called once if the bridge cannot go on (another daemon holds the site).
    public func startMQTT(_ settings: MQTTSettings, version: String, onFatal: @escaping @Sendable (PhotonError) -> Void = { _ in }) async throws {
        let bridge = try MQTTBridge(photon: photon, settings: settings, log: log, version: version, onFatal: onFatal)
        let task = Task { await bridge.run() }
        state.withLock {
            $0.bridge = bridge
            $0.bridgeTask = task
        }
        state.withLock { $0.reloadHooks.append { await bridge.syncTVs() } }
    }

    /// Stops the MQTT bridge alone (its site is another daemon's): the socket API, the HTTP
    /// door and the TVs' sessions go on.
    public func stopMQTT() async {
        let (bridge, task) = state.withLock { s -> (MQTTBridge?, Task<Void, Never>?) in
            defer {
                s.bridge = nil
                s.bridgeTask = nil
            }
            return (s.bridge, s.bridgeTask)
        }
        await bridge?.stop()
        await task?.value
    }

    /// Opens the HTTP door (`--http`): API v1 and the web remote, through this daemon's
    /// router and sessions.
    @discardableResult
    public func startHTTP(_ settings: HTTPDoorSettings) throws -> HTTPDoor {
        var settings = settings
        settings.homeKitPorts = { [state] in state.withLock { $0.homeKit?.ports } ?? [:] }
        let door = try HTTPDoor(photon: photon, limits: limits, settings: settings, log: log)
        try door.start()
        let task = Task { await door.run() }
        state.withLock {
            $0.door = door
            $0.doorTask = task
        }
        log.notice("serving HTTP on \(door.url)")
        return door
    }

    /// Opens the HomeKit door (`--homekit`): an accessory per paired TV, through this
    /// daemon's router and sessions.
    @discardableResult
    public func startHomeKit(_ settings: HomeKitDoorSettings) async throws -> HomeKitDoor {
        let door = HomeKitDoor(photon: photon, settings: settings, log: log)
        try await door.start()
        state.withLock {
            $0.homeKit = door
            $0.reloadHooks.append { [log] in
                do { try await door.sync() } catch { log.notice("homekit: cannot follow the paired TVs: \(PhotonError.wrap(error).message)") }
            }
        }
        return door
    }

    /// Connects to every paired TV now (`--preconnect`) instead of on first use.
    public func preconnect() async throws { try await photon.pool.warmAll() }

    /// Accepts clients until `stop()`.
    public func run() async {
        guard let listener = state.withLock({ $0.listener }) else { return }
        await withTaskGroup(of: Void.self) { group in
            while true {
                let stream: SocketStream
                do {
                    stream = try await listener.accept()
                } catch {
                    if !state.withLock({ $0.stopped }) { log.notice("stopped accepting clients: \(PhotonError.wrap(error).message)") }
                    break
                }
                group.addTask { await self.serve(stream) }
            }
        }
    }

    private func serve(_ stream: SocketStream) async {
        let me = geteuid()
        guard let peer = stream.peerCredentials, peer.uid == me else {
            let who = stream.peerCredentials.map { "uid \($0.uid) (pid \($0.pid))" } ?? "an unknown process"
            log.notice("refused a client: \(who) is not this user (uid \(me))")
            await refuse(stream, PhotonError(.storePermissions, "this daemon serves uid \(me) only", hint: "run photon as that user"))
            return
        }
        let id = UUID()
        let connection = APIConnection(
            stream: stream, photon: photon, limits: limits, log: log, onReload: { [weak self] in await self?.runReloadHooks() })
        let admitted = state.withLock { s -> Bool in
            guard !s.stopped, s.clients.count < limits.clients else { return false }
            s.clients[id] = connection
            return true
        }
        guard admitted else {
            await refuse(stream, PhotonError(.unreachable, "the daemon is busy (\(limits.clients) clients) or stopping", hint: "try again"))
            return
        }
        log.debug("api client connected (pid \(peer.pid))")
        await connection.run(greeting: greeting)
        state.withLock { _ = $0.clients.removeValue(forKey: id) }
        log.debug("api client left (pid \(peer.pid))")
    }

    /// Answers a client that is not served with one error line (instead of the greeting)
    /// and hangs up without reading from it.
    private func refuse(_ stream: SocketStream, _ error: PhotonError) async {
        try? await stream.write(Array((ServiceProtocol.failure(error).encoded + "\n").utf8), timeout: .seconds(1))
        await stream.close()
    }

    private var greeting: JSONValue {
        .object([
            ("event", "hello"), ("protocol", .int(ServiceProtocol.version)), ("pid", .int(Int(getpid()))),
        ])
    }

    /// Stops: no new clients, every client told and disconnected, every TV session
    /// closed cleanly, the socket removed, the lock released.
    public func stop() async {
        let (listener, clients) = state.withLock { s -> (UnixListener?, [APIConnection]) in
            s.stopped = true
            defer { s.listener = nil }
            return (s.listener, Array(s.clients.values))
        }
        listener?.close()
        let (bridge, bridgeTask) = state.withLock { ($0.bridge, $0.bridgeTask) }
        await bridge?.stop()
        await bridgeTask?.value
        let (door, doorTask) = state.withLock { ($0.door, $0.doorTask) }
        await door?.stop()
        await doorTask?.value
        await state.withLock { $0.homeKit }?.stop()
        for client in clients { client.stop(farewell: .object([("event", "shutdown")])) }
        await photon.shutdown()
        state.withLock { $0.lock = nil }
        log.notice("stopped")
    }

    /// Re-reads the store (SIGHUP): TVs forgotten since are closed, changed ones
    /// reconnect with their new details.
    public func reload() async {
        do {
            let (closed, served) = try await photon.pool.reload()
            await runReloadHooks()
            log.notice("reloaded the store: \(closed) TV(s) closed, \(served) served")
        } catch {
            log.notice("cannot reload the store: \(PhotonError.wrap(error).message)")
        }
    }

    /// What follows a reload of the store (the MQTT bridge publishing new TVs and
    /// removing forgotten ones).
    func runReloadHooks() async {
        for hook in state.withLock({ $0.reloadHooks }) { await hook() }
    }
}
