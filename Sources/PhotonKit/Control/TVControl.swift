import Foundation
import PhotonCore

/// What a door drives TVs through, whether the TVs' sessions live in this process or in
/// a running `photon serve`: each command of the CLI (and any other door) is written
/// once against this, and `TVControlChoice` picks the implementation once per process.
/// `DirectControl` is the façade in process; `DaemonControl` is the one daemon client.
public protocol TVControl: Sendable {
    /// How it reaches the TVs, for people (`direct`, `photon serve`).
    var route: String { get }
    /// Sends commands to `tv` in order, `delay` apart. With `wake`, a TV that does not
    /// answer is woken first (through the router) and a power key that would switch it
    /// off again is dropped. Returns whether the TV had to be woken.
    @discardableResult
    func send(_ commands: [RemoteCommand], to tv: String, delay: Duration, wake: WakeRequest?, lifetime: Duration) async throws -> Bool
    /// The TV's state as it reports it (device, power, app, playback, volume).
    func status(_ tv: String, settle: Duration) async throws -> [TVEvent]
    /// One of the TV's lists (its apps, its inputs), where its brand can give it.
    func items(_ kind: TVListKind, of tv: String) async throws -> [TVListItem]
    /// A controller session to `tv` (the keyboard remote, `status --watch`): commands in
    /// one router session, and the TV's updates.
    func open(_ tv: String, source: CommandSource) async throws -> any TVControlSession
    /// Runs a macro on `tv` (`TVControl.runMacroHere` in this process; the daemon runs it
    /// inside itself as one request, so it goes on if the client goes away).
    func runMacro(_ macro: Macro, on tv: String, lifetime: Duration, wake: WakeRequest, catalog: [String: [String]]) async throws
        -> [MacroStepResult]
    /// Tells whoever holds sessions that the store changed (pair, forget).
    func storeChanged() async
    /// Each TV's connection state by id where sessions are kept warm, else nil.
    func connectionStates() async -> [String: String]?
    /// Ends this control: a direct one closes its sessions, a daemon client its connection.
    func close() async
}

/// One controller session: a router session bound to one TV, and that TV's updates
/// (its known state first, then changes; connection changes for warm sessions).
public protocol TVControlSession: Sendable {
    /// The TV's connection states and events, the current state first.
    var updates: AsyncStream<TVUpdate> { get }
    /// Sends one command through the router; it expires after `lifetime` (at most 10 s).
    @discardableResult
    func send(_ command: RemoteCommand, lifetime: Duration) async throws -> CommandOutcome
    /// One of the TV's lists (apps, inputs, channels), where its brand can give it.
    func items(_ kind: TVListKind) async throws -> [TVListItem]
    /// Ends the session; a held key is released first.
    func close() async
}

extension TVControl {
    /// The TV's installed apps, where its brand can list them.
    public func installedApps(_ tv: String) async throws -> [TVApp] {
        try await items(.apps, of: tv).map { TVApp(id: $0.id, name: $0.name) }
    }
}

extension TVControlSession {
    /// The TV's installed apps, where its brand can list them.
    public func installedApps() async throws -> [TVApp] { try await items(.apps).map { TVApp(id: $0.id, name: $0.name) } }
}

extension RemoteCommand {
    /// A power key, which a TV that had to be woken must not get (it would switch off).
    public var isPowerPress: Bool {
        if case .key(.key(let key), .press) = self { return key == .power || key == .powerOn }
        return false
    }
}

/// The façade in process: this process's own session service and router.
public struct DirectControl: TVControl {
    /// The façade this control drives.
    public let photon: Photon
    /// Who the commands come from, as the router sees it.
    public let source: CommandSource
    public var route: String { "direct" }
    let sleep: @Sendable (Duration) async throws -> Void

    /// A control over `photon` in this process, sending as `source`.
    public init(photon: Photon, source: CommandSource = .cli) {
        self.photon = photon
        self.source = source
        let clock = photon.clock
        sleep = { try await clock.sleep(for: $0) }
    }

    public func send(_ commands: [RemoteCommand], to tv: String, delay: Duration, wake: WakeRequest?, lifetime: Duration) async throws -> Bool {
        let remote = try await photon.connect(tv, source: source, wake: wake, expecting: commands.first)
        do {
            var first = true
            for command in commands where !(remote.wasWoken && command.isPowerPress) {
                if !first, delay > .zero { try await sleep(delay) }
                first = false
                _ = try await remote.send(command, lifetime: lifetime)
                PhaseTimer.mark("sent")
                photon.log.debug("sent \(command.logDescription)")
            }
            await remote.close()
            PhaseTimer.mark("closed")
            return remote.wasWoken
        } catch {
            await remote.close()
            throw error
        }
    }

    public func status(_ tv: String, settle: Duration) async throws -> [TVEvent] {
        try await withRemote(tv) { try await $0.status(settle: settle) }
    }

    public func items(_ kind: TVListKind, of tv: String) async throws -> [TVListItem] {
        try await withRemote(tv) { try await $0.items(kind) }
    }

    public func runMacro(_ macro: Macro, on tv: String, lifetime: Duration, wake: WakeRequest, catalog: [String: [String]]) async throws
        -> [MacroStepResult]
    {
        await runMacroHere(macro, on: tv, lifetime: lifetime, wake: wake, catalog: catalog, source: source, sleep: sleep)
    }

    public func open(_ tv: String, source: CommandSource) async throws -> any TVControlSession {
        try await photon.connect(tv, source: source)
    }

    public func storeChanged() async {}
    public func connectionStates() async -> [String: String]? { nil }
    /// Nothing to close: the façade's sessions belong to its owner.
    public func close() async {}

    private func withRemote<T: Sendable>(_ tv: String, _ body: (TVRemote) async throws -> T) async throws -> T {
        let remote = try await photon.connect(tv, source: source)
        do {
            let result = try await body(remote)
            await remote.close()
            return result
        } catch {
            await remote.close()
            throw error
        }
    }
}

extension TVRemote: TVControlSession {
    /// Sends `command` through the router, expiring after `lifetime`.
    public func send(_ command: RemoteCommand, lifetime: Duration) async throws -> CommandOutcome {
        try await send(command, id: UUID(), lifetime: lifetime)
    }
}
