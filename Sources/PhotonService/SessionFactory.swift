import Foundation
import PhotonCore
import PhotonNet
import PhotonStore

/// Opens sessions to paired TVs the same way for the CLI's direct path and for the
/// daemon: the stored record and secrets, this installation's identity, the real network,
/// and secrets a TV rotates mid-session stored at once.
public struct SessionFactory: Sendable {
    public let store: Store
    public let registry: AdapterRegistry
    public let timeout: Duration
    public let log: PhotonLog

    public init(store: Store, registry: AdapterRegistry, timeout: Duration, log: PhotonLog) {
        self.store = store
        self.registry = registry
        self.timeout = timeout
        self.log = log
    }

    /// The context adapters get. `deviceID` names the TV whose secrets a session may
    /// rotate (a Samsung token), so they are stored the moment they arrive.
    public func adapterContext(deviceID: String? = nil, timeout: Duration? = nil) async throws -> AdapterContext {
        let identity = try await store.clientIdentity()
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "Linux"
        let store = self.store
        let log = self.log
        return AdapterContext(
            connector: NetConnector(log: log), clientIdentity: identity.clientIdentity,
            clientName: "Photon on \(host)", timeout: timeout ?? self.timeout, log: log,
            secretsChanged: { secrets in
                guard let deviceID else { return }
                try await store.update { _, file in file.devices[deviceID] = secrets }
                log.debug("stored the TV's new secrets for \(deviceID)")
            })
    }

    /// A stored TV by nickname, id or address (`HOST` or `HOST:PORT`).
    public func device(named name: String) async throws -> DeviceRecord {
        let file = try await store.devices()
        if let found = file.find(name) { return found }
        if let endpoint = try? Endpoint(parsing: name, defaultPort: 0),
            let found = file.devices.first(where: { $0.host == endpoint.host && (endpoint.port == 0 || $0.port == endpoint.port) })
        {
            return found
        }
        let looksLikeAddress = name.contains(".") || name.contains(":")
        throw PhotonError(
            looksLikeAddress ? .notPaired : .notFound,
            looksLikeAddress ? "\(Redaction.sanitize(name)) is not paired" : "no paired TV is called '\(Redaction.sanitize(name))'",
            hint: looksLikeAddress
                ? "pair it first: photon pair \(name)"
                : (file.devices.isEmpty
                    ? "pair one first with `photon pair ADDRESS`"
                    : "paired TVs: \(file.devices.map(\.nickname).sorted().joined(separator: ", "))"))
    }

    /// Opens a session to the stored TV `device`, waiting at most `timeout`.
    public func openSession(to device: DeviceRecord, timeout: Duration? = nil) async throws -> any RemoteSession {
        let adapter = try registry.adapter(id: device.brand)
        let secrets = try await store.secrets(for: device.id)
        let context = try await adapterContext(deviceID: device.id, timeout: timeout)
        log.debug("opening a session to \(device.nickname) (\(device.endpoint))")
        return try await adapter.openSession(device: device, secrets: secrets, context: context)
    }
}
