import PhotonCore

/// The LG webOS adapter (SSAP over WebSocket): WSS on 3001 pinned on first use, plain WS
/// on 3000 only by consent for old sets without TLS, PROMPT pairing with an unsigned
/// manifest (which 2026 firmware that blacklists the copied signature still accepts),
/// keys over the pointer input socket, state from subscriptions.
public struct LGWebOSAdapter: TVAdapter {
    public static let brandID = "lg"
    /// The name of the client key in the TV's stored secrets.
    public static let clientKeySecret = "client-key"
    public static let searchTarget = "urn:lge-com:service:webos-second-screen:1"
    public static let maximumCapabilities = Capabilities(
        .keys, .text, .appLaunch, .appList, .volumeState, .volumeSet, .powerState, .currentApp, .wakeOnLAN, .inputs, .inputList, .notifications,
        .screenPower, .channelList, .soundOutput)

    /// Catalog apps' webOS ids. An LG TV lists its apps, so an app missing here (Max,
    /// Twitch) is still found by its name in that list; Kodi has no webOS app.
    public static let appCatalogIDs: [String: [String]] = [
        "netflix": ["netflix"], "youtube": ["youtube.leanback.v4"], "prime-video": ["amazon"], "disney-plus": ["com.disney.disneyplus-prod"],
        "hulu": ["hulu"], "plex": ["cdp-30"], "spotify": ["spotify-beehive"], "apple-tv": ["com.apple.appletv"],
    ]

    /// How long pairing waits for the user to accept on the TV (real sets give up after
    /// about two minutes).
    public var acceptTimeout: Duration
    /// After this long without a frame from the TV, a session pings it; no answer within
    /// the same time ends the session. 0 disables.
    public var keepAlive: Duration

    public init(acceptTimeout: Duration = .seconds(60), keepAlive: Duration = .seconds(10)) {
        self.acceptTimeout = acceptTimeout
        self.keepAlive = keepAlive
    }

    /// Made once: hosts read it on every lookup (`adapter.id`).
    public var descriptor: AdapterDescriptor { Self.descriptor }
    public var id: String { Self.brandID }

    public static let descriptor = AdapterDescriptor(
        id: Self.brandID, displayName: "LG webOS (SSAP)",
        // LG TVs announce nothing useful over mDNS: SSDP and typed addresses only.
        discovery: .init(ssdpSearchTargets: [Self.searchTarget]),
        ports: .init(main: "wss", 3001, others: ["ws": 3000]),
        pairing: .init(
            style: .acceptOnTV,
            options: [AdapterOption("ws-port", .port(named: "ws"), help: "LG plain WebSocket port, for old TVs without TLS (default 3000)")],
            secretNames: [Self.clientKeySecret]),
        capabilities: Self.maximumCapabilities, keyTable: LGKeys.keyTable,
        help: .init(
            pairing:
                "LG shows a prompt: accept it on the TV within 60 s; its client key is kept in the secret store (never printed). Every LG TV is reported to carry the same certificate, so the pin proves that the same certificate answers, not that it is your TV. TVs without TLS (before 2018) pair over plain WebSocket only with --allow-unencrypted.",
            probe: "LG: the SSAP hello on port 3001 (TLS), or 3000 for old TVs.",
            launch: "LG takes app ids (youtube.leanback.v4, netflix) or an https:// link, opened in the browser.",
            exampleApp: "youtube.leanback.v4", networkStandby: "\"TV On with Mobile\" (2025+: Support → IP control settings → Wake on LAN)"),
        appCatalogIDs: Self.appCatalogIDs)

    public func recognise(_ service: DiscoveredService) -> TVCandidate? {
        guard service.type == "ssdp:" + Self.searchTarget else { return nil }
        // USN: uuid:<device UUID>::urn:lge-com:service:webos-second-screen:1
        let uuid = (service.txt["usn"] ?? "").split(separator: ":").dropFirst().first.map(String.init)
        return TVCandidate(
            brand: id, name: "LG TV at \(service.host)", endpoint: Endpoint(host: service.host, port: descriptor.ports.main),
            id: uuid.flatMap(Self.deviceID(uuid:)), ports: descriptor.ports.all)
    }

    public func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate? {
        let wss = Endpoint(host: host, port: ports["wss"] ?? 3001)
        let ws = Endpoint(host: host, port: ports["ws"] ?? 3000)
        var endpoint = wss
        var greeting: LGHandshake.Greeting
        var plainOnly = false
        do {
            // Only the hello and system information go out: nothing secret, so the
            // certificate is not pinned here.
            greeting = try await Self.greet(wss, security: .tls(TLSClientOptions(trust: .captureForFirstUse)), context: context)
        } catch let error as PhotonError where error.code == .unreachable || error.code == .tls {
            guard let plain = try? await Self.greet(ws, security: .plain, context: context) else { throw error }
            greeting = plain
            endpoint = ws
            plainOnly = true
        }
        var candidate = TVCandidate(
            brand: id, name: "LG \(greeting.modelName ?? "webOS TV")", endpoint: endpoint,
            id: greeting.hello.deviceUUID.flatMap(Self.deviceID(uuid:)), model: Self.model(greeting), ports: ["wss": wss.port, "ws": ws.port])
        if plainOnly {
            candidate.remarks.append("it offers no TLS: pairing sends its key in clear and needs --allow-unencrypted")
        }
        if !greeting.hello.pairingTypes.isEmpty, !greeting.hello.pairingTypes.contains("PROMPT") {
            candidate.unsupportedReason = "it pairs only by \(greeting.hello.pairingTypes.joined(separator: ", ")); Photon pairs by PROMPT"
        }
        return candidate
    }

    public func pairing(with endpoint: Endpoint, options: AdapterOptionValues, context: AdapterContext) -> any PairingFlow {
        LGPairingFlow(endpoint: endpoint, plainPort: options.ports["ws"] ?? 3000, context: context, acceptTimeout: acceptTimeout)
    }

    public func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws -> any RemoteSession {
        try await LGSession.open(device: device, secrets: secrets, context: context, keepAlive: keepAlive)
    }

    // MARK: shared by probe, pairing and sessions

    /// The main socket's WebSocket request: path `/`, no `Origin` (some firmware closes
    /// with "invalid origin" when one is sent).
    static func mainSocket(_ endpoint: Endpoint, security: TransportSecurity) -> MessageStreamRequest {
        MessageStreamRequest(endpoint: endpoint, target: "/", security: security, maxMessageSize: SSAPMessage.maximumSize)
    }

    static func greet(_ endpoint: Endpoint, security: TransportSecurity, context: AdapterContext) async throws -> LGHandshake.Greeting {
        let stream = try await context.connector.openMessageStream(mainSocket(endpoint, security: security), timeout: context.timeout)
        defer { Task { await stream.close(code: 1000, reason: "") } }
        return try await LGHandshake.greet(stream, timeout: context.timeout, log: context.log)
    }

    /// The paired TV, by the UUID its hello reports, or `pinMismatch` (exit 5) before the
    /// client key leaves. When the paired id came from the TV's UUID, the hello must carry
    /// that UUID: a hello without one, or with one that gives no id, fails closed (a TV
    /// with the shared certificate could otherwise leave it out). A TV paired without a
    /// UUID (by its MAC or address) has nothing to compare.
    static func requireIdentity(of hello: LGHello, is device: DeviceRecord) throws {
        let reported = hello.deviceUUID.flatMap(deviceID(uuid:))
        if reported == device.id { return }
        if reported == nil, !pairedByUUID(device) { return }
        throw PhotonError(
            .pinMismatch,
            "another LG TV answers at \(device.endpoint) (it reports \(reported ?? "no device id"), not \(Redaction.sanitize(device.id)) paired as \(Redaction.sanitize(device.nickname))); its client key was not sent",
            hint:
                "LG TVs can share one certificate, so Photon checks the TV's id too; if the TV was replaced, pair again: photon pair \(device.host) --brand lg --replace"
        )
    }

    /// Whether the paired id is the TV's UUID's (hex digits that are none of its MACs), not
    /// its MAC's or its address's.
    static func pairedByUUID(_ device: DeviceRecord) -> Bool {
        guard device.id.hasPrefix("lg-") else { return false }
        let part = device.id.dropFirst(3)
        guard part.count >= 6, part.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit }) else { return false }
        let macs = ([device.mac] + (device.otherMACs ?? []).map { Optional($0) }).compactMap { $0 }
            .map { $0.replacingOccurrences(of: ":", with: "").lowercased() }
        return !macs.contains(String(part))
    }

    /// `lg-` and the last 12 letters and digits of the TV's UUID: what hello and SSDP
    /// both report, stable across addresses.

    static func deviceID(uuid: String) -> String? {
        let compact = String(uuid.lowercased().unicodeScalars.filter { $0.isASCII && $0.properties.isASCIIHexDigit }.suffix(12).map(Character.init))
        return compact.count >= 6 ? "lg-" + compact : nil
    }

    static func model(_ greeting: LGHandshake.Greeting) -> String? {
        let release = greeting.hello.osRelease.map { "webOS \($0)" }
        switch (greeting.modelName, release) {
        case (let model?, let release?): return "\(model) (\(release))"
        case (let model?, nil): return model
        case (nil, let release?): return release
        default: return nil
        }
    }
}
