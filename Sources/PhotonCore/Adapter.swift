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
    /// What the user should know before pairing (a setting that will refuse commands).
    public var remarks: [String] = []

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
    /// The clock an adapter waits on for its own rules of time (key pacing, polling), so
    /// tests run those rules without sleeping through them.
    public var clock: any RouterClock
    /// Called when a TV hands out new secrets mid-session (a TV rotating its
    /// token), with the secrets the session was opened with: the host stores the new ones
    /// only if the stored ones are still those (not after `forget`, not over a re-pair).
    public var secretsChanged: @Sendable (_ previous: DeviceSecrets, _ updated: DeviceSecrets) async throws -> Void
    /// The command this session is opened to send, when the caller knows it (a command
    /// line's one command); nil for a session that serves whatever comes (a daemon's). An
    /// adapter may start what that command will need while the session opens — a second
    /// connection, say — instead of after it; the command itself is still sent only when
    /// it is performed.
    public var expectedCommand: RemoteCommand?

    public init(
        connector: any Connector, clientIdentity: ClientIdentity, clientName: String = "Photon",
        timeout: Duration = .seconds(10), log: PhotonLog = .silent, clock: any RouterClock = SystemClock(),
        secretsChanged: @escaping @Sendable (_ previous: DeviceSecrets, _ updated: DeviceSecrets) async throws -> Void = { _, _ in },
        expectedCommand: RemoteCommand? = nil
    ) {
        self.connector = connector
        self.clientIdentity = clientIdentity
        self.clientName = clientName
        self.timeout = timeout
        self.log = log
        self.clock = clock
        self.secretsChanged = secretsChanged
        self.expectedCommand = expectedCommand
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

/// How a brand pairs, as the host shows it to the user.
public enum PairingStyle: String, Sendable, Hashable {
    /// The TV shows a code the user types (`enterCode` challenges).
    case codeOnTV = "code-on-tv"
    /// The user accepts a prompt on the TV (`confirmOnTV` challenges).
    case acceptOnTV = "accept-on-tv"
    /// Nothing is exchanged; pairing stores the device's identity.
    case none
}

/// An option a brand adds to `photon pair` and `photon probe` (`--pairing-port`), typed
/// so the host checks its value before anything is sent.
public struct AdapterOption: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        /// A TCP port (1–65535) that sets the adapter's named port (`pairing`, `rest`).
        case port(named: String)
        /// Free text.
        case text
    }

    public var name: String
    public var value: Value
    public var help: String

    public init(_ name: String, _ value: Value, help: String) {
        self.name = name
        self.value = value
        self.help = help
    }

    /// The placeholder shown in help (`PORT`, `TEXT`).
    public var placeholder: String {
        switch value {
        case .port: return "PORT"
        case .text: return "TEXT"
        }
    }
}

/// The audio a brand's voice input takes (PCM, little-endian, signed).
public struct VoiceFormat: Sendable, Hashable {
    public var sampleRate: Int
    public var channels: Int
    public var bitsPerSample: Int
    public init(sampleRate: Int, channels: Int = 1, bitsPerSample: Int = 16) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
    }
}

/// How a TV of a brand is woken when it does not answer.
public enum WakeMethod: String, Sendable, Hashable {
    /// A Wake-on-LAN magic packet to the MAC learned at pairing.
    case wakeOnLAN = "wake-on-lan"
    /// The brand cannot be woken from here.
    case none
}

/// One protocol family (one brand's remote-control protocol). An adapter
/// speaks its protocol only through the `Connector` in its context, so it can be tested
/// over an in-memory transport and run over real TLS unchanged. It describes itself
/// completely in its `descriptor` — discovery, ports, pairing, secrets, identity, voice,
/// keys, help — so the host (CLI, daemon, façade) never names a brand; the rest is the
/// four things only the brand knows how to do.
public protocol TVAdapter: Sendable {
    var descriptor: AdapterDescriptor { get }
    /// The brand's id, the descriptor's (the default reads it there); an adapter whose
    /// descriptor is costly to make the first time (key tables, help) gives it directly,
    /// so finding a brand by id builds no other brand's descriptor.
    var id: String { get }

    /// Turns a discovered mDNS service into a candidate, or nil if it is not ours.
    func recognise(_ service: DiscoveredService) -> TVCandidate?
    /// Asks whether a TV of this brand answers at `host` (nil: it is not this brand).
    /// `ports` may override the adapter's named default ports.
    func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate?
    /// Starts pairing with the TV at `endpoint`, with the brand options the user gave.
    func pairing(with endpoint: Endpoint, options: AdapterOptionValues, context: AdapterContext) -> any PairingFlow
    /// Opens a session to a paired TV.
    func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws
        -> any RemoteSession
}

extension TVAdapter {
    /// The descriptor's id (what the store and the command line call the brand).
    public var id: String { descriptor.id }

    public var displayName: String { descriptor.displayName }
    /// What this adapter can do at most; a TV may declare less.
    public var capabilities: Capabilities { descriptor.capabilities }
    public var keyTable: [KeyMapping] { descriptor.keyTable }
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

    /// Every brand option, once each, in registration order.
    public var options: [AdapterOption] {
        var seen: Set<String> = []
        return adapters.flatMap(\.descriptor.pairing.options).filter { seen.insert($0.name).inserted }
    }

    /// The adapters that take option `name`.
    public func adapters(taking name: String) -> [any TVAdapter] {
        adapters.filter { $0.descriptor.pairing.options.contains { $0.name == name } }
    }

    /// Every SSDP search target, once each.
    public var ssdpSearchTargets: [String] {
        var seen: Set<String> = []
        return adapters.flatMap(\.descriptor.discovery.ssdpSearchTargets).filter { seen.insert($0).inserted }
    }

    /// Every secret name an adapter keeps (for redaction).
    public var secretNames: Set<String> { Set(adapters.flatMap(\.descriptor.pairing.secretNames)) }
}
