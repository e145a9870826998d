import AndroidKeys
import PhotonCore
import PhotonCrypto

/// The Android TV Remote protocol v2 adapter: Polo pairing on the pairing port (remote
/// port + 1), the remote-control session on the remote port, both TLS with this
/// installation's client certificate, framed protobuf.
public struct AndroidTVAdapter: TVAdapter {
    public static let brandID = "androidtv"
    public static let maximumCapabilities = Capabilities(
        .keys, .longPress, .text, .appLaunch, .volumeState, .powerState, .voice, .currentApp, .wakeOnLAN, .inputs)

    /// Catalog apps as Android TV Remote v2 opens them: by a link the app registers (the
    /// only way the protocol launches), then the package name the TV reports in front.
    /// Kodi registers no link: its Play Store launch link is the one way, and Google
    /// made launching by package unreliable in 2026.
    public static let appCatalogIDs: [String: [String]] = [
        "netflix": ["https://www.netflix.com/title", "com.netflix.ninja"],
        "youtube": ["https://www.youtube.com", "com.google.android.youtube.tv"],
        "prime-video": ["https://app.primevideo.com", "com.amazon.amazonvideo.livingroom"],
        "disney-plus": ["https://www.disneyplus.com", "com.disney.disneyplus"],
        "max": ["https://play.max.com", "com.wbd.stream"],
        "hulu": ["https://www.hulu.com/welcome", "com.hulu.livingroomplus"],
        "plex": ["plex://", "com.plexapp.android"],
        "spotify": ["spotify://", "com.spotify.tv.android"],
        "apple-tv": ["https://tv.apple.com", "com.apple.atve.androidtv.appletv"],
        "twitch": ["twitch://home", "tv.twitch.android.app"],
        "kodi": ["market://launch?id=org.xbmc.kodi", "org.xbmc.kodi"],
    ]

    /// Features requested from the TV (IME can be left out: while it is on, some TVs hide
    /// their own on-screen keyboard).
    public var requestedFeatures: RemoteFeatures
    /// A session that hears nothing (not even a ping) for this long closes itself.
    public var idleLimit: Duration

    public init(enableIME: Bool = true, idleLimit: Duration = .seconds(16)) {
        requestedFeatures = enableIME ? .photon : RemoteFeatures.photon.subtracting(.ime)
        self.idleLimit = idleLimit
    }

    /// Made once: hosts read it on every lookup (`adapter.id`).
    public var descriptor: AdapterDescriptor { Self.descriptor }
    public var id: String { Self.brandID }

    public static let descriptor = AdapterDescriptor(
        id: Self.brandID, displayName: "Android TV / Google TV (Remote v2)",
        // v2, and the legacy v1 type so such TVs are listed as found but unsupported.
        discovery: .init(serviceTypes: ["_androidtvremote2._tcp", "_androidtvremote._tcp"]),
        ports: .init(main: "remote", 6466, others: ["pairing": 6467]),
        // The TV pins this installation's client certificate at pairing.
        pairing: .init(
            style: .codeOnTV,
            options: [AdapterOption("pairing-port", .port(named: "pairing"), help: "Android TV pairing port (default: remote port + 1)")],
            usesClientIdentity: true),
        capabilities: Self.maximumCapabilities, keyTable: AndroidKeyCodes.keyTable, voiceFormat: VoiceFormat(sampleRate: 8000),
        help: .init(
            pairing: "Android TV then shows a 6-character code: type it at the prompt, or pipe it in as one line on stdin.",
            probe: "Android TV: a TLS handshake on the pairing port, reading name and MAC from the TV's certificate (no pairing request is sent).",
            launch: "Android TV takes deep links (https://www.youtube.com, vnd.youtube://).",
            exampleApp: "https://www.youtube.com", networkStandby: "\"Wake on LAN\" / network standby"),
        appCatalogIDs: Self.appCatalogIDs)

    public func recognise(_ service: DiscoveredService) -> TVCandidate? {
        let mac = service.txt["bt"].flatMap(AndroidTVCertificateSubject.normalizedMAC)
        let host = service.addresses.first ?? service.host
        switch service.type {
        case "_androidtvremote2._tcp":
            return TVCandidate(
                brand: id, name: Redaction.sanitize(service.name, limit: 64), endpoint: Endpoint(host: host, port: service.port),
                id: mac.map { "androidtv-" + $0.replacingOccurrences(of: ":", with: "").lowercased() }, mac: mac,
                ports: ["remote": service.port, "pairing": service.port &+ 1])
        case "_androidtvremote._tcp":
            return TVCandidate(
                brand: id, name: Redaction.sanitize(service.name, limit: 64), endpoint: Endpoint(host: host, port: service.port),
                mac: mac, unsupportedReason: "legacy Android TV Remote v1: update the TV's Android TV Remote Service to pair")
        default:
            return nil
        }
    }

    /// Identifies a TV by a TLS handshake on the pairing port, reading name and MAC from
    /// its certificate subject, without sending a pairing request.
    public func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate? {
        let remote = ports["remote"] ?? 6466
        let endpoint = Endpoint(host: host, port: ports["pairing"] ?? remote &+ 1)
        let stream = try await context.connector.openByteStream(
            to: endpoint, security: .tls(TLSClientOptions(identity: context.clientIdentity, trust: .captureForFirstUse)),
            timeout: context.timeout)
        defer { Task { await stream.close() } }
        guard let certificate = stream.peerCertificate else { return nil }
        let identity = AndroidTVCertificateSubject.parse(commonName: certificate.commonName, subject: certificate.subject)
        guard certificate.commonName?.hasPrefix("atvremote") == true || identity.mac != nil else { return nil }
        return TVCandidate(
            brand: id, name: identity.name ?? host, endpoint: Endpoint(host: host, port: remote), model: identity.name,
            mac: identity.mac, ports: ["remote": remote, "pairing": endpoint.port])
    }

    public func pairing(with endpoint: Endpoint, options: AdapterOptionValues, context: AdapterContext) -> any PairingFlow {
        let pairingPort = options.ports["pairing"] ?? (endpoint.port &+ 1)
        return AndroidTVPairingFlow(
            pairingEndpoint: Endpoint(host: endpoint.host, port: pairingPort), remotePort: endpoint.port, context: context)
    }

    public func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws
        -> any RemoteSession
    {
        try await AndroidTVSession.open(
            device: device, secrets: secrets, context: context, wanted: requestedFeatures, idleLimit: idleLimit)
    }
}
