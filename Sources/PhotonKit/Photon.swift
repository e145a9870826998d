import Foundation
import PhotonCore
import PhotonNet
import PhotonStore

/// Photon as a library: find, pair with and drive TVs of every registered brand. The
/// `photon` command line, the daemon and any Swift program use this same façade, so
/// they behave the same — every command goes through a `CommandRouter` (de-duplication,
/// expiry, target binding, no automatic retry), and waking a TV is one option away.
///
/// ```swift
/// let photon = try Photon(adapters: BuiltInPlugins.adapters)
/// let tv = try await photon.connect("living-room")
/// try await tv.send(.key(.key(.home), .press))
/// await tv.close()
/// ```
public final class Photon: Sendable {
    public let registry: AdapterRegistry
    public let store: Store
    public let sessions: SessionFactory
    public let timeout: Duration
    public let log: PhotonLog
    /// The router every command of this process goes through.
    public let router: CommandRouter
    private let connections = Locked<[String: ConnectedTV]>([:])

    /// A session this process holds to a TV, shared by the remotes connected to it. Its
    /// events go to every remote; the latest state (device, power, app, volume) is kept
    /// and replayed to a remote that connects later.
    final class ConnectedTV: Sendable {
        let device: DeviceRecord
        let session: any RemoteSession
        let users = Locked(0)
        private let fanOut = Locked<(known: [String: TVEvent], subscribers: [UUID: AsyncStream<TVEvent>.Continuation], ended: TVEvent?)>(
            ([:], [:], nil))
        private let reader = Locked<Task<Void, Never>?>(nil)

        init(device: DeviceRecord, session: any RemoteSession) {
            self.device = device
            self.session = session
            let task = Task { [weak self] () -> Void in
                for await event in session.events { self?.publish(event) }
            }
            reader.withLock { $0 = task }
        }

        static func key(of event: TVEvent) -> String? {
            switch event {
            case .power: return "power"
            case .volume: return "volume"
            case .currentApp: return "app"
            case .playback: return "playback"
            case .deviceInfo: return "device"
            case .disconnected: return nil
            }
        }

        private func publish(_ event: TVEvent) {
            let targets = fanOut.withLock { state -> [AsyncStream<TVEvent>.Continuation] in
                if let key = Self.key(of: event) { state.known[key] = event } else { state.ended = event }
                return Array(state.subscribers.values)
            }
            for continuation in targets {
                continuation.yield(event)
                if case .disconnected = event { continuation.finish() }
            }
        }

        /// A stream of this TV's events for one remote: the known state first.
        func subscribe() -> (UUID, AsyncStream<TVEvent>) {
            let id = UUID()
            let (stream, continuation) = AsyncStream.makeStream(of: TVEvent.self, bufferingPolicy: .bufferingNewest(256))
            let (known, ended) = fanOut.withLock { state -> ([TVEvent], TVEvent?) in
                state.subscribers[id] = continuation
                return (["device", "power", "app", "playback", "volume"].compactMap { state.known[$0] }, state.ended)
            }
            for event in known { continuation.yield(event) }
            if let ended {
                continuation.yield(ended)
                continuation.finish()
            }
            return (id, stream)
        }

        func unsubscribe(_ id: UUID) { fanOut.withLock { $0.subscribers.removeValue(forKey: id) }?.finish() }

        func close() async {
            await session.close()
            reader.withLock { $0 }?.cancel()
            for continuation in fanOut.withLock({ state -> [AsyncStream<TVEvent>.Continuation] in
                defer { state.subscribers = [:] }
                return Array(state.subscribers.values)
            }) {
                continuation.finish()
            }
        }
    }

    /// A façade over the store at `paths` (default: the user's XDG locations, or
    /// `PHOTON_HOME`).
    public init(
        adapters: AdapterRegistry, paths: StorePaths? = nil, timeout: Duration = .seconds(10), log: PhotonLog = .silent,
        clock: any RouterClock = SystemClock()
    ) throws {
        let paths = try paths ?? StorePaths.resolve(home: nil)
        registry = adapters
        store = Store(paths: paths)
        self.timeout = timeout
        self.log = log
        sessions = SessionFactory(store: store, registry: adapters, timeout: timeout, log: log)
        let table = connections
        router = CommandRouter(
            clock: clock, capabilities: { target in table.withLock { $0[target] }?.session.capabilities },
            deliver: { envelope in
                guard let tv = table.withLock({ $0[envelope.target] }) else {
                    throw PhotonError(.connectionClosed, "the session to \(envelope.target) is closed", hint: "connect again")
                }
                try await tv.session.send(envelope.command)
            })
    }

    /// The paired TVs.
    public func pairedTVs() async throws -> [DeviceRecord] { try await store.devices().devices }

    /// A paired TV by nickname, id or address.
    public func device(_ name: String) async throws -> DeviceRecord { try await sessions.device(named: name) }

    /// The adapter of a paired TV.
    public func adapter(for device: DeviceRecord) throws -> any TVAdapter { try registry.adapter(id: device.brand) }

    /// Connects to a paired TV: a router session bound to it over a session of this
    /// process (shared by every remote connected to the same TV). With `wake`, a TV that
    /// does not answer is woken as its brand allows, and waited for.
    public func connect(_ name: String, source: CommandSource = .apiClient, wake: WakeRequest? = nil) async throws -> TVRemote {
        let device = try await device(name)
        let (tv, woke) = try await openConnection(device, wake: wake)
        let id = await router.openSession(source: source, target: device.id)
        let (subscription, events) = tv.subscribe()
        return TVRemote(
            photon: self, device: device, routerSession: id, source: source, events: events, subscription: subscription,
            capabilities: tv.session.capabilities, wasWoken: woke)
    }

    /// Sends one command to a paired TV (connect, send, close), as `photon key` does.
    public func send(_ command: RemoteCommand, to name: String, id: UUID = UUID(), lifetime: Duration = .seconds(10), wake: WakeRequest? = nil)
        async throws
    {
        let remote = try await connect(name, source: .cli, wake: wake)
        do {
            try await remote.send(command, id: id, lifetime: lifetime)
            await remote.close()
        } catch {
            await remote.close()
            throw error
        }
    }

    private func openConnection(_ device: DeviceRecord, wake: WakeRequest?) async throws -> (ConnectedTV, woke: Bool) {
        if let existing = connections.withLock({ $0[device.id] }) {
            existing.users.withLock { $0 += 1 }
            return (existing, false)
        }
        let session: any RemoteSession
        var woke = false
        do {
            session = try await sessions.openSession(to: device)
        } catch let error as PhotonError where wake != nil && (error.code == .unreachable || error.code == .timeout) {
            session = try await wakeAndOpen(device, request: wake!, firstError: error)
            woke = true
        }
        let tv = ConnectedTV(device: device, session: session)
        tv.users.withLock { $0 = 1 }
        let (kept, duplicate) = connections.withLock { table -> (ConnectedTV, Bool) in
            if let raced = table[device.id] {
                raced.users.withLock { $0 += 1 }
                return (raced, true)
            }
            table[device.id] = tv
            return (tv, false)
        }
        if duplicate { await tv.close() }
        return (kept, woke)
    }

    /// Wakes `device` as its brand allows and opens a session once it answers.
    func wakeAndOpen(_ device: DeviceRecord, request: WakeRequest, firstError: PhotonError) async throws -> any RemoteSession {
        _ = try TVWaker.wake(device, adapter: try adapter(for: device), destinations: request.destinations, ports: request.ports)
        log.debug("woke \(device.nickname); waiting up to \(Int(request.patience.seconds)) s for it")
        let sessions = self.sessions
        return try await TVWaker.waitUntilUp(device, patience: request.patience) { deadline in
            try await sessions.openSession(to: device, timeout: max(deadline - ContinuousClock.now, .milliseconds(100)))
        }
    }

    /// Sends the wake signal for `device` (Wake-on-LAN to its stored MAC); returns where
    /// it went. Fails with `unsupported` for brands that cannot be woken, or without a MAC.
    @discardableResult
    public func wake(_ device: DeviceRecord, destinations: [String] = []) throws -> [String] {
        try TVWaker.wake(device, adapter: try adapter(for: device), destinations: destinations)
    }

    /// The session this process holds to a TV, while a remote is connected.
    func session(of deviceID: String) -> (any RemoteSession)? { connections.withLock { $0[deviceID] }?.session }

    /// Drops a remote's hold on its TV's session; the last one closes it.
    func release(_ deviceID: String, subscription: UUID) async {
        let closing = connections.withLock { table -> ConnectedTV? in
            guard let tv = table[deviceID] else { return nil }
            tv.unsubscribe(subscription)
            let left = tv.users.withLock { users -> Int in
                users -= 1
                return users
            }
            guard left <= 0 else { return nil }
            table[deviceID] = nil
            return tv
        }
        await closing?.close()
    }
}

/// How to wake a TV that does not answer: where the packet goes and how long to wait.
public struct WakeRequest: Sendable {
    /// Where the packet goes (default: every broadcast address).
    public var destinations: [String]
    /// UDP ports (default 9 and 7).
    public var ports: [UInt16]
    /// How long to wait for the TV to answer after waking it.
    public var patience: Duration
    public init(destinations: [String] = [], ports: [UInt16] = [], patience: Duration = .seconds(45)) {
        self.destinations = destinations
        self.ports = ports
        self.patience = patience
    }
}

/// A connection to one TV through the router: every command is an envelope with its own
/// id, sequence number and lifetime, checked before it reaches the TV.
public final class TVRemote: Sendable {
    public let device: DeviceRecord
    /// What the TV declared when the session opened.
    public let capabilities: Capabilities
    /// Power, volume, app and connection events from the TV: the state it last reported
    /// first, then changes; it ends after `.disconnected` or `close()`.
    public let events: AsyncStream<TVEvent>
    /// Whether connecting had to wake the TV first (then a power key would switch it off
    /// again, so callers drop it).
    public let wasWoken: Bool
    let photon: Photon
    let routerSession: UUID
    let source: CommandSource
    let subscription: UUID
    private let sequence = Locked<UInt64>(0)

    init(
        photon: Photon, device: DeviceRecord, routerSession: UUID, source: CommandSource, events: AsyncStream<TVEvent>,
        subscription: UUID, capabilities: Capabilities, wasWoken: Bool
    ) {
        self.subscription = subscription
        self.photon = photon
        self.device = device
        self.routerSession = routerSession
        self.source = source
        self.events = events
        self.capabilities = capabilities
        self.wasWoken = wasWoken
    }

    /// Sends one command. `id` de-duplicates: the same id twice reaches the TV once.
    /// The command expires after `lifetime` (at most 10 s): one that cannot be written
    /// by then fails with `expired` and is not sent.
    public func send(_ command: RemoteCommand, id: UUID = UUID(), lifetime: Duration = .seconds(10)) async throws {
        guard capabilities.contains(command.requiredCapability) else {
            throw PhotonError.unsupported(
                "\(Redaction.sanitize(device.nickname)) does not support \(command.requiredCapability.rawValue) right now",
                hint: "its capabilities: \(capabilities.sortedNames.joined(separator: ", "))")
        }
        let number = sequence.withLock { n -> UInt64 in
            n += 1
            return n
        }
        let now = Date()
        var life = min(lifetime, .seconds(10))
        if case .longPress = command { life = .seconds(10) }
        do {
            try await photon.router.submit(
                CommandEnvelope(
                    id: id, sessionID: routerSession, target: device.id, sequence: number, issuedAt: now,
                    expiresAt: now.addingTimeInterval(life.seconds), source: source, command: command))
        } catch let rejection as RouterRejection {
            throw rejection.error
        }
    }

    /// The TV's installed apps (ids `send(.launch(_:))` takes), where its brand can list them.
    public func installedApps() async throws -> [TVApp] {
        guard capabilities.contains(.appList), let listing = photon.session(of: device.id) as? any AppListing else {
            throw PhotonError.unsupported("\(Redaction.sanitize(device.nickname)) cannot list its apps", hint: "its brand's protocol has no app list")
        }
        return try await listing.installedApps()
    }

    /// Ends this remote; the TV's session closes when no other remote uses it.
    public func close() async {
        await photon.router.closeSession(routerSession)
        await photon.release(device.id, subscription: subscription)
    }
}

extension TVRemote {
    /// The TV's state as it reports it after connecting: device, power, app and volume
    /// (those its capabilities promise), waiting at most `settle` for them.
    public func status(settle: Duration = .milliseconds(1500)) async -> [TVEvent] {
        let wanted = Set(
            [(Capability.powerState, "power"), (.volumeState, "volume"), (.currentApp, "app")]
                .filter { capabilities.contains($0.0) }.map(\.1))
        let collected = Locked<[String: TVEvent]>([:])
        let stream = events
        let collector = Task {
            for await event in stream {
                guard let key = Photon.ConnectedTV.key(of: event) else { return }
                collected.withLock { $0[key] = event }
            }
        }
        let end = ContinuousClock.now + settle
        while ContinuousClock.now < end, !wanted.isSubset(of: Set(collected.withLock { $0.keys })) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        collector.cancel()
        let found = collected.withLock { $0 }
        return ["device", "power", "app", "playback", "volume"].compactMap { found[$0] }
    }
}
