import Foundation
import PhotonCore
import PhotonStore
import PhotonWire

/// TVs driven through a running `photon serve`: its warm sessions and its router, over
/// the one daemon client. A one-shot command is one request (no open or close), so a key
/// through the daemon costs one round trip on a socket the daemon already trusts.
public final class DaemonControl: TVControl {
    /// The connection to the daemon's socket API that every call goes through.
    public let client: DaemonClient
    let socketPath: String
    let timeout: Duration
    let source: CommandSource
    let log: PhotonLog
    public var route: String { "photon serve" }

    /// A control over `client`, already connected to the daemon at `socketPath`; requests wait
    /// at most `timeout` for an answer, and commands go out as `source`.
    public init(client: DaemonClient, socketPath: String, timeout: Duration, source: CommandSource = .cli, log: PhotonLog = .silent) {
        self.client = client
        self.socketPath = socketPath
        self.timeout = timeout
        self.source = source
        self.log = log
    }

    /// A control over the daemon of `store`'s home, or nil when none runs.
    public static func ifRunning(store: Store, timeout: Duration, source: CommandSource = .cli, log: PhotonLog = .silent) async throws
        -> DaemonControl?
    {
        guard let client = try await DaemonClient.connectIfRunning(store: store, timeout: min(timeout, .seconds(2))) else { return nil }
        log.debug("using photon serve (pid \(client.daemonPID))")
        return DaemonControl(client: client, socketPath: store.paths.socketPath, timeout: timeout, source: source, log: log)
    }

    /// The envelope fields of a request: a fresh id, issued now, expiring after `lifetime`.
    static func envelope(lifetime: Duration) -> [(String, JSONValue)] {
        let now = Date().timeIntervalSince1970
        return [("commandId", .string(UUID().uuidString)), ("issuedAt", .double(now)), ("expiresAt", .double(now + lifetime.seconds))]
    }

    public func send(_ commands: [RemoteCommand], to tv: String, delay: Duration, wake: WakeRequest?, lifetime: Duration) async throws -> Bool {
        var woke = false
        if let wake {
            let answer = try await client.request(
                "wake",
                [
                    ("tv", .string(tv)), ("source", .string(source.rawValue)), ("wait", .double(wake.patience.seconds)),
                    ("broadcast", .array(wake.destinations.map { .string($0) })), ("ports", .array(wake.ports.map { .int(Int($0)) })),
                ]
                    + Self.envelope(lifetime: min(lifetime, .seconds(10))),
                timeout: wake.patience + .seconds(10))
            woke = answer["woke"]?.boolValue == true
        }
        var first = true
        for command in commands where !(woke && command.isPowerPress) {
            if !first, delay > .zero { try await Task.sleep(for: delay) }
            first = false
            let now = Date().timeIntervalSince1970
            var waitLimit = lifetime + .seconds(5)
            if case .longPress(_, let ms) = command { waitLimit += .milliseconds(ms) }
            let fields = DaemonWire.sendFields(
                tv: tv, source: source.rawValue, commandID: UUID().uuidString, issuedAt: now, expiresAt: now + lifetime.seconds,
                command: try ServiceProtocol.json(command))
            try await client.request("send", fields, timeout: waitLimit)
            log.debug("sent \(command.logDescription) through photon serve")
        }
        return woke
    }

    public func status(_ tv: String, settle: Duration) async throws -> [TVEvent] {
        let answer = try await client.request(
            "status", [("tv", .string(tv)), ("wait", .double(settle.seconds))], timeout: timeout + settle + .seconds(5))
        // The settings the catalog says a TV reports (`sound`) follow, by their names.
        let settings = CommandCatalog.entries.filter(\.reportsState).map(\.name)
        var events = (["device", "power", "app", "playback", "volume"] + settings).compactMap { key in
            answer["tv"]?[key].flatMap { ServiceProtocol.event(from: .object([(key, $0)])) }
        }
        if let state = answer["tv"]?["power_state"] {
            let reason = answer["tv"]?["power_reason"] ?? .null
            if let event = ServiceProtocol.event(from: .object([("power_state", state), ("power_reason", reason)])) {
                events.insert(event, at: min(2, events.count))
            }
        }
        return events
    }

    /// One `run` request: the daemon runs the macro inside itself (it goes on if this
    /// client goes away) and answers with every step's result.
    public func runMacro(_ macro: Macro, on tv: String, lifetime: Duration, wake: WakeRequest, catalog: [String: [String]]) async throws
        -> [MacroStepResult]
    {
        var fields: [(String, JSONValue)] = [
            ("tv", .string(tv)), ("steps", .array(macro.steps.map { .string($0.text) })), ("lifetime", .double(lifetime.seconds)),
        ]
        if !wake.destinations.isEmpty { fields.append(("broadcast", .array(wake.destinations.map { .string($0) }))) }
        let answer = try await client.request("run", fields, timeout: macro.longestRun(perStep: lifetime) + timeout + .seconds(10))
        return (answer["results"]?.arrayValue ?? []).compactMap(ServiceProtocol.stepResult(from:))
    }

    public func items(_ kind: TVListKind, of tv: String) async throws -> [TVListItem] {
        let answer = try await client.request("items", [("tv", .string(tv)), ("kind", .string(kind.rawValue))], timeout: timeout + .seconds(5))
        return (answer["items"]?.arrayValue ?? []).compactMap(ServiceProtocol.item(from:))
    }

    /// A session of its own connection, so its updates never mix with other requests.
    public func open(_ tv: String, source: CommandSource) async throws -> any TVControlSession {
        let own = try await DaemonClient.connect(path: socketPath, timeout: min(timeout, .seconds(2)))
        do {
            return try await DaemonSession(client: own, tv: tv, source: source, control: self)
        } catch {
            await own.close()
            throw error
        }
    }

    public func storeChanged() async { _ = try? await client.request("reload", [], timeout: .seconds(5)) }

    public func connectionStates() async -> [String: String]? {
        guard let tvs = try? await client.request("list", [], timeout: .seconds(2))["tvs"]?.arrayValue else { return nil }
        var states: [String: String] = [:]
        for tv in tvs {
            if let id = tv["id"]?.stringValue, let state = tv["connection"]?.stringValue { states[id] = state }
        }
        return states
    }

    /// Closes the connection to the daemon (its sessions to the TVs stay warm).
    public func close() async { await client.close() }
}

/// A router session on the daemon, with the TV's updates from a subscription on the same
/// connection.
final class DaemonSession: TVControlSession {
    let client: DaemonClient
    let id: String
    let tv: String
    let updates: AsyncStream<TVUpdate>
    private let control: DaemonControl
    private let sequence = Locked(0)
    private let gate = AsyncGate()
    private let pump: Task<Void, Never>

    init(client: DaemonClient, tv: String, source: CommandSource, control: DaemonControl) async throws {
        self.client = client
        self.control = control
        let opened = try await client.request("open", [("tv", .string(tv)), ("source", .string(source.rawValue))])
        guard let id = opened["session"]?.stringValue else {
            throw PhotonError(.protocolViolation, "the daemon's answer to open has no session")
        }
        self.id = id
        self.tv = opened["tv"]?.stringValue ?? tv
        try await client.request("subscribe", [("tv", .string(self.tv))])
        let (stream, continuation) = AsyncStream.makeStream(of: TVUpdate.self, bufferingPolicy: .bufferingNewest(256))
        updates = stream
        let lines = client.events
        pump = Task {
            for await line in lines {
                if line["event"]?.stringValue == "shutdown" {
                    continuation.yield(
                        .connection(.closed, PhotonError(.connectionClosed, "photon serve is stopping", hint: "start it again, or pass --direct")))
                } else if let update = ServiceProtocol.update(from: line) {
                    continuation.yield(update)
                }
            }
            continuation.yield(
                .connection(.closed, PhotonError(.connectionClosed, "the connection to photon serve ended", hint: "is it still running?")))
            continuation.finish()
        }
    }

    func send(_ command: RemoteCommand, lifetime: Duration) async throws -> CommandOutcome {
        // One at a time, each in its own envelope (the sequence number must grow).
        try await gate.withGate {
            let number = self.sequence.withLock { n -> Int in
                n += 1
                return n
            }
            let now = Date().timeIntervalSince1970
            var waitLimit = lifetime + .seconds(5)
            if case .longPress(_, let ms) = command { waitLimit += .milliseconds(ms) }
            let fields = DaemonWire.sendFields(
                session: self.id, sequence: number, commandID: UUID().uuidString, issuedAt: now, expiresAt: now + lifetime.seconds,
                command: try ServiceProtocol.json(command))
            let answer = try await self.client.request("send", fields, timeout: waitLimit)
            return answer["acknowledged"]?.boolValue == true ? .acknowledged : .sent
        }
    }

    func items(_ kind: TVListKind) async throws -> [TVListItem] { try await control.items(kind, of: tv) }

    func close() async {
        pump.cancel()
        _ = try? await client.request("close", [("session", .string(id))], timeout: .seconds(2))
        await client.close()
    }
}
