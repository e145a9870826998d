import Foundation
import PhotonCore
import PhotonNet
import PhotonStore

/// Opens sessions to paired TVs the same way for the CLI's direct path and for the
/// daemon: the stored record and secrets, this installation's identity, the real network,
/// and secrets a TV rotates mid-session stored at once.
public struct SessionFactory: Sendable {
    /// Where the paired TVs and secrets are read from.
    public let store: Store
    /// The adapters sessions are opened with.
    public let registry: AdapterRegistry
    /// How long opening a session may take.
    public let timeout: Duration
    /// Where debug lines go.
    public let log: PhotonLog
    /// The clock adapters wait on for their own rules of time (key pacing, polling).
    public let clock: any RouterClock

    private let cache: StoreCache?
    /// The TLS sessions of paired TVs, in memory and in the store's directory, shared by
    /// every session this factory opens (a cold key resumes the last process's session).
    private let tlsSessions: TLSSessionCache

    /// `cachesStore`: keep the store's files in memory and reread them only when they
    /// change on disk — for the daemon, which opens many sessions over a long life.
    public init(
        store: Store, registry: AdapterRegistry, timeout: Duration, log: PhotonLog, cachesStore: Bool = false,
        clock: any RouterClock = SystemClock()
    ) {
        self.store = store
        self.clock = clock
        self.registry = registry
        self.timeout = timeout
        self.log = log
        self.cache = cachesStore ? StoreCache(store: store) : nil
        self.tlsSessions = TLSSessionCache(store: TLSSessionFiles(paths: store.paths))
    }

    /// The paired TVs.
    public func devices() async throws -> DeviceFile {
        if let cache { return try await cache.current().devices }
        return try await store.devices()
    }

    func secrets(for deviceID: String) async throws -> DeviceSecrets {
        if let cache { return try await cache.current().secrets.devices[deviceID] ?? DeviceSecrets() }
        return try await store.secrets(for: deviceID)
    }

    func identity() async throws -> StoredIdentity {
        if let cache, let identity = try await cache.current().secrets.identity { return identity }
        return try await store.clientIdentity()
    }

    /// The context adapters get. `deviceID` names the TV whose secrets a session may
    /// rotate (a token), so they are stored the moment they arrive.
    public func adapterContext(deviceID: String? = nil, timeout: Duration? = nil) async throws -> AdapterContext {
        let identity = try await identity()
        let host = HostName.short ?? "Linux"
        let store = self.store
        let log = self.log
        return AdapterContext(
            connector: NetConnector(log: log, sessions: tlsSessions), clientIdentity: identity.clientIdentity,
            clientName: "Photon on \(host)", timeout: timeout ?? self.timeout, log: log, clock: clock,
            secretsChanged: { previous, updated in
                guard let deviceID else { return }
                let stored = try await store.update { devices, file -> Bool in
                    // Only the pairing the session was opened with may change: a TV
                    // forgotten or paired again meanwhile keeps what the user chose.
                    guard devices.devices.contains(where: { $0.id == deviceID }), file.devices[deviceID] == previous else { return false }
                    file.devices[deviceID] = updated
                    return true
                }
                log.debug(
                    stored
                        ? "stored the TV's new secrets for \(deviceID)"
                        : "the TV's new secrets for \(deviceID) were not stored: its pairing changed meanwhile")
            })
    }

    /// A stored TV by nickname, id or address (`HOST` or `HOST:PORT`).
    public func device(named name: String) async throws -> DeviceRecord {
        if let cache, let found = try await cache.find(name) { return found }
        let file = try await devices()
        if let found = file.find(name) { return found }
        if let ambiguous = file.ambiguity(of: name) { throw ambiguous }
        if let endpoint = try? Endpoint(parsing: name, defaultPort: 0),
            let found = file.devices.first(where: { $0.host == endpoint.host && (endpoint.port == 0 || $0.port == endpoint.port) })
        {
            return found
        }
        let looksLikeAddress = name.contains(".") || name.contains(":")
        throw PhotonError(
            looksLikeAddress ? .notPaired : .notFound,
            looksLikeAddress ? "\(Redaction.sanitize(name)) is not paired" : "no paired TV is called '\(Redaction.sanitize(name))'",
            hint: looksLikeAddress
                ? "pair it first: photon pair \(name)"
                : (file.devices.isEmpty
                    ? "pair one first with `photon pair ADDRESS`"
                    : DeviceFile.didYouMean(name, among: file.devices.map(\.nickname))))
    }

    /// Opens a session to the stored TV `device`, waiting at most `timeout`; `expecting` is
    /// the command it is opened to send, if known (`AdapterContext.expectedCommand`).
    public func openSession(to device: DeviceRecord, timeout: Duration? = nil, expecting: RemoteCommand? = nil) async throws
        -> any RemoteSession
    {
        let adapter = try registry.adapter(id: device.brand)
        let secrets = try await secrets(for: device.id)
        PhaseTimer.mark("store read (device and secrets)")
        var context = try await adapterContext(deviceID: device.id, timeout: timeout)
        context.expectedCommand = expecting
        PhaseTimer.mark("client identity read")
        log.debug("opening a session to \(device.nickname) (\(device.endpoint))")
        let session = try await adapter.openSession(device: device, secrets: secrets, context: context)
        PhaseTimer.mark("session open (brand handshake)")
        return session
    }
}

/// The store's two files as last read, reread when `Store.fileStamp()` changes.
final class StoreCache: Sendable {
    let store: Store
    private struct Entry {
        var stamp: [Int]
        var devices: DeviceFile
        var secrets: SecretFile
        /// Nicknames and ids to records, so a daemon serving thousands of TVs finds one
        /// without a scan per command.
        var byName: [String: DeviceRecord]
    }
    private let cached = Locked<Entry?>(nil)

    init(store: Store) { self.store = store }

    func current() async throws -> (devices: DeviceFile, secrets: SecretFile) {
        let entry = try await load()
        return (entry.devices, entry.secrets)
    }

    /// A TV by nickname or id (what `DeviceFile.find` answers), from the index.
    func find(_ name: String) async throws -> DeviceRecord? { try await load().byName[name] }

    private func load() async throws -> Entry {
        let stamp = store.fileStamp()
        if let hit = cached.withLock({ $0 }), hit.stamp == stamp { return hit }
        let (devices, secrets) = try await store.snapshot()
        var byName: [String: DeviceRecord] = [:]
        // Ids first, nicknames over them: `find` prefers a nickname.
        for device in devices.devices { byName[device.id] = device }
        for device in devices.devices { byName[device.nickname] = device }
        let entry = Entry(stamp: stamp, devices: devices, secrets: secrets, byName: byName)
        cached.withLock { $0 = entry }
        return entry
    }
}
