import PhotonCore

/// Roku's External Control Protocol: plain HTTP on port 8060, no pairing, no
/// authentication. Anyone on the LAN can send keys; what Photon adds is a stable identity
/// (the serial number, checked on every connection), errors that name the setting to
/// change when the TV refuses, and one kept-alive connection per TV.
public struct RokuAdapter: TVAdapter {
    public static let brandID = "roku"
    public static let maximumCapabilities = Capabilities(
        .keys, .longPress, .text, .appLaunch, .appList, .powerState, .currentApp, .search, .wakeOnLAN, .inputs, .inputList, .channelList)

    /// Catalog apps' Roku channel ids (a Roku lists its channels, so one missing here is
    /// still found by its name); Kodi has no Roku channel.
    public static let appCatalogIDs: [String: [String]] = [
        "netflix": ["12"], "youtube": ["837"], "prime-video": ["13"], "disney-plus": ["291097"], "max": ["61322"], "hulu": ["2285"],
        "plex": ["13535"], "spotify": ["22297"], "apple-tv": ["551012"],
    ]

    /// How often a session asks for power and the foreground app (ECP has no push).
    public var pollInterval: Duration

    public init(pollInterval: Duration = .seconds(3)) { self.pollInterval = pollInterval }

    /// Made once: hosts read it on every lookup (`adapter.id`).
    public var descriptor: AdapterDescriptor { Self.descriptor }
    public var id: String { Self.brandID }

    public static let descriptor = AdapterDescriptor(
        id: Self.brandID, displayName: "Roku (External Control Protocol)", discovery: .init(ssdpSearchTargets: ["roku:ecp"]),
        ports: .init(main: "ecp", Self.ecpPort), pairing: .init(style: .none),
        capabilities: Self.maximumCapabilities, keyTable: RokuKeys.keyTable,
        help: .init(
            pairing:
                "Roku needs no pairing (ECP has no authentication: anyone on the network can send keys); Photon stores the set by its serial number and refuses another device at that address.",
            probe: "Roku: GET /query/device-info on the ECP port (8060), which also tells whether \"Control by mobile apps\" allows commands.",
            launch: "Roku takes channel ids (12 is Netflix), with deep-link parameters: 12?contentId=80057281&mediaType=movie.",
            exampleApp: "12", networkStandby: "\"Fast TV start\""),
        appCatalogIDs: Self.appCatalogIDs)

    /// ECP's port.
    public static let ecpPort: UInt16 = 8060

    public func recognise(_ service: DiscoveredService) -> TVCandidate? {
        guard service.type == "ssdp:roku:ecp" else { return nil }
        // USN: uuid:roku:ecp:<serial> (sometimes followed by ::roku:ecp).
        let usn = service.txt["usn"] ?? ""
        let parts = usn.split(separator: ":")
        let serial = parts.count >= 4 && parts[0] == "uuid" && parts[1] == "roku" && parts[2] == "ecp" ? String(parts[3]) : nil
        let port = service.txt["location"].flatMap { URLParts.port(of: $0) } ?? Self.ecpPort
        return TVCandidate(
            brand: id, name: "Roku \(serial.map { Redaction.sanitize($0, limit: 32) } ?? service.host)",
            endpoint: Endpoint(host: service.host, port: port), id: serial.map { "roku-" + $0.lowercased() }, ports: ["ecp": port])
    }

    public func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate? {
        let endpoint = Endpoint(host: host, port: ports["ecp"] ?? Self.ecpPort)
        let client = HTTPKeepAliveClient(endpoint: endpoint, connector: context.connector, timeout: context.timeout)
        defer { Task { await client.drop() } }
        let info = try await Self.deviceInfo(client)
        var candidate = TVCandidate(
            brand: id, name: info.name, endpoint: endpoint, id: info.deviceID, model: info.model, mac: info.mac, ports: ["ecp": endpoint.port])
        if let remark = RokuAccess.remark(info.ecpSettingMode) { candidate.remarks.append(remark) }
        return candidate
    }

    public func pairing(with endpoint: Endpoint, options: AdapterOptionValues, context: AdapterContext) -> any PairingFlow {
        RokuPairing(endpoint: endpoint, context: context)
    }

    public func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws -> any RemoteSession {
        // ECP has no authentication: every new connection — the first, one reopened after
        // an idle spell, the poller's — must show the paired serial before it carries a
        // request, or a warm session could send keys to another Roku at the address.
        // The check's device-info is the session's first one: a cold command asks once.
        let checked = Locked<RokuDeviceInfo?>(nil)
        let client = HTTPKeepAliveClient(endpoint: device.endpoint, connector: context.connector, timeout: context.timeout) { get in
            let response = try await get("/query/device-info")
            try RokuSession.check(response, what: "device-info")
            let info = try RokuDeviceInfo.parse(response.body)
            try Self.requireSerial(of: info, is: device)
            checked.withLock { $0 = info }
        }
        let info: RokuDeviceInfo
        do {
            try await client.open()
            if let first = checked.withLock({ $0 }) {
                info = first
            } else {
                info = try await Self.deviceInfo(client)
            }
        } catch {
            await client.drop()
            throw error
        }
        return RokuSession(client: client, device: device, first: info, pollInterval: pollInterval, context: context)
    }

    /// The paired set, or `pinMismatch` (exit 5) with nothing sent.
    static func requireSerial(of info: RokuDeviceInfo, is device: DeviceRecord) throws {
        guard info.deviceID != device.id else { return }
        throw PhotonError(
            .pinMismatch,
            "another Roku answers at \(device.endpoint) (serial \(Redaction.sanitize(info.serial)), not the one paired as \(Redaction.sanitize(device.nickname))); nothing was sent",
            hint: "if the TV was replaced or the address moved, pair again: photon pair \(device.endpoint) --brand roku --replace")
    }

    /// `GET /query/device-info`, with the access refusals named.
    static func deviceInfo(_ client: HTTPKeepAliveClient) async throws -> RokuDeviceInfo {
        let response = try await client.request("GET", "/query/device-info")
        try RokuSession.check(response, what: "device-info")
        return try RokuDeviceInfo.parse(response.body)
    }
}

/// Pairing stores the set's identity: nothing is exchanged, but a set that refuses
/// commands is reported before anything is stored.
struct RokuPairing: PairingFlow {
    let endpoint: Endpoint
    let context: AdapterContext

    func run(responder: any PairingResponder) async throws -> PairedTV {
        let client = HTTPKeepAliveClient(endpoint: endpoint, connector: context.connector, timeout: context.timeout)
        defer { Task { await client.drop() } }
        let info = try await RokuAdapter.deviceInfo(client)
        if let mode = info.ecpSettingMode, mode == "limited" || mode == "disabled" {
            throw RokuAccess.refusal(status: mode == "disabled" ? 401 : 403, what: "remote control (it reports ecp-setting-mode \(mode))")
        }
        return PairedTV(
            device: DeviceRecord(
                id: info.deviceID, nickname: info.deviceID, brand: RokuAdapter.brandID, host: endpoint.host, port: endpoint.port,
                ports: ["ecp": endpoint.port], name: info.name, model: info.model, mac: info.mac,
                capabilities: RokuAdapter.maximumCapabilities.sortedNames),
            secrets: DeviceSecrets())
    }
}

/// The port of an `http://host:port/...` URL (SSDP LOCATION), without Foundation.
enum URLParts {
    static func port(of url: String) -> UInt16? {
        guard url.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst(7)
        let authority = rest.prefix { $0 != "/" }
        guard let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") else { return nil }
        return UInt16(authority[authority.index(after: colon)...]).flatMap { $0 > 0 ? $0 : nil }
    }
}
