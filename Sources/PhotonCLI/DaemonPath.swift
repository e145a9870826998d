import Foundation
import PhotonCore
import PhotonKit
import PhotonService
import PhotonWire

/// How commands use a running `photon serve`: its warm session instead of a new TLS
/// connection. When no daemon runs for this home (or with `--direct`), commands connect
/// to the TV themselves.
enum DaemonPath {
    /// A client of the daemon, or nil to go direct.
    static func client(_ context: CLIContext) async throws -> ServiceClient? {
        guard !context.direct else { return nil }
        let client = try await ServiceClient.connectIfRunning(store: context.store, timeout: min(context.timeout, .seconds(2)))
        if let client {
            context.log.debug("using photon serve (pid \(client.daemonPID))")
        } else {
            context.log.debug("photon serve is not running: connecting directly")
        }
        return client
    }

    /// A controller session on the daemon's router, bound to one TV.
    struct Session {
        let client: ServiceClient
        let id: String
        let tv: String
        var sequence = 0
        let lifetime: Duration

        /// Sends one command in a fresh envelope (new id, next sequence number, issued
        /// now, expiring after the command's lifetime).
        mutating func send(_ command: RemoteCommand) async throws {
            sequence += 1
            let now = Date().timeIntervalSince1970
            var waitLimit = lifetime + .seconds(5)
            if case .longPress(_, let ms) = command { waitLimit += .milliseconds(ms) }
            let fields = DaemonWire.sendFields(
                session: id, sequence: sequence, commandID: UUID().uuidString, issuedAt: now, expiresAt: now + lifetime.seconds,
                command: try ServiceProtocol.json(command))
            try await client.request("send", fields, timeout: waitLimit)
        }

        func close() async {
            _ = try? await client.request("close", [("session", .string(id))], timeout: .seconds(2))
            await client.close()
        }
    }

    /// Opens a CLI session to `tv` on the daemon, or nil when no daemon runs.
    static func session(_ tv: String, _ context: CLIContext) async throws -> Session? {
        guard let client = try await client(context) else { return nil }
        do {
            let opened = try await client.request("open", [("tv", .string(tv)), ("source", .string(CommandSource.cli.rawValue))])
            guard let id = opened["session"]?.stringValue else {
                throw PhotonError(.protocolViolation, "the daemon's answer to open has no session")
            }
            // The router refuses lifetimes over 10 s; a command must not linger longer.
            return Session(client: client, id: id, tv: opened["tv"]?.stringValue ?? tv, lifetime: min(context.timeout, .seconds(10)))
        } catch {
            await client.close()
            throw error
        }
    }

    /// Runs `body` with a daemon session when one is available, else returns nil. With
    /// `wake`, the daemon first wakes a TV that does not answer and waits for it; `body`
    /// learns whether it had to.
    static func withSession<R: Sendable>(
        _ tv: String, _ context: CLIContext, wake: WakeRequest? = nil, _ body: (inout Session, _ woke: Bool) async throws -> R
    ) async throws -> R? {
        guard var session = try await session(tv, context) else { return nil }
        do {
            var woke = false
            if let wake {
                let answer = try await session.client.request(
                    "wake",
                    [("tv", .string(tv)), ("wait", .double(wake.patience.seconds)), ("broadcast", .array(wake.destinations.map { .string($0) })),
                        ("ports", .array(wake.ports.map { .int(Int($0)) }))],
                    timeout: wake.patience + .seconds(10))
                woke = answer["woke"]?.boolValue == true
            }
            let result = try await body(&session, woke)
            await session.close()
            return result
        } catch {
            await session.close()
            throw error
        }
    }

    /// Tells a running daemon that the store changed (pair, forget), so it drops TVs
    /// that were forgotten and reconnects TVs paired again. Best effort.
    static func notifyStoreChanged(_ context: CLIContext) async {
        guard let client = try? await client(context) else { return }
        _ = try? await client.request("reload", [], timeout: .seconds(5))
        await client.close()
    }
}
