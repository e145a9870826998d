import PhotonCore

/// Sony Bravia's IP control: JSON-RPC over plain HTTP (port 80) for power, volume, inputs,
/// apps and settings, and IRCC-SOAP for remote keys. The TV knows Photon by a pre-shared
/// key set on the TV, or by a cookie it gives after the user types the PIN it shows; that
/// proves who asks, but nothing is encrypted, so pairing asks for consent, as for Fire TV.
public struct SonyAdapter: TVAdapter {
    public static let brandID = "sony"
    public static let maximumCapabilities = Capabilities(
        .keys, .text, .appLaunch, .appList, .volumeState, .volumeSet, .powerState, .wakeOnLAN, .inputs, .inputList, .soundOutput,
        .channelList, .pictureMode)

    /// The names of the secrets a Sony pairing keeps.
    public static let pskSecret = "psk"
    public static let cookieSecret = "auth-cookie"
    public static let pinSecret = "pin"
    public static let clientIDSecret = "client-id"

    /// Catalog apps' Sony uris (Android TV activities behind `com.sony.dtv.`); an app the TV
    /// lists is also found by its title.
    public static let appCatalogIDs: [String: [String]] = [
        "netflix": ["com.sony.dtv.com.netflix.ninja.com.netflix.ninja.MainActivity"],
        "youtube": ["com.sony.dtv.com.google.android.youtube.tv.com.google.android.apps.youtube.tv.activity.ShellActivity"],
        "prime-video": ["com.sony.dtv.com.amazon.amazonvideo.livingroom.com.amazon.ignition.IgnitionActivity"],
        "disney-plus": ["com.sony.dtv.com.disney.disneyplus.com.bamtechmedia.dominguez.main.MainActivity"],
        "spotify": ["com.sony.dtv.com.spotify.tv.android.com.spotify.tv.android.SpotifyTVActivity"],
        "plex": ["com.sony.dtv.com.plexapp.android.com.plexapp.plex.activities.SplashActivity"],
    ]

    /// How often a session asks for power, volume and the sound output (the API pushes nothing).
    public var pollInterval: Duration

    public init(pollInterval: Duration = .seconds(3)) { self.pollInterval = pollInterval }

    public var descriptor: AdapterDescriptor { Self.descriptor }
    public var id: String { Self.brandID }

    public static let descriptor = AdapterDescriptor(
        id: Self.brandID, displayName: "Sony Bravia (IP control: REST and IRCC)",
        discovery: .init(ssdpSearchTargets: ["urn:schemas-sony-com:service:ScalarWebAPI:1"]),
        ports: .init(main: "http", Self.httpPort),
        pairing: .init(
            style: .codeOnTV,
            options: [
                AdapterOption(
                    "psk", .text,
                    help: "the TV's pre-shared key (Network → IP control → Pre-Shared Key) instead of a PIN; stored as a secret")
            ],
            secretNames: [Self.pskSecret, Self.cookieSecret, Self.pinSecret, Self.clientIDSecret]),
        capabilities: Self.maximumCapabilities, keyTable: SonyKeys.keyTable,
        help: .init(
            pairing:
                "Sony Bravia: IP control is plain HTTP (nothing is encrypted), so pairing asks for consent (y, or --allow-unencrypted). Turn on Network → Remote start, and IP control (Authentication: Normal and Pre-Shared Key); then either type the 4-digit PIN the TV shows, or give the TV's pre-shared key with --psk.",
            probe: "Sony: system/getInterfaceInformation over HTTP on port 80, which answers without authentication.",
            launch: "Sony takes app uris (photon apps TV lists them) or an app's title as the TV lists it.",
            exampleApp: "com.sony.dtv.com.netflix.ninja.com.netflix.ninja.MainActivity",
            networkStandby: "\"Remote start\" (Network)"),
        appCatalogIDs: Self.appCatalogIDs)

    /// IP control's port.
    public static let httpPort: UInt16 = 80

    public func recognise(_ service: DiscoveredService) -> TVCandidate? {
        guard service.type == "ssdp:urn:schemas-sony-com:service:ScalarWebAPI:1" else { return nil }
        // LOCATION is the UPnP description's URL (port 52323); IP control is on port 80.
        let usn = service.txt["usn"] ?? ""
        let uuid = usn.hasPrefix("uuid:") ? usn.dropFirst(5).prefix { $0 != ":" } : ""
        var candidate = TVCandidate(
            brand: id, name: "Sony Bravia \(Redaction.sanitize(service.host))", endpoint: Endpoint(host: service.host, port: Self.httpPort),
            ports: ["http": Self.httpPort])
        if !uuid.isEmpty { candidate.remarks.append("UPnP uuid \(Redaction.sanitize(String(uuid), limit: 40))") }
        return candidate
    }

    public func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate? {
        let endpoint = Endpoint(host: host, port: ports["http"] ?? Self.httpPort)
        let api = SonyAPI(endpoint: endpoint, connector: context.connector, timeout: context.timeout, credential: .none)
        defer { Task { await api.client.drop() } }
        let result: [JSONValue]
        do {
            result = try await api.result("system", "getInterfaceInformation")
        } catch let error as PhotonError where [.protocolViolation, .unsupported, .authenticationRefused].contains(error.code) {
            return nil
        }
        guard let info = result.first, info["productCategory"]?.stringValue == "tv" else { return nil }
        let model = info["modelName"]?.stringValue.map { Redaction.sanitize($0, limit: 64) }
        var candidate = TVCandidate(brand: id, name: "Sony \(model ?? "Bravia")", endpoint: endpoint, model: model, ports: ["http": endpoint.port])
        candidate.remarks.append("pair with the PIN the TV shows, or --psk KEY (IP control's pre-shared key)")
        return candidate
    }

    public func pairing(with endpoint: Endpoint, options: AdapterOptionValues, context: AdapterContext) -> any PairingFlow {
        SonyPairing(endpoint: endpoint, psk: options.texts["psk"], context: context)
    }

    public func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws -> any RemoteSession {
        let credential = try Self.credential(from: secrets, device: device)
        let api = SonyAPI(
            endpoint: device.endpoint, connector: context.connector, timeout: context.timeout, credential: credential,
            cookieRenewed: { cookie in
                context.log.debug("the Sony TV's cookie expired; registered again with the stored PIN")
                var updated = secrets
                updated[Self.cookieSecret] = cookie
                try? await context.secretsChanged(secrets, updated)
            })
        do {
            // Who answers: the paired TV, or the session ends here with nothing sent.
            let info = try SonySystemInformation.parse(try await api.result("system", "getSystemInformation"))
            guard info.deviceID == device.id else {
                throw PhotonError(
                    .pinMismatch,
                    "another Sony TV answers at \(device.endpoint) (serial \(Redaction.sanitize(info.serial)), not the one paired as \(Redaction.sanitize(device.nickname))); nothing was sent",
                    hint: "if the TV was replaced or the address moved, pair again: photon pair \(device.endpoint) --brand sony --replace")
            }
            let keys = try SonyKeys.parseTable(try await api.result("system", "getRemoteControllerInfo"))
            // No command needs the power state (power keys are setPowerStatus calls, not a
            // toggle): a session opened for one leaves it to the first poll, after the
            // command, rather than put a round trip in front of it.
            let power =
                context.expectedCommand == nil ? try SonyReadings.power(try await api.result("system", "getPowerStatus")) : nil
            return SonySession(api: api, device: device, info: info, keys: keys, power: power, pollInterval: pollInterval, context: context)
        } catch {
            await api.client.drop()
            throw error
        }
    }

    /// The credential a stored pairing holds: its pre-shared key, or its cookie (with what
    /// renews it).
    static func credential(from secrets: DeviceSecrets, device: DeviceRecord) throws -> SonyAPI.Credential {
        if let psk = secrets[pskSecret] { return .psk(psk) }
        guard let cookie = secrets[cookieSecret] else {
            throw PhotonError(
                .notPaired, "the pairing of \(Redaction.sanitize(device.nickname)) holds neither a pre-shared key nor a cookie",
                hint: "pair again: photon pair \(device.endpoint) --brand sony --replace")
        }
        let registration = secrets[pinSecret].flatMap { pin in
            secrets[clientIDSecret].map { SonyRegistration(clientID: $0, nickname: "Photon", pin: pin) }
        }
        return .cookie(cookie, registration: registration)
    }

    /// This installation's client id for the TV's list of registered devices: stable per
    /// installation (from its identity), not secret.
    static func clientID(for context: AdapterContext) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in context.clientIdentity.certificatePEM.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "Photon:" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Pairing: consent to plain HTTP, then the pre-shared key checked, or PIN registration
/// (`0000` makes the TV show a PIN; the PIN typed gives the cookie); then the TV's identity.
struct SonyPairing: PairingFlow {
    let endpoint: Endpoint
    let psk: String?
    let context: AdapterContext

    func run(responder: any PairingResponder) async throws -> PairedTV {
        let reason =
            "Sony's IP control is plain HTTP: the PIN or pre-shared key, the TV's cookie and every command cross your network unencrypted, and anyone on it can read them."
        guard case .trust(true) = try await responder.answer(.allowUnencrypted(reason: reason)) else {
            throw PhotonError(
                .untrustedCertificate, "not pairing over an unencrypted connection without consent; nothing was sent",
                hint: "run again and answer y, or pass --allow-unencrypted (anyone on the network can then read what is sent)")
        }
        var secrets = DeviceSecrets()
        let api: SonyAPI
        if let psk {
            guard !psk.isEmpty, psk.utf8.count <= 64, psk.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                throw PhotonError(.usage, "a pre-shared key is 1 to 64 printable ASCII characters, as set on the TV")
            }
            api = SonyAPI(endpoint: endpoint, connector: context.connector, timeout: context.timeout, credential: .psk(psk))
            secrets[SonyAdapter.pskSecret] = psk
        } else {
            let client = HTTPKeepAliveClient(endpoint: endpoint, connector: context.connector, timeout: context.timeout)
            defer { Task { await client.drop() } }
            var registration = SonyRegistration(clientID: SonyAdapter.clientID(for: context), nickname: context.clientName, pin: "0000")
            var outcome = try await SonyRegistration.register(registration, pin: "0000", over: client)
            if outcome == .refused {
                guard case .code(let typed) = try await responder.answer(.enterCode(length: 4, alphabet: .decimal)) else {
                    throw PhotonError(.pairingRefused, "no PIN was given; nothing was stored", hint: "type the 4 digits the TV shows")
                }
                registration.pin = try CodeAlphabet.decimal.validate(typed, length: 4)
                outcome = try await SonyRegistration.register(registration, pin: registration.pin, over: client)
            }
            guard case .registered(let cookie) = outcome else {
                throw PhotonError(
                    .pairingRefused, "the Sony TV refused the PIN", hint: "pair again and type the 4 digits the TV shows now (a new PIN each time)")
            }
            secrets[SonyAdapter.cookieSecret] = cookie
            secrets[SonyAdapter.pinSecret] = registration.pin
            secrets[SonyAdapter.clientIDSecret] = registration.clientID
            api = SonyAPI(
                endpoint: endpoint, connector: context.connector, timeout: context.timeout,
                credential: .cookie(cookie, registration: registration))
        }
        defer { Task { await api.client.drop() } }
        let info: SonySystemInformation
        do {
            info = try SonySystemInformation.parse(try await api.result("system", "getSystemInformation"))
        } catch let error as PhotonError where error.code == .authenticationRefused && psk != nil {
            throw PhotonError(
                .pairingRefused, "the Sony TV refused the pre-shared key",
                hint: "give the key set on the TV under Network → IP control → Pre-Shared Key (and Authentication: Normal and Pre-Shared Key)")
        }
        return PairedTV(
            device: DeviceRecord(
                id: info.deviceID, nickname: info.deviceID, brand: SonyAdapter.brandID, host: endpoint.host, port: endpoint.port,
                ports: ["http": endpoint.port], name: info.name, model: info.model, mac: info.mac,
                capabilities: SonyAdapter.maximumCapabilities.sortedNames),
            secrets: secrets)
    }
}
