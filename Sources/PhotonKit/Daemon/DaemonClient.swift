import Foundation
import PhotonCore
import PhotonStore
import PhotonWire

/// A client of the `photon serve` that runs for a home: how the CLI sends commands over
/// the daemon's warm sessions. It talks through PhotonWire's `DaemonConnection` — the
/// one the `photon` front end uses, with the same checks (a socket private to this user,
/// served by this user) — read by a thread of its own, and matches each answer to its
/// request.
public final class DaemonClient: Sendable {
    private let connection: DaemonConnection
    private let pending = Locked<[Int: Promise<JSONValue>]>([:])
    private let nextID = Locked(0)
    private let eventStream: AsyncStream<JSONValue>
    private let eventSink: AsyncStream<JSONValue>.Continuation
    private let ended = Locked<PhotonError?>(nil)
    /// Requests from several tasks go out one whole line at a time.
    private let writing = Locked(())
    /// The daemon's pid, from its greeting.
    public let daemonPID: Int

    private init(connection: DaemonConnection, daemonPID: Int) {
        self.connection = connection
        self.daemonPID = daemonPID
        (eventStream, eventSink) = AsyncStream.makeStream(of: JSONValue.self, bufferingPolicy: .bufferingNewest(1024))
        let reader = Thread { [self] in readLoop() }
        reader.name = "photon daemon client"
        reader.start()
    }

    /// Connects to the daemon of `store`'s home, or returns nil when none runs (no
    /// socket, or a socket nothing answers on). A socket that is not private to this
    /// user is an error, not a reason to fall back silently.
    public static func connectIfRunning(store: Store, timeout: Duration) async throws -> DaemonClient? {
        let path = store.paths.socketPath
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        try store.checkServiceSocket()
        return try await connect(path: path, timeout: timeout, absentIsNil: true)
    }

    /// Connects to the daemon at `path` without the fallback (tests, scripts).
    public static func connect(path: String, timeout: Duration) async throws -> DaemonClient {
        guard let client = try await connect(path: path, timeout: timeout, absentIsNil: false) else {
            throw PhotonError(.unreachable, "nothing answers on \(path)", hint: "start `photon serve`")
        }
        return client
    }

    private static func connect(path: String, timeout: Duration, absentIsNil: Bool) async throws -> DaemonClient? {
        let connection: DaemonConnection
        switch DaemonConnection.open(path) {
        case .connected(let opened): connection = opened
        case .absent:
            if absentIsNil { return nil }
            throw PhotonError(.unreachable, "nothing answers on \(path)", hint: "start `photon serve`")
        case .refused(let reason):
            throw PhotonError(.storePermissions, reason, hint: "pass --direct, and find out who started it")
        }
        // The daemon greets first: {"event":"hello","protocol":1,"pid":N}. The read blocks,
        // so it runs on a thread of its own: a blocked thread of the cooperative pool (two,
        // on a two-core machine) could be the one the daemon, in the same process, needs
        // to answer.
        let greeting = Promise<JSONValue>()
        let reader = Thread {
            greeting.resolve(
                Result {
                    switch connection.readLine(timeout: timeout.seconds) {
                    case .line(let line): return try JSONValue.parse(line)
                    case .timedOut: throw PhotonError(.timeout, "the daemon did not greet within \(timeout)", hint: "see its log")
                    case .closed: throw PhotonError(.connectionClosed, "the daemon closed the connection before greeting", hint: "see its log")
                    }
                })
        }
        reader.name = "photon daemon greeting"
        reader.start()
        let hello: JSONValue
        do {
            hello = try await greeting.value()
        } catch {
            connection.shutDown()
            throw error
        }
        guard hello["event"]?.stringValue == "hello" else { throw ServiceProtocol.error(from: hello["error"]) }
        guard hello["protocol"]?.intValue == ServiceProtocol.version else {
            throw PhotonError(
                .protocolViolation, "the running daemon speaks protocol \(hello["protocol"]?.intValue ?? 0), not \(ServiceProtocol.version)",
                hint: "restart `photon serve` after upgrading")
        }
        return DaemonClient(connection: connection, daemonPID: hello["pid"]?.intValue ?? 0)
    }

    /// Sends one request and waits for its answer. An error answer throws its error.
    @discardableResult
    public func request(_ op: String, _ fields: [(String, JSONValue)] = [], timeout: Duration = .seconds(30)) async throws -> JSONValue {
        if let ended = ended.withLock({ $0 }) { throw ended }
        let id = nextID.withLock { n -> Int in
            n += 1
            return n
        }
        let promise = Promise<JSONValue>()
        pending.withLock { $0[id] = promise }
        if let ended = ended.withLock({ $0 }) {
            pending.withLock { _ = $0.removeValue(forKey: id) }
            throw ended
        }
        defer { pending.withLock { _ = $0.removeValue(forKey: id) } }
        let line = JSONValue.object([("id", .int(id)), ("op", .string(op))] + fields).encoded + "\n"
        guard writing.withLock({ _ in connection.write(line) }) else {
            throw ended.withLock({ $0 })
                ?? PhotonError(.connectionClosed, "the daemon closed the connection", hint: "is `photon serve` still running?")
        }
        let answer = try await withTimeout(timeout, "waiting for the daemon") { try await promise.value() }
        guard answer["ok"]?.boolValue == true else { throw ServiceProtocol.error(from: answer["error"]) }
        return answer
    }

    /// Lines the daemon sends on its own: TV events after `subscribe`, `shutdown`.
    public var events: AsyncStream<JSONValue> { eventStream }

    /// Ends the connection; the reader thread sees it closed and finishes.
    public func close() async { connection.shutDown() }

    /// Runs on the reader thread until the daemon closes the connection or it is shut down.
    private func readLoop() {
        var reason = PhotonError(.connectionClosed, "the daemon closed the connection", hint: "is `photon serve` still running?")
        reading: while true {
            guard case .line(let line) = connection.readLine(timeout: nil) else { break }
            guard let message = try? JSONValue.parse(line) else {
                reason = PhotonError(.protocolViolation, "the daemon sent a line that is not JSON")
                break reading
            }
            if let id = message["id"]?.intValue {
                pending.withLock { $0[id] }?.succeed(message)
            } else if message["event"] != nil {
                eventSink.yield(message)
            } else if message["ok"]?.boolValue == false {
                reason = ServiceProtocol.error(from: message["error"])
                break reading
            }
        }
        connection.shutDown()
        ended.withLock { $0 = reason }
        for promise in pending.withLock({ Array($0.values) }) { promise.fail(reason) }
        eventSink.finish()
    }
}
