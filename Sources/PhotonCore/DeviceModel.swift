import Foundation

/// What Photon remembers about a paired TV (the metadata file; nothing secret here).
public struct DeviceRecord: Sendable, Hashable, Codable {
    /// Stable local id, e.g. `<brand>-aabbccddeeff`; never reused for another TV.
    public var id: String
    public var nickname: String
    public var brand: String
    public var host: String
    /// The main port (the one `AdapterDescriptor.Ports.main` is).
    public var port: UInt16
    /// Other named ports (`pairing`, `rest`).
    public var ports: [String: UInt16]
    public var name: String?
    public var model: String?
    public var mac: String?
    public var capabilities: [String]
    public var pairedAt: Date
    /// More MACs the TV reported (its Wi-Fi one beside the wired `mac`): waking sends to
    /// every one, because a TV wakes only on the interface it last used.
    public var otherMACs: [String]?
    /// The user consented at pairing to a connection without TLS (an old TV that offers
    /// nothing else), so its credential travels in clear text. `photon list` shows it.
    public var unencrypted: Bool?

    public init(
        id: String, nickname: String, brand: String, host: String, port: UInt16, ports: [String: UInt16] = [:],
        name: String? = nil, model: String? = nil, mac: String? = nil, capabilities: [String] = [],
        pairedAt: Date = Date()
    ) {
        self.id = id
        self.nickname = nickname
        self.brand = brand
        self.host = host
        self.port = port
        self.ports = ports
        self.name = name
        self.model = model
        self.mac = mac
        self.capabilities = capabilities
        self.pairedAt = pairedAt
    }

    public var endpoint: Endpoint { Endpoint(host: host, port: port) }

    /// Every MAC known for Wake-on-LAN, the main one first, each once.
    public var wakeMACs: [String] {
        var seen: Set<String> = []
        return ([mac].compactMap { $0 } + (otherMACs ?? [])).filter { seen.insert($0.uppercased()).inserted }
    }

    /// An id part for a TV that reports nothing better: the whole address, with every
    /// character other than ASCII letters and digits as '-', so `192.168.1.23` and
    /// `192.168.12.3` stay different (`192-168-1-23`, `192-168-12-3`).
    public static func idPart(fromHost host: String) -> String {
        String(
            String.UnicodeScalarView(
                host.lowercased().unicodeScalars.map { $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) ? $0 : "-" }))
    }
}

/// The secrets for one TV: its certificate pin (for TLS brands) and whatever else its
/// adapter keeps (a token, a client key…), by name. Stored only in the secret store
/// (0600), never printed. On disk it is one flat JSON object (`{"pin": …, "token": …}`),
/// so a brand adds a secret without a new field here or a new store format.
public struct DeviceSecrets: Sendable, Hashable, Codable {
    public var pin: CertificateFingerprint?
    /// The adapter's own secrets, by the names it declares in `AdapterDescriptor.Pairing.secretNames`.
    public var values: [String: String]

    public init(pin: CertificateFingerprint? = nil, values: [String: String] = [:]) {
        self.pin = pin
        self.values = values
    }

    /// One of the adapter's secrets by name.
    public subscript(name: String) -> String? {
        get { values[name] }
        set { values[name] = newValue }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        pin = try container.decodeIfPresent(CertificateFingerprint.self, forKey: Key(stringValue: "pin"))
        values = [:]
        for key in container.allKeys where key.stringValue != "pin" {
            if let value = try? container.decode(String.self, forKey: key) { values[key.stringValue] = value }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(pin, forKey: Key(stringValue: "pin"))
        for (name, value) in values where name != "pin" { try container.encode(value, forKey: Key(stringValue: name)) }
    }
}

/// On-disk layout of `devices.json`.
public struct DeviceFile: Sendable, Codable, Equatable {
    public static let currentSchemaVersion = 1
    public var schemaVersion: Int
    public var devices: [DeviceRecord]
    public init(devices: [DeviceRecord] = []) {
        self.schemaVersion = Self.currentSchemaVersion
        self.devices = devices
    }
}

/// This installation's client identity as stored.
public struct StoredIdentity: Sendable, Codable, Equatable {
    public var certificatePEM: String
    public var privateKeyPEM: String
    public var createdAt: Date
    public init(certificatePEM: String, privateKeyPEM: String, createdAt: Date = .wholeSecondsNow) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.createdAt = createdAt
    }
    public var clientIdentity: ClientIdentity {
        ClientIdentity(certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM)
    }
}

/// On-disk layout of `secrets.json` (mode 0600 in a 0700 directory).
public struct SecretFile: Sendable, Codable, Equatable {
    public static let currentSchemaVersion = 1
    public var schemaVersion: Int
    public var identity: StoredIdentity?
    public var devices: [String: DeviceSecrets]
    public init(identity: StoredIdentity? = nil, devices: [String: DeviceSecrets] = [:]) {
        self.schemaVersion = Self.currentSchemaVersion
        self.identity = identity
        self.devices = devices
    }
}

extension DeviceFile {
    /// Finds a TV by nickname, id or host, in that order.
    /// A TV by nickname, id or address; an address that several paired TVs share finds
    /// none (`ambiguity(of:)` says which).
    public func find(_ name: String) -> DeviceRecord? {
        if let found = devices.first(where: { $0.nickname == name }) ?? devices.first(where: { $0.id == name }) { return found }
        let atHost = devices.filter { $0.host == name }
        return atHost.count == 1 ? atHost[0] : nil
    }

    /// The refusal for an address (`HOST`, or `HOST:PORT` with port 0) that several paired
    /// TVs share, naming them; nil when it is not ambiguous.
    public func ambiguity(of name: String) -> PhotonError? {
        guard let endpoint = try? Endpoint(parsing: name, defaultPort: 0) else { return nil }
        let matching = devices.filter { $0.host == endpoint.host && (endpoint.port == 0 || $0.port == endpoint.port) }
        guard matching.count > 1 else { return nil }
        let names = matching.map { "\($0.nickname) (\($0.brand), port \($0.port))" }.sorted()
        return PhotonError(
            .usage, "several paired TVs are at \(Redaction.sanitize(endpoint.host)): \(names.joined(separator: ", ")); nothing was sent",
            hint: "name one, or give its HOST:PORT")
    }
}

extension Date {
    /// Now, to the whole second: what an ISO 8601 file keeps, so a record compares
    /// equal to itself after a round trip through the store.
    public static var wholeSecondsNow: Date { Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)) }
}

extension DeviceFile {
    /// The hint for a TV name nobody paired: the closest nickname ("did you mean
    /// 'living-room'?") where one is close, and the paired TVs.
    public static func didYouMean(_ name: String, among nicknames: [String]) -> String {
        let sorted = nicknames.sorted()
        let list = "paired TVs: \(sorted.joined(separator: ", "))"
        guard let close = Suggestions.closest(to: name, in: sorted) else { return list }
        return "did you mean '\(close)'? \(list)"
    }
}
