import Foundation
import PhotonCore

/// The Samsung WebSocket-token adapter (Tizen, 2016+): device information over REST
/// (port 8001), the remote-control channel over WSS with a token (8002) or plain WS
/// (8001) for sets without token authentication.
public struct SamsungTVAdapter: TVAdapter {
    public static let brandID = "samsung"
    /// The name of the token in the TV's stored secrets.
    public static let tokenSecret = "token"
    public static let maximumCapabilities = Capabilities(
        .keys, .longPress, .text, .appLaunch, .appList, .powerState, .wakeOnLAN, .inputs, .artMode)

    /// Catalog apps' Tizen ids, newest first (several apps changed id around 2020). A set
    /// that lists its apps gets the one it has. Twitch and Kodi have no Tizen app.
    public static let appCatalogIDs: [String: [String]] = [
        "netflix": ["3201907018807", "11101200001"], "youtube": ["111299001912"], "prime-video": ["3201910019365", "3201512006785"],
        "disney-plus": ["3201901017640"], "max": ["3201601007230"], "hulu": ["3201601007625"], "plex": ["3201512006963"],
        "spotify": ["3201606009684"], "apple-tv": ["3201807016597"],
    ]

    /// Minimum time between two key commands to one TV: bursts sent faster are dropped
    /// by many sets (samsungtvws waits 1 s, Home Assistant 1.2 s). 0 disables pacing.
    public var keyPacing: Duration
    /// How long pairing waits for the user to accept on the TV.
    public var acceptTimeout: Duration
    /// After this long without a frame from the TV, a session pings it; no answer within
    /// the same time ends the session (a network that went away sends no FIN). 0 disables.
    public var keepAlive: Duration
    /// How often a session reads the power state again over REST (0: only at its start).
    public var powerPoll: Duration

    public init(
        keyPacing: Duration = .milliseconds(300), acceptTimeout: Duration = .seconds(35), keepAlive: Duration = .seconds(15),
        powerPoll: Duration = .seconds(5)
    ) {
        self.powerPoll = powerPoll
        self.keyPacing = keyPacing
        self.acceptTimeout = acceptTimeout
        self.keepAlive = keepAlive
    }

    /// Made once: hosts read it on every lookup (`adapter.id`).
    public var descriptor: AdapterDescriptor { Self.descriptor }
    public var id: String { Self.brandID }

    public static let descriptor = AdapterDescriptor(
        id: Self.brandID, displayName: "Samsung Tizen (WebSocket token)",
        // The SSDP target is what Samsung sets answer to (and `recognise` knows).
        discovery: .init(serviceTypes: ["_samsungmsf._tcp"], ssdpSearchTargets: ["urn:samsung.com:device:RemoteControlReceiver:1"]),
        ports: .init(main: "wss", 8002, others: ["rest": 8001]),
        pairing: .init(
            style: .acceptOnTV, options: [AdapterOption("rest-port", .port(named: "rest"), help: "Samsung REST port (default 8001)")],
            secretNames: [Self.tokenSecret]),
        capabilities: Self.maximumCapabilities, keyTable: SamsungKeys.keyTable,
        help: .init(
            pairing:
                "Samsung shows an \"Allow\" prompt: accept it on the TV within 30 s; the token it issues is kept in the secret store (never printed).",
            probe: "Samsung: GET /api/v2/ on the REST port.", launch: "Samsung takes app ids (111299001912 is YouTube).",
            exampleApp: "111299001912", networkStandby: "\"Power On with Mobile\""),
        appCatalogIDs: Self.appCatalogIDs)

    public func recognise(_ service: DiscoveredService) -> TVCandidate? {
        if service.type.hasPrefix("ssdp:urn:samsung.com:device:RemoteControlReceiver") {
            // The UUID in the USN identifies the set; REST and WSS are on their usual ports.
            let uuid = service.txt["usn"]?.split(separator: ":").dropFirst().first.map(String.init)
            return TVCandidate(
                brand: id, name: "Samsung TV at \(service.host)", endpoint: Endpoint(host: service.host, port: 8002),
                id: uuid.map { "uuid:" + Redaction.sanitize($0, limit: 80) }, ports: ["wss": 8002, "rest": 8001])
        }
        guard service.type == "_samsungmsf._tcp" else { return nil }
        let host = service.addresses.first ?? service.host
        // TXT `se` is the REST URI (http://<ip>:8001/api/v2/); the SRV port is the REST port.
        let rest = service.txt["se"].flatMap { URL(string: $0)?.port }.flatMap { UInt16(exactly: $0) }.flatMap { $0 > 0 ? $0 : nil } ?? service.port
        let wss = service.txt["wss"].flatMap(UInt16.init).flatMap { $0 > 0 ? $0 : nil } ?? 8002
        return TVCandidate(
            brand: id, name: Redaction.sanitize(service.txt["fn"] ?? service.name, limit: 64), endpoint: Endpoint(host: host, port: wss),
            id: service.txt["id"].map { Redaction.sanitize($0, limit: 80) }, model: service.txt["md"].map { Redaction.sanitize($0, limit: 64) },
            ports: ["wss": wss, "rest": rest])
    }

    public func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate? {
        let rest = ports["rest"] ?? 8001
        let wss = ports["wss"] ?? 8002
        let info = try await Self.deviceInfo(host: host, restPort: rest, context: context)
        return TVCandidate(
            brand: id, name: info.name, endpoint: Endpoint(host: host, port: info.tokenAuthSupport ? wss : rest), id: info.id,
            model: info.modelName, mac: info.wifiMac, ports: ["wss": wss, "rest": rest])
    }

    public func pairing(with endpoint: Endpoint, options: AdapterOptionValues, context: AdapterContext) -> any PairingFlow {
        SamsungPairingFlow(
            endpoint: endpoint, restPort: options.ports["rest"] ?? 8001, context: context,
            acceptTimeout: acceptTimeout)
    }

    public func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws
        -> any RemoteSession
    {
        try await SamsungSession.open(
            device: device, secrets: secrets, context: context, pacing: keyPacing, keepAlive: keepAlive, powerPoll: powerPoll)
    }

    /// `GET /api/v2/` on the REST port.
    public static func deviceInfo(host: String, restPort: UInt16, context: AdapterContext) async throws -> SamsungDeviceInfo {
        let response = try await rest("GET", "/api/v2/", host: host, restPort: restPort, context: context)
        guard response.status == 200 else {
            throw PhotonError(.protocolViolation, "the TV answered /api/v2/ with HTTP \(response.status)", hint: "is this a Samsung Tizen TV?")
        }
        return try SamsungDeviceInfo.parse(response.body)
    }

    static func rest(_ method: String, _ target: String, host: String, restPort: UInt16, context: AdapterContext) async throws
        -> HTTPClient.Response
    {
        let endpoint = Endpoint(host: host, port: restPort)
        let stream = try await context.connector.openByteStream(to: endpoint, security: .plain, timeout: context.timeout)
        defer { Task { await stream.close() } }
        context.log.debug("REST \(method) \(target) on \(endpoint)")
        return try await HTTPClient.request(method, target, host: endpoint.description, over: stream, timeout: context.timeout)
    }

    /// Whether a WebSocket port means TLS: 8001 and the REST port are plain, others TLS.
    static func usesTLS(port: UInt16, restPort: UInt16) -> Bool { port != restPort && port != 8001 }

    /// The refusal when a token would go over a plain connection.
    static func tokenInClear(_ endpoint: Endpoint) -> PhotonError {
        PhotonError(
            .authenticationRefused,
            "this TV uses a token, and \(endpoint) is a plain (unencrypted) port: the token would travel in clear text, so nothing was sent",
            hint: "pair again on the TV's TLS port: photon pair \(Endpoint(host: endpoint.host, port: 8002)) --brand samsung")
    }
}

/// Pairing: device information, consent to the TV's certificate, then the on-screen
/// "Allow" prompt; the token in `data.token` is what is stored.
struct SamsungPairingFlow: PairingFlow {
    let endpoint: Endpoint
    let restPort: UInt16
    let context: AdapterContext
    let acceptTimeout: Duration

    func run(responder: any PairingResponder) async throws -> PairedTV {
        let info = try await SamsungTVAdapter.deviceInfo(host: endpoint.host, restPort: restPort, context: context)
        let tls = SamsungTVAdapter.usesTLS(port: endpoint.port, restPort: restPort)
        if info.tokenAuthSupport && !tls {
            context.log.debug("this TV uses tokens: plain WebSocket on \(endpoint.port) will likely be refused")
        }
        let stream = try await context.connector.openByteStream(
            to: endpoint, security: tls ? .tls(TLSClientOptions(trust: .captureForFirstUse)) : .plain, timeout: context.timeout)
        var pin: CertificateFingerprint?
        if tls { pin = try await responder.requireTrust(in: stream) }
        _ = try await responder.answer(
            .confirmOnTV(message: "Accept \"\(context.clientName)\" on the TV's screen (it shows the prompt for 30 s)…"))
        let request = MessageStreamRequest(
            endpoint: endpoint, target: SamsungCommand.channelTarget(clientName: context.clientName, token: nil),
            security: .plain, maxMessageSize: SamsungEvent.maximumSize)
        let channel: any MessageStream
        do {
            channel = try await context.connector.upgradeToMessageStream(stream, request: request, timeout: context.timeout)
        } catch {
            await stream.close()
            throw error
        }
        defer { Task { await channel.close(code: 1000, reason: "") } }
        let token = try await SamsungSession.waitForConnect(channel, timeout: acceptTimeout, pairing: true, log: context.log)
        if !tls && token != nil {
            // Issued over a clear channel: storing it would send it in clear on every connection.
            throw SamsungTVAdapter.tokenInClear(endpoint)
        }
        if tls && token == nil {
            throw PhotonError(
                .pairingRefused, "the TV accepted but issued no token",
                hint:
                    "set the TV's Access Notification to \"First Time Only\" (Settings → General → External Device Manager → Device Connection Manager) and pair again"
            )
        }
        let idPart =
            info.wifiMac.map { $0.replacingOccurrences(of: ":", with: "").lowercased() }
            ?? info.id.map { String($0.unicodeScalars.filter { $0.isASCII && $0.properties.isASCIIHexDigit }.suffix(12)).lowercased() }
            ?? DeviceRecord.idPart(fromHost: endpoint.host)
        let device = DeviceRecord(
            id: "samsung-" + idPart, nickname: "samsung-" + idPart, brand: SamsungTVAdapter.brandID, host: endpoint.host,
            port: endpoint.port, ports: ["rest": restPort], name: info.name, model: info.modelName, mac: info.wifiMac,
            capabilities: (info.frameTV
                ? SamsungTVAdapter.maximumCapabilities : Capabilities(SamsungTVAdapter.maximumCapabilities.members.subtracting([.artMode])))
                .sortedNames)
        return PairedTV(device: device, secrets: DeviceSecrets(pin: pin, values: token.map { [SamsungTVAdapter.tokenSecret: $0] } ?? [:]))
    }
}
