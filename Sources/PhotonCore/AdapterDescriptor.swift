/// Everything a brand's adapter says about itself, grouped by what uses it — discovery,
/// ports, pairing, help — so that the host (CLI, daemon, façade, doors to come) never
/// names a brand, and an adapter states each fact once: voice input exists exactly when
/// a voice format is given, and waking follows from the `wakeOnLAN` capability.
public struct AdapterDescriptor: Sendable {
    /// Stable id used in the store and on the command line (lower-case, e.g. `acme`).
    public var id: String
    public var displayName: String
    public var discovery: Discovery
    public var ports: Ports
    public var pairing: Pairing
    /// The brand-neutral keys this adapter maps, with their codes.
    public var keyTable: [KeyMapping]
    /// The audio voice input takes, or nil when the brand has none.
    public var voiceFormat: VoiceFormat?
    public var help: Help
    /// The brand's ids (or links) for `AppCatalog`'s apps, by catalog key, newest first:
    /// what `photon apps --catalog` shows and status names apps by. Its sessions launch
    /// with the same table (`AppLaunching.catalogIDs`).
    public var appCatalogIDs: [String: [String]]
    private var declared: Capabilities

    /// `capabilities`: what the adapter can do at most (a TV may declare less); `voice`
    /// is added when `voiceFormat` is given and left out when it is not.
    public init(
        id: String, displayName: String, discovery: Discovery = Discovery(), ports: Ports, pairing: Pairing,
        capabilities: Capabilities, keyTable: [KeyMapping], voiceFormat: VoiceFormat? = nil, help: Help = Help(),
        appCatalogIDs: [String: [String]] = [:]
    ) {
        self.id = id
        self.displayName = displayName
        self.discovery = discovery
        self.ports = ports
        self.pairing = pairing
        self.keyTable = keyTable
        self.voiceFormat = voiceFormat
        self.help = help
        self.appCatalogIDs = appCatalogIDs
        declared = capabilities
    }

    /// What this adapter can do at most; a TV may declare less.
    public var capabilities: Capabilities {
        var members = declared.members
        if voiceFormat != nil { members.insert(.voice) } else { members.remove(.voice) }
        return Capabilities(members)
    }

    /// How a TV of this brand that does not answer is woken.
    public var wakeMethod: WakeMethod { capabilities.contains(.wakeOnLAN) ? .wakeOnLAN : .none }

    /// How TVs of the brand are found on the network.
    public struct Discovery: Sendable {
        /// mDNS service types this adapter recognises (`_acme-remote._tcp`).
        public var serviceTypes: [String]
        /// SSDP search targets (`ST`) to send; answers come to `recognise` as services of
        /// type `ssdp:<ST>`. Empty: no SSDP.
        public var ssdpSearchTargets: [String]
        public init(serviceTypes: [String] = [], ssdpSearchTargets: [String] = []) {
            self.serviceTypes = serviceTypes
            self.ssdpSearchTargets = ssdpSearchTargets
        }
    }

    /// The brand's TCP ports: the main one (an address without a port means it; a plain
    /// `--port` sets it) and the others by name.
    public struct Ports: Sendable {
        public var mainName: String
        public var main: UInt16
        public var others: [String: UInt16]
        public init(main name: String, _ port: UInt16, others: [String: UInt16] = [:]) {
            precondition(others[name] == nil, "the main port '\(name)' is named twice")
            mainName = name
            main = port
            self.others = others
        }
        /// Every port by name, the main one included (`remote`: 6466, `pairing`: 6467).
        public var all: [String: UInt16] { others.merging([mainName: main]) { _, main in main } }
    }

    /// What a brand's pin is the SHA-256 of.
    public enum PinnedKey: Sendable, Equatable {
        /// The TV's TLS certificate.
        case tlsCertificate
        /// A key of the brand's own protocol, checked by that protocol on every connection
        /// (named for people: "long-term key").
        case protocolKey(String)
    }

    /// How pairing goes and what it leaves in the store.
    public struct Pairing: Sendable {
        /// For help and for front ends that prepare the user.
        public var style: PairingStyle
        /// Options of `photon pair` and `photon probe` for this brand (`--pairing-port`).
        public var options: [AdapterOption]
        /// The names of the secrets `PairedTV.secrets` carries besides the pin (`token`):
        /// what the store keeps and every log redacts.
        public var secretNames: [String]
        /// Whether the TV remembers this installation's client certificate: regenerating
        /// the identity then means pairing such TVs again.
        public var usesClientIdentity: Bool
        /// What the stored pin is the fingerprint of: the TV's TLS certificate (checked in
        /// every TLS handshake, and by `photon doctor`'s certificate step), or a key of the
        /// brand's own protocol (an Apple TV's long-term key, checked by pair-verify).
        public var pinnedKey: PinnedKey
        public init(
            style: PairingStyle, options: [AdapterOption] = [], secretNames: [String] = [], usesClientIdentity: Bool = false,
            pinnedKey: PinnedKey = .tlsCertificate
        ) {
            self.style = style
            self.options = options
            self.pinnedKey = pinnedKey
            self.secretNames = secretNames
            self.usesClientIdentity = usesClientIdentity
        }
    }

    /// What the CLI's help says about the brand.
    public struct Help: Sendable {
        /// One or two sentences for `photon pair --help`: what happens after consent.
        public var pairing: String
        /// One sentence for `photon probe --help`: how this brand is recognised.
        public var probe: String
        /// One sentence for `photon launch --help`: what this brand takes as an app.
        public var launch: String
        /// An app this brand can launch, for examples and the demo (empty: none).
        public var exampleApp: String
        /// The TV's own name for the setting that lets it be woken over the network, for
        /// `photon power --help` and the hint when a woken TV stays dark (empty: none).
        public var networkStandby: String
        public init(pairing: String = "", probe: String = "", launch: String = "", exampleApp: String = "", networkStandby: String = "") {
            self.pairing = pairing
            self.probe = probe
            self.launch = launch
            self.exampleApp = exampleApp
            self.networkStandby = networkStandby
        }
    }
}

/// The values of a brand's options for one `photon pair` or `photon probe`, checked by the
/// host against their declared types before the adapter sees them.
public struct AdapterOptionValues: Sendable, Hashable {
    /// Ports set by port options, by port name (`--pairing-port 7000`: `pairing`: 7000).
    public var ports: [String: UInt16]
    /// Free-text options, by option name.
    public var texts: [String: String]

    public init(ports: [String: UInt16] = [:], texts: [String: String] = [:]) {
        self.ports = ports
        self.texts = texts
    }

    /// Reads `--name value` pairs for `options`: a port option takes 1–65535, anything
    /// else is an error naming the option; names no option declares are ignored.
    public init(parsing values: [String: String], for options: [AdapterOption]) throws {
        self.init()
        for option in options {
            guard let value = values[option.name] else { continue }
            switch option.value {
            case .port(let name):
                guard let port = UInt16(value), port > 0 else {
                    throw PhotonError(.usage, "--\(option.name) takes a TCP port from 1 to 65535, not '\(Redaction.sanitize(value))'")
                }
                ports[name] = port
            case .text:
                texts[option.name] = value
            }
        }
    }
}
