import Foundation
import PhotonCore
import PhotonStore

/// What the commands that talk to a TV share: finding a stored TV.
enum SessionSupport {
    /// A stored TV by nickname, id or address.
    static func device(_ name: String, context: CLIContext) async throws -> DeviceRecord {
        try await context.sessions.device(named: name)
    }
}
