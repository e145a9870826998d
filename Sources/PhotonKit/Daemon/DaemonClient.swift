import Foundation
import Glibc
import PhotonCore

import PhotonNet
import PhotonStore

/// A client of the `photon serve` that runs for a home: how the CLI sends commands over
/// the daemon's warm sessions. It talks only to a socket that is private to this user
/// and whose peer is this user (SO_PEERCRED), and matches each answer to its request.
public final class DaemonClient: Sendable {
    private let stream: SocketStream
    private let pending = Locked<[Int: Promise<JSONValue>]>([:])
    private let nextID = Locked(0)
    private let eventStream: AsyncStream<JSONValue>
    private let eventSink: AsyncStream<JSONValue>.Continuation
    private let ended = Locked<PhotonError?>(nil)
    /// The daemon's pid, from its greeting.
    public let daemonPID: Int

    private init(stream: SocketStream, daemonPID: Int, leftover: [UInt8]) {
        self.stream = stream
        self.daemonPID = daemonPID
        (eventStream, eventSink) = AsyncStream.makeStream(of: JSONValue.self, bufferingPolicy: .bufferingNewest(1024))
        Task { await self.readLoop(leftover) }
    }

    /// Connects to the daemon of `store`'s home, or returns nil when none runs (no
    /// socket, or a socket nothing answers on). A socket that is not private to this
    /// user is an error, not a reason to fall back silently.
    public static func connectIfRunning(store: Store, timeout: Duration) async throws -> DaemonClient? {
        let path = store.paths.socketFile.path
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        try store.checkServiceSocket()
        let stream: SocketStream
        do {
            stream = try await SocketStream.connect(unixPath: path, timeout: timeout)
        } catch let error as PhotonError where error.code == .unreachable {
            return nil
        }
        return try await handshake(stream, timeout: timeout)
    }

    /// Connects to the daemon at `path` without the fallback (tests, scripts).
    public static func connect(path: String, timeout: Duration) async throws -> DaemonClient {
        try await handshake(try await SocketStream.connect(unixPath: path, timeout: timeout), timeout: timeout)
    }

    private static func handshake(_ stream: SocketStream, timeout: Duration) async throws -> DaemonClient {
        guard let peer = stream.peerCredentials, peer.uid == geteuid() else {
            await stream.close()
            throw PhotonError(
                .storePermissions, "the daemon socket is served by another user", hint: "pass --direct, and find out who started it")
        }
        // The daemon greets first: {"event":"hello","protocol":1,"pid":N}.
        var buffer: [UInt8] = []
        let end = ContinuousClock.now + timeout
        while !buffer.contains(0x0A) {
            let chunk = try await stream.read(maxLength: 4096, timeout: max(end - ContinuousClock.now, .milliseconds(1)))
            guard !chunk.isEmpty, buffer.count < 65536 else {
                await stream.close()
                throw PhotonError(.connectionClosed, "the daemon closed the connection before greeting", hint: "see its log")
            }
            buffer += chunk
        }
        let newline = buffer.firstIndex(of: 0x0A)!
        let hello = try JSONValue.parse(Array(buffer[..<newline]))
        guard hello["event"]?.stringValue == "hello" else {
            await stream.close()
            throw ServiceProtocol.error(from: hello["error"])
        }
        guard hello["protocol"]?.intValue == ServiceProtocol.version else {
            await stream.close()
            throw PhotonError(
                .protocolViolation, "the running daemon speaks protocol \(hello["protocol"]?.intValue ?? 0), not \(ServiceProtocol.version)",
                hint: "restart `photon serve` after upgrading")
        }
        return DaemonClient(stream: stream, daemonPID: hello["pid"]?.intValue ?? 0, leftover: Array(buffer[(newline + 1)...]))
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
        try await stream.write(Array(line.utf8), timeout: timeout)
        let answer = try await withTimeout(timeout, "waiting for the daemon") { try await promise.value() }
        guard answer["ok"]?.boolValue == true else { throw ServiceProtocol.error(from: answer["error"]) }
        return answer
    }

    /// Lines the daemon sends on its own: TV events after `subscribe`, `shutdown`.
    public var events: AsyncStream<JSONValue> { eventStream }

    public func close() async { await stream.close() }

    private func readLoop(_ leftover: [UInt8]) async {
        var buffer = leftover
        var reason = PhotonError(.connectionClosed, "the daemon closed the connection", hint: "is `photon serve` still running?")
        reading: while true {
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
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
            do {
                let chunk = try await stream.read(maxLength: 64 * 1024, timeout: nil)
                if chunk.isEmpty { break }
                buffer += chunk
            } catch {
                break
            }
        }
        ended.withLock { $0 = reason }
        for promise in pending.withLock({ Array($0.values) }) { promise.fail(reason) }
        eventSink.finish()
    }
}
