import Foundation
import PhotonCore
import PhotonKit
import PhotonService

/// What the keyboard remote drives: a TV through `photon serve`'s warm session, or
/// directly. Both send through a CommandRouter and report the TV's events.
protocol RemoteLink: Sendable {
    /// How it is connected, for the status line (`photon serve`, `direct`).
    var route: String { get }
    func send(_ command: RemoteCommand) async throws
    func installedApps() async throws -> [TVApp]
    /// The TV's events and connection changes.
    var updates: AsyncStream<RemoteUpdate> { get }
    func close() async
}

/// A change the status line shows.
enum RemoteUpdate: Sendable {
    case event(TVEvent)
    /// The connection's state: connected, reconnecting…
    case connection(String)
    /// The TV is gone for good (direct sessions): the remote ends with this error.
    case lost(PhotonError)
}

/// Through the daemon: one client for commands (a router session), one for events.
final class DaemonRemoteLink: RemoteLink {
    let route = "photon serve"
    private let session: Locked<DaemonPath.Session>
    private let events: ServiceClient
    private let gate = AsyncGate()
    let updates: AsyncStream<RemoteUpdate>
    private let pump: Task<Void, Never>
    private let tv: String
    private let context: CLIContext

    init?(tv: String, context: CLIContext) async throws {
        guard let session = try await DaemonPath.session(tv, context) else { return nil }
        guard let events = try await DaemonPath.client(context) else {
            await session.close()
            return nil
        }
        do {
            try await events.request("subscribe", [("tv", .string(tv))])
        } catch {
            await session.close()
            await events.close()
            throw error
        }
        self.session = Locked(session)
        self.events = events
        self.tv = tv
        self.context = context
        let (stream, continuation) = AsyncStream.makeStream(of: RemoteUpdate.self, bufferingPolicy: .bufferingNewest(64))
        updates = stream
        let lines = events.events
        pump = Task {
            for await line in lines {
                if line["event"]?.stringValue == "connection", let state = line["state"]?.stringValue {
                    continuation.yield(.connection(state))
                } else if line["event"]?.stringValue == "shutdown" {
                    continuation.yield(.lost(PhotonError(.connectionClosed, "photon serve is stopping")))
                } else if let event = ServiceProtocol.event(from: line) {
                    continuation.yield(.event(event))
                }
            }
            continuation.finish()
        }
    }

    func send(_ command: RemoteCommand) async throws {
        // One at a time, each in its own envelope (the sequence number must grow).
        try await gate.withGate {
            var current = self.session.withLock { $0 }
            try await current.send(command)
            let sent = current
            self.session.withLock { $0 = sent }
        }
    }

    func installedApps() async throws -> [TVApp] { try await AppsCommand.installedApps(tv, context) }

    func close() async {
        pump.cancel()
        await session.withLock { $0 }.close()
        await events.close()
    }
}

/// Directly: this process's own router and session (PhotonKit).
final class DirectRemoteLink: RemoteLink {
    let route = "direct"
    let remote: TVRemote
    let updates: AsyncStream<RemoteUpdate>
    private let pump: Task<Void, Never>

    init(tv: String, context: CLIContext) async throws {
        remote = try await context.photon.connect(tv, source: .cli)
        let (stream, continuation) = AsyncStream.makeStream(of: RemoteUpdate.self, bufferingPolicy: .bufferingNewest(64))
        updates = stream
        let events = remote.events
        pump = Task {
            continuation.yield(.connection("connected"))
            for await event in events {
                if case .disconnected(let reason) = event {
                    continuation.yield(.lost(reason ?? PhotonError(.connectionClosed, "the TV closed the connection")))
                    break
                }
                continuation.yield(.event(event))
            }
            continuation.finish()
        }
    }

    func send(_ command: RemoteCommand) async throws { try await remote.send(command, lifetime: .seconds(5)) }
    func installedApps() async throws -> [TVApp] { try await remote.installedApps() }
    func close() async {
        pump.cancel()
        await remote.close()
    }
}
