import PhotonCore
import PhotonCrypto

/// Philips Android TVs over JointSpace (API 6): JSON over HTTPS (port 1926) with the TV's
/// self-signed certificate, pinned with consent like every TLS brand, and HTTP Digest as
/// the device id and auth key the TV grants for the PIN it shows. `system` also answers on
/// plain HTTP (port 1925) without authentication. Older (Saphi/Linux) Philips TVs, which
/// neither pair nor encrypt, are refused as unsupported.
public struct PhilipsAdapter: TVAdapter {
    public static let brandID = "philips"
    public static let maximumCapabilities = Capabilities(
        .keys, .appLaunch, .appList, .volumeState, .volumeSet, .powerState, .currentApp, .inputs, .inputList, .channelList,
        .ambilight)

    public static let deviceIDSecret = "device-id"
    public static let authKeySecret = "auth-key"

    /// Catalog apps by their Android package (the TV lists its apps; a package it lists is
    /// launched with the TV's own intent).
    public static let appCatalogIDs: [String: [String]] = [
        "netflix": ["com.netflix.ninja"], "youtube": ["com.google.android.youtube.tv"], "prime-video": ["com.amazon.amazonvideo.livingroom"],
        "disney-plus": ["com.disney.disneyplus"], "spotify": ["com.spotify.tv.android"], "plex": ["com.plexapp.android"],
    ]

    /// How long a `notifychange` long-poll may be held by the TV before it is asked again.
    public var notifyHold: Duration

    public init(notifyHold: Duration = .seconds(60)) { self.notifyHold = notifyHold }

    public var descriptor: AdapterDescriptor { Self.descriptor }
    public var id: String { Self.brandID }

    public static let descriptor = AdapterDescriptor(
        id: Self.brandID, displayName: "Philips Android TV (JointSpace 6)",
        discovery: .init(serviceTypes: ["_philipstv_s_rpc._tcp", "_philipstv_rpc._tcp"]),
        ports: .init(main: "https", Self.httpsPort, others: ["http": Self.httpPort]),
        pairing: .init(
            style: .codeOnTV,
            options: [AdapterOption("http-port", .port(named: "http"), help: "the TV's plain JointSpace port, for its system answer (default 1925)")],
            secretNames: [Self.deviceIDSecret, Self.authKeySecret]),
        capabilities: Self.maximumCapabilities, keyTable: PhilipsKeys.keyTable,
        help: .init(
            pairing:
                "Philips Android TV: the TV's self-signed certificate is shown (or checked against --trust) before anything is sent; then type the 4-digit PIN the TV shows. PORT is the HTTPS API's (1926); --http-port names the plain one (1925).",
            probe: "Philips: GET /6/system over HTTP on port 1925 (then HTTPS on 1926), which answers without authentication.",
            launch: "Philips takes an app's package or id as `photon apps TV` lists it, its label, or a catalog name.",
            exampleApp: "com.netflix.ninja", networkStandby: "\"Switch on with Wi-Fi (WoWLAN)\" or \"Switch on with Chromecast\" (Network settings)"),
        appCatalogIDs: Self.appCatalogIDs)

    public static let httpsPort: UInt16 = 1926
    public static let httpPort: UInt16 = 1925

    public func recognise(_ service: DiscoveredService) -> TVCandidate? {
        guard ["_philipstv_s_rpc._tcp", "_philipstv_rpc._tcp"].contains(service.type) else { return nil }
        let host = service.addresses.first ?? service.host
        return TVCandidate(
            brand: id, name: Redaction.sanitize(service.name, limit: 64), endpoint: Endpoint(host: host, port: Self.httpsPort),
            ports: ["https": Self.httpsPort, "http": Self.httpPort])
    }

    public func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate? {
        let https = ports["https"] ?? Self.httpsPort
        guard let (system, _) = try await Self.readSystem(host: host, httpsPort: https, httpPort: ports["http"] ?? Self.httpPort, context: context),
            system.apiMajor != nil
        else { return nil }
        var candidate = TVCandidate(
            brand: id, name: "Philips \(system.name ?? system.model ?? "TV")", endpoint: Endpoint(host: host, port: https), model: system.model,
            ports: ["https": https, "http": ports["http"] ?? Self.httpPort])
        if (try? system.checkPairable()) == nil { candidate.remarks.append("not an Android TV: pairing is unsupported") }
        return candidate
    }

    /// `system`, unauthenticated: on plain HTTP first, then on HTTPS (newer firmware serves
    /// it there only, and answers plain HTTP with an empty 200). The certificate is not
    /// trusted by this read; nothing secret is sent.
    static func readSystem(host: String, httpsPort: UInt16, httpPort: UInt16, context: AdapterContext) async throws -> (PhilipsSystem, secure: Bool)?
    {
        var lastError: Error?
        for (port, secure) in [(httpPort, false), (httpsPort, true)] {
            let security: TransportSecurity = secure ? .tls(TLSClientOptions(trust: .captureForFirstUse)) : .plain
            let api = PhilipsAPI(
                endpoint: Endpoint(host: host, port: port), connector: context.connector, security: security, credential: nil,
                timeout: context.timeout)
            defer { Task { await api.client.drop() } }
            do {
                let answer = try await api.read("system")
                if case .object(let pairs) = answer, pairs.isEmpty { continue }
                return (try PhilipsSystem.parse(answer), secure)
            } catch let error as PhotonError where error.code == .unsupported {
                // A 404 on the plain port is a TV that will not say; ha-philipsjs gives up there too.
                return nil
            } catch {
                lastError = error
            }
        }
        if let lastError { throw lastError }
        return nil
    }

    public func pairing(with endpoint: Endpoint, options: AdapterOptionValues, context: AdapterContext) -> any PairingFlow {
        PhilipsPairing(endpoint: endpoint, httpPort: options.ports["http"] ?? Self.httpPort, context: context)
    }

    public func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws -> any RemoteSession {
        guard let pin = secrets.pin, let user = secrets[Self.deviceIDSecret], let password = secrets[Self.authKeySecret] else {
            throw PhotonError(
                .notPaired, "the pairing of \(Redaction.sanitize(device.nickname)) has no certificate pin or auth key",
                hint: "pair again: photon pair \(device.endpoint) --brand philips --replace")
        }
        let credential = PhilipsAPI.Credential(user: user, password: password)
        let open = { (timeout: Duration) in
            PhilipsAPI(
                endpoint: device.endpoint, connector: context.connector, security: .tls(TLSClientOptions(trust: .pinned(pin))),
                credential: credential, timeout: timeout)
        }
        let api = open(context.timeout)
        do {
            let power = try PhilipsReadings.power(try await api.read("powerstate"))
            return PhilipsSession(
                api: api, watcher: open(notifyHold + .seconds(15)), device: device, power: power, notifyHold: notifyHold, context: context)
        } catch {
            await api.client.drop()
            throw error
        }
    }

    /// This installation's device id on the TV (32 hex digits, the Digest user name): stable
    /// per installation, derived from its identity, not secret.
    static func deviceID(for context: AdapterContext) -> String {
        Hex.encode(Array(Digest.sha256(Array(("philips-device-id:" + context.clientIdentity.certificatePEM).utf8)).prefix(16)))
    }
}
