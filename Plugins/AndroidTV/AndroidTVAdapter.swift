import PhotonCore
import PhotonCrypto

/// The Android TV Remote protocol v2 adapter: Polo pairing on the pairing port (remote
/// port + 1), the remote-control session on the remote port, both TLS with this
/// installation's client certificate, framed protobuf.
public struct AndroidTVAdapter: TVAdapter {
    public static let brandID = "androidtv"
    public static let maximumCapabilities = Capabilities(
        .keys, .longPress, .text, .appLaunch, .volumeState, .powerState, .voice, .currentApp, .wakeOnLAN)

    /// Features requested from the TV (IME can be left out: while it is on, some TVs hide
    /// their own on-screen keyboard).
    public var requestedFeatures: RemoteFeatures
    /// A session that hears nothing (not even a ping) for this long closes itself.
    public var idleLimit: Duration

    public init(enableIME: Bool = true, idleLimit: Duration = .seconds(16)) {
        requestedFeatures = enableIME ? .photon : RemoteFeatures.photon.subtracting(.ime)
        self.idleLimit = idleLimit
    }

    public var id: String { Self.brandID }
    public var displayName: String { "Android TV / Google TV (Remote v2)" }
    /// v2, and the legacy v1 type so such TVs are listed as found but unsupported.
    public var serviceTypes: [String] { ["_androidtvremote2._tcp", "_androidtvremote._tcp"] }
    public var defaultPorts: [String: UInt16] { ["remote": 6466, "pairing": 6467] }
    public var defaultPort: UInt16 { 6466 }
    public var capabilities: Capabilities { Self.maximumCapabilities }
    public var keyTable: [KeyMapping] { AndroidKeyCodes.keyTable }
    public var pairingStyle: PairingStyle { .codeOnTV }
    public var options: [AdapterOption] {
        [AdapterOption("pairing-port", .port(named: "pairing"), help: "Android TV pairing port (default: remote port + 1)")]
    }
    /// The TV pins this installation's client certificate at pairing.
    public var usesClientIdentity: Bool { true }
    public var voiceFormat: VoiceFormat? { VoiceFormat(sampleRate: 8000) }
    public var pairingHelp: String {
        "Android TV then shows a 6-character code: type it at the prompt, or pipe it in as one line on stdin."
    }
    public var probeHelp: String {
        "Android TV: a TLS handshake on the pairing port, reading name and MAC from the TV's certificate (no pairing request is sent)."
    }
    public var exampleApp: String { "https://www.youtube.com" }
    public var launchHelp: String { "Android TV takes deep links (https://www.youtube.com, vnd.youtube://)." }

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

    public func pairing(with endpoint: Endpoint, options: [String: String], context: AdapterContext) -> any PairingFlow {
        let pairingPort = options["pairing-port"].flatMap(UInt16.init) ?? (endpoint.port &+ 1)
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
