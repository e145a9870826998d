import Foundation
import PhotonCore
import PhotonStore

/// What the commands that talk to a TV share: the adapter context, choosing an adapter
/// for an address, finding a stored TV and opening a session to it.
enum SessionSupport {
    /// The context adapters get. `deviceID` names the TV whose secrets a session may
    /// rotate (a token), so they are stored the moment they arrive.
    static func adapterContext(_ context: CLIContext, deviceID: String? = nil) async throws -> AdapterContext {
        try await context.sessions.adapterContext(deviceID: deviceID)
    }

    /// `--brand`, or the first adapter that answers a probe at the address.
    static func chooseAdapter(for address: String, brand: String?, context: CLIContext, adapterContext: AdapterContext) async throws
        -> any TVAdapter
    {
        if let brand { return try context.registry.adapter(id: brand) }
        let adapters = context.registry.adapters
        if adapters.count == 1 { return adapters[0] }
        // An explicit port that only one brand uses decides.
        let endpoint = try Endpoint(parsing: address, defaultPort: 0)
        if endpoint.port != 0 {
            let matching = adapters.filter { $0.defaultPorts.values.contains(endpoint.port) }
            if matching.count == 1 { return matching[0] }
            throw PhotonError(
                .usage, "cannot tell the brand from port \(endpoint.port)",
                hint: "pass --brand \(adapters.map(\.id).joined(separator: "|"))")
        }
        let host = endpoint.host
        for adapter in adapters {
            if (try? await adapter.probe(host: host, ports: [:], context: adapterContext)) != nil { return adapter }
        }
        throw PhotonError(
            .unreachable, "no supported TV answered at \(host)",
            hint: "tried: \(adapters.map(\.id).joined(separator: ", ")); pass --brand to skip detection")
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

    /// Checks a command against the session's capabilities before anything is sent.
    static func require(_ command: RemoteCommand, on session: any RemoteSession, device: DeviceRecord) throws {
        let capability = command.requiredCapability
        guard session.capabilities.contains(capability) else {
            throw PhotonError.unsupported(
                "\(Redaction.sanitize(device.nickname)) does not support \(capability.rawValue) right now",
                hint: "its capabilities: \(session.capabilities.sortedNames.joined(separator: ", "))")
        }
    }
}
