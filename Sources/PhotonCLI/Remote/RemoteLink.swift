import Foundation
import PhotonCore
import PhotonKit

/// What the keyboard remote drives: one controller session of `context.control()` (the
/// daemon's warm session, or this process's own), sending through a CommandRouter and
/// reporting the TV's updates.
final class RemoteLink: Sendable {
    /// How it is connected, for the status line (`photon serve`, `direct`).
    let route: String
    let session: any TVControlSession
    let updates: AsyncStream<TVUpdate>

    init(tv: String, context: CLIContext) async throws {
        let control = try await context.control()
        route = control.route
        session = try await control.open(tv, source: .cli)
        updates = session.updates
    }

    func send(_ command: RemoteCommand) async throws { try await session.send(command, lifetime: .seconds(5)) }
    func installedApps() async throws -> [TVApp] { try await session.installedApps() }
    func close() async { await session.close() }
}
