import Foundation
import PhotonCore
import PhotonKit
import PhotonNet

/// One client of the daemon's socket API: reads JSON lines, answers each request in
/// order, and writes answers and subscribed events through a bounded outbox. Garbage or
/// an over-long line ends this client only; its controller sessions and subscriptions
/// end with it.
final class APIConnection: Sendable {
    private let stream: SocketStream
    private let photon: Photon
    private let onReload: @Sendable () async -> Void
    private let limits: ServiceLimits
    private let log: ServiceLog
    private let outbox: Outbox
    private let clientID = UUID()
    /// The router sessions this client opened, and the TVs it subscribed to.
    private let owned = Locked<(sessions: Set<UUID>, subscriptions: [String: PooledTV])>(([], [:]))
    private let operations: DaemonOperations

    init(stream: SocketStream, photon: Photon, limits: ServiceLimits, log: ServiceLog, onReload: @escaping @Sendable () async -> Void) {
        self.stream = stream
        self.photon = photon
        self.onReload = onReload
        self.limits = limits
        self.log = log
        self.outbox = Outbox(maximumLines: limits.queuedLines, maximumBytes: limits.queuedBytes)
        self.operations = DaemonOperations(photon: photon, limits: limits)
    }

    /// Serves the client until it leaves, misbehaves or the daemon stops.
    func run(greeting: JSONValue) async {
        let writer = Task { await writeLoop() }
        outbox.push(greeting.encoded)
        await readLoop()
        outbox.close()
        await writer.value
        await stream.close()
        await cleanUp()
    }

    /// Ends the client (daemon shutdown): the reader stops, the writer drains.
    func stop(farewell: JSONValue) {
        outbox.push(farewell.encoded)
        outbox.close()
        Task { await stream.close() }
    }

    private func writeLoop() async {
        while let lines = await outbox.next() {
            let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
            do {
                try await stream.write(bytes, timeout: limits.writeStall)
            } catch {
                log.debug("api client: stopped writing (\(PhotonError.wrap(error).message))")
                outbox.close()
                await stream.close()
                return
            }
        }
        if outbox.overflowed {
            log.notice("api client: disconnected because it did not read its events (more than \(limits.queuedLines) lines queued)")
            await stream.close()
        }
    }

    private func readLoop() async {
        var buffer: [UInt8] = []
        while true {
            let chunk: [UInt8]
            do {
                chunk = try await stream.read(maxLength: 16 * 1024, timeout: nil)
            } catch {
                return
            }
            if chunk.isEmpty { return }
            buffer += chunk
            while let newline = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if line.last == 0x0D { line.removeLast() }
                guard line.count <= limits.requestBytes else { return refuse(tooLong: line.count) }
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                guard await handle(line) else { return }
            }
            guard buffer.count <= limits.requestBytes else { return refuse(tooLong: buffer.count) }
        }
    }

    private func refuse(tooLong size: Int) {
        let error = PhotonError(
            .messageTooLarge, "request of more than \(limits.requestBytes) bytes (\(size) so far); disconnecting",
            hint: "one request per line, each under \(limits.requestBytes) bytes")
        log.notice("api client: \(error.message)")
        outbox.push(ServiceProtocol.failure(error).encoded)
    }

    /// Answers one line. Returns false when the client must be disconnected.
    private func handle(_ line: [UInt8]) async -> Bool {
        let request: JSONValue
        do {
            request = try JSONValue.parse(line, maximumDepth: 8)
            guard request.isObject, request["op"]?.stringValue != nil else {
                throw PhotonError(.protocolViolation, "a request is a JSON object with an \"op\" field")
            }
        } catch {
            let photon = PhotonError.wrap(error)
            log.notice("api client: \(photon.message); disconnecting")
            outbox.push(ServiceProtocol.failure(photon).encoded)
            return false
        }
        let id = request["id"]
        do {
            // A client may name the protocol it speaks; another one is refused unsent.
            if let spoken = request["protocol"], spoken.intValue != ServiceProtocol.version {
                throw PhotonError(
                    .protocolViolation, "this daemon speaks protocol \(ServiceProtocol.version), the request \(spoken.encoded)",
                    hint: "restart `photon serve` after upgrading")
            }
            let fields = try await perform(request["op"]!.stringValue!, request)
            return outbox.push(JSONValue.object((id.map { [("id", $0)] } ?? []) + [("ok", true)] + fields).encoded)
        } catch is AlreadyAnswered {
            return true
        } catch {
            let photon = error is RouterRejection ? (error as! RouterRejection).error : PhotonError.wrap(error)
            return outbox.push(ServiceProtocol.failure(photon, id: id).encoded)
        }
    }

    // MARK: operations

    private func perform(_ op: String, _ request: JSONValue) async throws -> [(String, JSONValue)] {
        switch op {
        case "ping": return []
        case "list": return [("tvs", .array(try await operations.list()))]
        case "status": return try await status(request)
        case "apps": return try await items(request, kind: .apps)
        case "items": return try await items(request)
        case "run": return try await runMacro(request)
        case "open": return try await open(request)
        case "send": return try await send(request)
        case "close":
            let session = try ownedSession(request)
            await photon.router.closeSession(session)
            owned.withLock { _ = $0.sessions.remove(session) }
            return []
        case "retarget":
            let session = try ownedSession(request)
            let tv = try await photon.pool.tv(named: try string(request, "tv"))
            try await photon.router.retarget(session, to: tv.deviceID)
            return [("tv", .string(tv.deviceID)), ("generation", .int(Int(await photon.router.generation(of: session) ?? 0)))]
        case "arm":
            let session = try ownedSession(request)
            guard let seconds = request["seconds"]?.doubleValue, seconds > 0, seconds <= 300 else {
                throw ServiceProtocol.usage("\"seconds\" takes a number from 0 to 300")
            }
            try await photon.router.armGesture(session, for: seconds)
            return []
        case "subscribe": return try await subscribe(request)
        case "unsubscribe":
            let tv = try await photon.pool.tv(named: try string(request, "tv"))
            if owned.withLock({ $0.subscriptions.removeValue(forKey: tv.deviceID) }) != nil {
                await tv.unsubscribe(clientID)
            }
            return []
        case "wake": return try await wake(request)
        case "reload":
            let (closed, kept) = try await photon.pool.reload()
            await onReload()
            return [("closed", .int(closed)), ("served", .int(kept))]
        default:
            throw PhotonError(
                .usage, "unknown op '\(Redaction.sanitize(op))'",
                hint: "ops: ping, list, status, open, send, close, retarget, arm, subscribe, unsubscribe, wake, reload")
        }
    }

    /// `wake`: a TV that does not answer is woken as its brand allows, then waited for
    /// (`wait` seconds, default 45, at most 120), so the commands that follow find it up.
    /// A TV that answers is left alone (`"woke": false`). The wake is a command like any
    /// other: an envelope through the router (its `commandId` de-duplicated, its expiry
    /// checked) before a packet leaves.
    private func wake(_ request: JSONValue) async throws -> [(String, JSONValue)] {
        let destinations = (request["broadcast"]?.arrayValue ?? []).compactMap(\.stringValue).prefix(16)
        let ports = (request["ports"]?.arrayValue ?? []).compactMap { $0.intValue.flatMap(UInt16.init(exactly:)) }.filter { $0 > 0 }.prefix(4)
        let patience = Duration.clampedSeconds(request["wait"]?.doubleValue ?? 45, maximum: 120)
        let woke = try await operations.wake(
            try string(request, "tv"), destinations: Array(destinations), ports: Array(ports), patience: patience,
            envelope: try EnvelopeFields(request), source: try Self.source(request))
        return [("woke", .bool(woke))]
    }

    /// `run`: a macro's steps, run here to the end even if the client leaves meanwhile
    /// (its answer then has nobody to go to); each step its own router command.
    private func runMacro(_ request: JSONValue) async throws -> [(String, JSONValue)] {
        let tv = try string(request, "tv")
        guard let texts = request["steps"]?.arrayValue, texts.count <= Macro.stepLimit else {
            throw ServiceProtocol.usage("\"steps\" is required: an array of at most \(Macro.stepLimit) step strings")
        }
        let macro = try Macro(
            steps: try texts.map { text in
                guard let step = text.stringValue else { throw ServiceProtocol.usage("each step is a string such as \"key home\"") }
                return step
            })
        let lifetime = Duration.clampedSeconds(request["lifetime"]?.doubleValue ?? 10, maximum: 60)
        let broadcast = (request["broadcast"]?.arrayValue ?? []).compactMap(\.stringValue).prefix(16)
        let results = try await operations.runMacro(macro, on: tv, lifetime: lifetime, broadcast: Array(broadcast), source: .apiClient)
        return [("results", .array(results))]
    }

    private func string(_ request: JSONValue, _ field: String) throws -> String {
        guard let value = request[field]?.stringValue, !value.isEmpty, value.utf8.count <= 256 else {
            throw ServiceProtocol.usage("\"\(field)\" is required: a string of 1 to 256 bytes")
        }
        return value
    }

    private func ownedSession(_ request: JSONValue) throws -> UUID {
        guard let text = request["session"]?.stringValue, let session = UUID(uuidString: text) else {
            throw ServiceProtocol.usage("\"session\" is required: the id `open` returned")
        }
        // Sessions belong to the client that opened them; another client cannot use one.
        guard owned.withLock({ $0.sessions.contains(session) }) else { throw RouterRejection.unknownSession }
        return session
    }

    private func open(_ request: JSONValue) async throws -> [(String, JSONValue)] {
        let source = try Self.source(request)
        guard owned.withLock({ $0.sessions.count }) < limits.sessionsPerClient else {
            throw PhotonError(.usage, "this client has \(limits.sessionsPerClient) sessions open", hint: "close some first")
        }
        let (session, deviceID) = try await operations.openSession(try string(request, "tv"), source: source)
        owned.withLock { _ = $0.sessions.insert(session) }
        return [("session", .string(session.uuidString)), ("tv", .string(deviceID))]
    }

    private func send(_ request: JSONValue) async throws -> [(String, JSONValue)] {
        guard let commandJSON = request["command"] else { throw ServiceProtocol.usage("\"command\" is required") }
        let command = try ServiceProtocol.command(from: commandJSON)
        let envelope = try EnvelopeFields(request)
        // Without a session, a one-shot: a session for this command alone (scripts, socat).
        guard request["session"] != nil else {
            let outcome = try await operations.submitOneShot(
                command, to: try string(request, "tv"), envelope: envelope, source: try Self.source(request))
            return sentFields(command, outcome)
        }
        let session = try ownedSession(request)
        guard let sequence = request["seq"]?.intValue, sequence >= 0 else {
            throw ServiceProtocol.usage("\"seq\" is required: a number greater than the session's last one")
        }
        let outcome = try await operations.submit(
            command, in: session, sequence: UInt64(sequence), tv: request["tv"]?.stringValue, envelope: envelope,
            source: CommandSource(rawValue: request["source"]?.stringValue ?? "") ?? .apiClient)
        return sentFields(command, outcome)
    }

    static func source(_ request: JSONValue) throws -> CommandSource {
        let name = request["source"]?.stringValue ?? CommandSource.apiClient.rawValue
        guard let source = CommandSource(rawValue: name) else {
            throw ServiceProtocol.usage("\"source\" takes \(CommandSource.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return source
    }

    private func status(_ request: JSONValue) async throws -> [(String, JSONValue)] {
        let settle = Duration.clampedSeconds(request["wait"]?.doubleValue ?? 1.5, maximum: 5)
        return [("tv", try await operations.status(try string(request, "tv"), settle: settle))]
    }

    /// One of the TV's lists over the warm session (`items` with a `kind`; `apps` is the
    /// app list under its older name), where its brand can give it.
    private func items(_ request: JSONValue, kind fixed: TVListKind? = nil) async throws -> [(String, JSONValue)] {
        let kind: TVListKind
        if let fixed {
            kind = fixed
        } else {
            let name = try string(request, "kind")
            guard let named = TVListKind(rawValue: name) else {
                throw PhotonError(
                    .usage, "\"kind\" is one of \(TVListKind.allCases.map(\.rawValue).joined(separator: ", ")), not '\(Redaction.sanitize(name))'")
            }
            kind = named
        }
        let items = try await operations.items(kind, of: try string(request, "tv"))
        return [(fixed == nil ? "items" : kind.rawValue, .array(items))]
    }

    private func subscribe(_ request: JSONValue) async throws -> [(String, JSONValue)] {
        let tv = try await photon.pool.tv(named: try string(request, "tv"))
        let added = owned.withLock { o -> Bool in
            guard o.subscriptions[tv.deviceID] == nil, o.subscriptions.count < limits.subscriptionsPerClient else { return false }
            o.subscriptions[tv.deviceID] = tv
            return true
        }
        guard added else {
            throw PhotonError(.usage, "already subscribed, or more than \(limits.subscriptionsPerClient) subscriptions")
        }
        let outbox = self.outbox
        let id = tv.deviceID
        // The answer goes first, then the current state, then changes as they come.
        outbox.push(JSONValue.object((request["id"].map { [("id", $0)] } ?? []) + [("ok", true), ("tv", .string(id))]).encoded)
        await tv.subscribe(clientID) { update in outbox.push(ServiceProtocol.line(update, tv: id).encoded) }
        await tv.warm()
        throw AlreadyAnswered()
    }

    private func cleanUp() async {
        let (sessions, subscriptions) = owned.withLock { o in
            defer { o = ([], [:]) }
            return (o.sessions, o.subscriptions)
        }
        for session in sessions { await photon.router.closeSession(session) }
        for tv in subscriptions.values { await tv.unsubscribe(clientID) }
    }
}

/// Thrown by an operation that wrote its own answer (subscribe: the answer must precede
/// the first event).
struct AlreadyAnswered: Error {}
