/// A service seen through mDNS, as the discovery layer hands it to adapters. Every field
/// came from the network and is untrusted.
public struct DiscoveredService: Sendable, Hashable {
    public var name: String
    public var type: String
    public var host: String
    public var addresses: [String]
    public var port: UInt16
    public var txt: [String: String]

    public init(name: String, type: String, host: String, addresses: [String], port: UInt16, txt: [String: String]) {
        self.name = name
        self.type = type
        self.host = host
        self.addresses = addresses
        self.port = port
        self.txt = txt
    }
}

/// A TV found by discovery or by probing an address, before pairing.
public struct TVCandidate: Sendable, Hashable {
    public var brand: String
    public var name: String
    public var endpoint: Endpoint
    public var id: String?
    public var model: String?
    public var mac: String?
    public var ports: [String: UInt16]
    /// Set when the TV speaks a protocol version this adapter cannot drive.
    public var unsupportedReason: String?

    public init(
        brand: String, name: String, endpoint: Endpoint, id: String? = nil, model: String? = nil,
        mac: String? = nil, ports: [String: UInt16] = [:], unsupportedReason: String? = nil
    ) {
        self.brand = brand
        self.name = name
        self.endpoint = endpoint
        self.id = id
        self.model = model
        self.mac = mac
        self.ports = ports
        self.unsupportedReason = unsupportedReason
    }
}

/// What the host gives an adapter: the way to the network, this installation's identity,
/// the name shown on the TV, and the time limit for each network wait.
public struct AdapterContext: Sendable {
    public var connector: any Connector
    public var clientIdentity: ClientIdentity
    public var clientName: String
    public var timeout: Duration
    public var log: PhotonLog
    /// Called when a TV hands out new secrets mid-session (a Samsung TV rotating its
    /// token), with the secrets the session was opened with: the host stores the new ones
    /// only if the stored ones are still those (not after `forget`, not over a re-pair).
    public var secretsChanged: @Sendable (_ previous: DeviceSecrets, _ updated: DeviceSecrets) async throws -> Void

    public init(
        connector: any Connector, clientIdentity: ClientIdentity, clientName: String = "Photon",
        timeout: Duration = .seconds(10), log: PhotonLog = .silent,
        secretsChanged: @escaping @Sendable (_ previous: DeviceSecrets, _ updated: DeviceSecrets) async throws -> Void = { _, _ in }
    ) {
        self.connector = connector
        self.clientIdentity = clientIdentity
        self.clientName = clientName
        self.timeout = timeout
        self.log = log
        self.secretsChanged = secretsChanged
    }
}

/// One row of an adapter's key table: a brand-neutral key and the brand's code for it.
public struct KeyMapping: Sendable, Hashable {
    public var key: RemoteKey
    public var code: String
    public init(key: RemoteKey, code: String) {
        self.key = key
        self.code = code
    }
}

/// One protocol family (Android TV Remote v2, Samsung WebSocket-token…). An adapter
/// speaks its protocol only through the `Connector` in its context, so it can be tested
/// over an in-memory transport and run over real TLS unchanged.
public protocol TVAdapter: Sendable {
    /// Stable id used in the store and on the command line (`androidtv`, `samsung`).
    var id: String { get }
    var displayName: String { get }
    /// mDNS service types this adapter recognises (`_androidtvremote2._tcp`).
    var serviceTypes: [String] { get }
    /// Named default ports (`remote`: 6466, `pairing`: 6467).
    var defaultPorts: [String: UInt16] { get }
    /// The port an address without one means.
    var defaultPort: UInt16 { get }
    /// What this adapter can do at most; a TV may declare less.
    var capabilities: Capabilities { get }
    /// The brand-neutral keys this adapter maps, with their codes.
    var keyTable: [KeyMapping] { get }

    /// Turns a discovered mDNS service into a candidate, or nil if it is not ours.
    func recognise(_ service: DiscoveredService) -> TVCandidate?
    /// Asks whether a TV of this brand answers at `host` (nil: it is not this brand).
    /// `ports` may override the adapter's named default ports.
    func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate?
    /// Starts pairing with the TV at `endpoint`.
    func pairing(with endpoint: Endpoint, options: [String: String], context: AdapterContext) -> any PairingFlow
    /// Opens a session to a paired TV.
    func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws
        -> any RemoteSession
}

/// The adapters a program knows. The CLI and the daemon build it in exactly one place,
/// so adding a brand is one line there.
public struct AdapterRegistry: Sendable {
    public let adapters: [any TVAdapter]

    public init(_ adapters: [any TVAdapter]) { self.adapters = adapters }

    public func adapter(id: String) throws -> any TVAdapter {
        if let found = adapters.first(where: { $0.id == id }) { return found }
        let known = adapters.map(\.id).joined(separator: ", ")
        throw PhotonError(
            .usage, "unknown brand '\(id)'",
            hint: known.isEmpty ? "this build has no brand adapters" : "known brands: \(known)")
    }

    public var ids: [String] { adapters.map(\.id) }
}
