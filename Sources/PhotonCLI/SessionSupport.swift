import Foundation
import PhotonCore
import PhotonStore

/// What the commands that talk to a TV share: the adapter context, finding a stored TV
/// and opening a session to it (for `status`, which reads events rather than sending).
enum SessionSupport {
    /// The context adapters get. `deviceID` names the TV whose secrets a session may
    /// rotate (a token), so they are stored the moment they arrive.
    static func adapterContext(_ context: CLIContext, deviceID: String? = nil) async throws -> AdapterContext {
        try await context.sessions.adapterContext(deviceID: deviceID)
    }

    /// A stored TV by nickname, id or address.
    static func device(_ name: String, context: CLIContext) async throws -> DeviceRecord {
        try await context.sessions.device(named: name)
    }

    /// Opens a session to a stored TV, runs `body`, and closes it.
    static func withSession<R: Sendable>(
        _ name: String, context: CLIContext, _ body: (DeviceRecord, any RemoteSession) async throws -> R
    ) async throws -> R {
        let device = try await device(name, context: context)
        let session = try await context.sessions.openSession(to: device)
        context.log.debug("session open")
        do {
            let result = try await body(device, session)
            await session.close()
            context.log.debug("session closed")
            return result
        } catch {
            await session.close()
            throw error
        }
    }
}
