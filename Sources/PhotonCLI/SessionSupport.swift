import Foundation
import PhotonCore
import PhotonStore

/// What the commands that talk to a TV share: the adapter context and finding a stored TV.
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
}
