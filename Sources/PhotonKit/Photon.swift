import Foundation
import PhotonCore
import PhotonNet
import PhotonStore

/// Photon as a library: find, pair with and drive TVs of every registered brand. Every
/// door — the `photon` command line, the daemon's socket API, the MQTT bridge, a Swift
/// program — uses this one façade, so they behave the same: one session service per
/// process (`pool`), and one `CommandRouter` that every command, a wake included, passes
/// before anything reaches the network (de-duplication, expiry, target binding, source
/// rules, no automatic retry).
///
/// ```swift
/// let photon = try Photon(adapters: BuiltInPlugins.adapters)
/// let tv = try await photon.connect("living-room")
/// try await tv.send(.key(.key(.home), .press))
/// await tv.close()
/// ```
public final class Photon: Sendable {
    /// The brands this instance knows, by id.
    public let registry: AdapterRegistry
    /// The paired TVs and their secrets.
    public let store: Store
    /// What opens a TV's session: the store's record, its adapter and the secrets.
    public let sessions: SessionFactory
    /// How long a network step may take before it fails with `timeout`.
    public let timeout: Duration
    /// Where debug lines go (redacted).
    public let log: PhotonLog
    /// The router every command of this process goes through.
    public let router: CommandRouter
    /// The sessions this process holds to its TVs.
    public let pool: TVSessionPool
    let clock: any RouterClock

    /// A façade over the store at `paths` (default: the user's XDG locations, or
    /// `PHOTON_HOME`). `policy`: one-shot sessions (the CLI, scripts) or warm ones that
    /// reconnect (a daemon); `cachesStore` keeps the store's files in memory until they
    /// change on disk (for a long-lived process with many TVs).
    public init(
        adapters: AdapterRegistry, paths: StorePaths? = nil, timeout: Duration = .seconds(10), log: PhotonLog = .silent,
        clock: any RouterClock = SystemClock(), policy: SessionPolicy = .oneShot, serviceLog: ServiceLog? = nil,
        cachesStore: Bool = false, routerPolicy: RouterPolicy = RouterPolicy()
    ) throws {
        let paths = try paths ?? StorePaths.resolve(home: nil)
        registry = adapters
        store = Store(paths: paths)
        self.timeout = timeout
        self.log = log
        self.clock = clock
        sessions = SessionFactory(store: store, registry: adapters, timeout: timeout, log: log, cachesStore: cachesStore, clock: clock)
        let pool = TVSessionPool(
            factory: sessions, policy: policy, clock: clock, log: serviceLog ?? ServiceLog(notice: { log.debug($0) }, debug: log))
        self.pool = pool
        router = CommandRouter(
            clock: clock, policy: routerPolicy,
            deliver: { envelope in
                guard let tv = pool.existing(envelope.target) else {
                    throw PhotonError(.connectionClosed, "the session to \(envelope.target) is closed", hint: "connect again")
                }
                if case .wake(let request) = envelope.command {
                    let adapter = try adapters.adapter(id: await tv.device.brand)
                    return try await tv.wake(request, adapter: adapter) ? .woke : .alreadyAwake
                }
                // The envelope's expiry bounds the wait for a connection, too.
                let remaining = envelope.expiresAt.timeIntervalSince(clock.now)
                let acknowledged = try await tv.send(envelope.command, deadline: ContinuousClock.now + .clampedSeconds(remaining, maximum: 3600))
                return acknowledged ? .acknowledged : .sent
            })
    }

    /// The paired TVs.
    public func pairedTVs() async throws -> [DeviceRecord] { try await sessions.devices().devices }

    /// A paired TV by nickname, id or address.
    public func device(_ name: String) async throws -> DeviceRecord { try await sessions.device(named: name) }

    /// The adapter of a paired TV.
    public func adapter(for device: DeviceRecord) throws -> any TVAdapter { try registry.adapter(id: device.brand) }

    /// Connects to a paired TV: a router session bound to it over the session this
    /// process holds (shared by every remote connected to the same TV). With `wake`, a TV
    /// that does not answer is woken as its brand allows, and waited for — through the
    /// router, like any command. One-shot sessions open now (so an unreachable TV fails
    /// here); warm ones connect in the background. `expecting` is the command a one-shot
    /// session is opened to send, if known: its adapter may prepare for it while it opens.
    public func connect(_ name: String, source: CommandSource = .apiClient, wake: WakeRequest? = nil, expecting: RemoteCommand? = nil)
        async throws -> TVRemote
    {
        let tv = try await pool.acquire(name)
        PhaseTimer.mark("device looked up")
        let routerSession = await router.openSession(source: source, target: tv.deviceID)
        let remote = await TVRemote(photon: self, tv: tv, routerSession: routerSession, source: source)
        do {
            if let wake {
                remote.wasWoken = try await remote.send(.wake(wake), lifetime: .seconds(10)) == .woke
            }
            if case .oneShot = pool.policy {
                _ = try await tv.ensureSession(deadline: ContinuousClock.now + timeout, expecting: expecting)
            } else {
                await tv.warm()
            }
        } catch {
            await remote.close()
            throw error
        }
        return remote
    }

    /// Sends one command to a paired TV (connect, send, close), as `photon key` does.
    public func send(_ command: RemoteCommand, to name: String, id: UUID = UUID(), lifetime: Duration = .seconds(10), wake: WakeRequest? = nil)
        async throws
    {
        let remote = try await connect(name, source: .cli, wake: wake, expecting: command)
        do {
            try await remote.send(command, id: id, lifetime: lifetime)
            await remote.close()
        } catch {
            await remote.close()
            throw error
        }
    }

    /// Sends the wake signal for `device` (Wake-on-LAN to its stored MACs) at once, without
    /// waiting; returns where it went. For `photon wake`, a user's explicit request.
    @discardableResult
    public func wake(_ device: DeviceRecord, destinations: [String] = []) throws -> [String] {
        try TVWaker.wake(device, adapter: try adapter(for: device), destinations: destinations)
    }

    /// Closes every session (a daemon stopping).
    public func shutdown() async { await pool.shutdown() }
}
