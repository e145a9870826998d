import AndroidKeys
import PhotonCore
import PhotonCrypto

/// Amazon Fire TV sticks and cubes, and any Android device with network debugging on,
/// over classic ADB on TCP (port 5555). They do not run Google's Android TV Remote
/// service; ADB is how Home Assistant and most scripts drive them. Classic ADB is not
/// encrypted: pairing asks for explicit consent, and the docs say what that exposes.
/// Authentication is this installation's own RSA-2048 key, which the user allows on the
/// device once; the device's serial number is checked on every connection.
public struct FireTVAdapter: TVAdapter {
    public static let brandID = "firetv"
    public static let maximumCapabilities = Capabilities(.keys, .longPress, .text, .appLaunch, .appList, .powerState, .currentApp, .wakeOnLAN)

    /// Catalog apps' Android packages on Fire OS (Amazon's own builds first where they
    /// differ); the device's package list decides which one is launched.
    public static let appCatalogIDs: [String: [String]] = [
        "netflix": ["com.netflix.ninja"], "youtube": ["com.amazon.firetv.youtube", "com.google.android.youtube.tv"],
        "prime-video": ["com.amazon.firebat", "com.amazon.avod"], "disney-plus": ["com.disney.disneyplus"],
        "max": ["com.wbd.stream", "com.hbo.hbonow"], "hulu": ["com.hulu.plus"], "plex": ["com.plexapp.android"],
        "spotify": ["com.spotify.tv.android"], "apple-tv": ["com.apple.atve.amazon.appletv"], "twitch": ["tv.twitch.android.viewer"],
        "kodi": ["org.xbmc.kodi"],
    ]

    /// ADB's TCP port.
    public static let adbPort: UInt16 = 5555

    /// How long pairing waits for "Allow debugging?" to be accepted on the TV.
    public var acceptTimeout: Duration
    /// How often a session reads power and the foreground app (ADB pushes nothing).
    public var pollInterval: Duration

    public init(acceptTimeout: Duration = .seconds(60), pollInterval: Duration = .seconds(10)) {
        self.acceptTimeout = acceptTimeout
        self.pollInterval = pollInterval
    }

    public var descriptor: AdapterDescriptor { Self.descriptor }
    public var id: String { Self.brandID }

    public static let descriptor = AdapterDescriptor(
        id: Self.brandID, displayName: "Fire TV and Android devices (ADB)",
        discovery: .init(serviceTypes: ["_adb._tcp", "_adb-tls-connect._tcp"]),
        ports: .init(main: "adb", Self.adbPort), pairing: .init(style: .acceptOnTV, secretNames: [Self.adbKeySecret]),
        capabilities: Self.maximumCapabilities, keyTable: AndroidKeyCodes.keyTable,
        help: .init(
            pairing:
                "Fire TV (ADB) is not encrypted: anyone on the network can read what is sent, so pairing asks for consent (y, or --allow-unencrypted). The TV then asks \"Allow USB debugging?\": choose Allow within 60 s (tick \"Always allow from this computer\").",
            probe: "Fire TV: an ADB CNXN on port 5555, answered with the device banner or a request to authenticate.",
            launch: "Fire TV takes Android package names (com.netflix.ninja) or links (https://…, opened with the VIEW intent).",
            exampleApp: "com.netflix.ninja"),
        appCatalogIDs: Self.appCatalogIDs)

    public func recognise(_ service: DiscoveredService) -> TVCandidate? {
        let host = service.addresses.first ?? service.host
        switch service.type {
        case "_adb._tcp":
            return TVCandidate(
                brand: id, name: Redaction.sanitize(service.name, limit: 64), endpoint: Endpoint(host: host, port: service.port),
                ports: ["adb": service.port])
        case "_adb-tls-connect._tcp":
            return TVCandidate(
                brand: id, name: Redaction.sanitize(service.name, limit: 64), endpoint: Endpoint(host: host, port: service.port),
                unsupportedReason:
                    "Android 11+ wireless debugging (TLS after a pairing code) is not supported; turn on ADB debugging over TCP (port 5555)")
        default:
            return nil
        }
    }

    public func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate? {
        let endpoint = Endpoint(host: host, port: ports["adb"] ?? Self.adbPort)
        let stream = try await context.connector.openByteStream(to: endpoint, security: .plain, timeout: context.timeout)
        defer { Task { await stream.close() } }
        try await stream.write(
            ADBMessage(.connect, ADBMessage.versionSkipChecksum, UInt32(ADBMessage.maximumPayload), Array("host::\0".utf8)).encoded(),
            timeout: context.timeout)
        var decoder = ADBMessageDecoder()
        let end = ContinuousClock.now + context.timeout
        while ContinuousClock.now < end {
            let bytes = try await stream.read(maxLength: 4096, timeout: end - ContinuousClock.now)
            guard !bytes.isEmpty else { return nil }
            decoder.append(bytes)
            let message: ADBMessage?
            do { message = try decoder.next() } catch { return nil }
            guard let message else { continue }
            switch message.command {
            case .connect:
                let model = Self.bannerProperty("ro.product.model", in: message.text)
                return TVCandidate(
                    brand: id, name: model.map { "Android device \($0)" } ?? "Android device (ADB)", endpoint: endpoint, model: model,
                    ports: ["adb": endpoint.port])
            case .auth:
                var candidate = TVCandidate(brand: id, name: "Android device (ADB)", endpoint: endpoint, ports: ["adb": endpoint.port])
                candidate.remarks.append("it asks for authentication: pairing shows \"Allow USB debugging?\" on the TV")
                return candidate
            case .startTLS:
                return TVCandidate(
                    brand: id, name: "Android device (ADB over TLS)", endpoint: endpoint, ports: ["adb": endpoint.port],
                    unsupportedReason: "it asks for TLS (Android 11+ wireless debugging), which Photon does not support")
            default:
                return nil
            }
        }
        return nil
    }

    public func pairing(with endpoint: Endpoint, options: AdapterOptionValues, context: AdapterContext) -> any PairingFlow {
        FireTVPairing(endpoint: endpoint, context: context, acceptTimeout: acceptTimeout)
    }

    public func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws -> any RemoteSession {
        let connection: ADBConnection
        if let pem = secrets.values[Self.adbKeySecret] {
            // Read when the device asks for a signature, so reading it overlaps the connect.
            (connection, _) = try await Self.connect(device.endpoint, key: { try await RSAKey.loading(pem: pem) }, context: context)
        } else {
            connection = try await Self.migrate(device, secrets: secrets, context: context)
        }
        do {
            let identity = try await Self.identity(of: connection, context: context)
            guard "firetv-" + identity.serial.lowercased() == device.id else {
                throw PhotonError(
                    .pinMismatch,
                    "another device answers at \(device.endpoint) (serial \(Redaction.sanitize(identity.serial)), not the one paired as \(Redaction.sanitize(device.nickname))); nothing was sent",
                    hint: "if the device was replaced or the address moved, pair again: photon pair \(device.endpoint) --brand firetv --replace")
            }
            return FireTVSession(
                connection: connection, model: identity.model, vendor: identity.manufacturer, context: context, pollInterval: pollInterval)
        } catch {
            await connection.close()
            throw error
        }
    }

    /// The secret that holds this pairing's ADB key (PEM). ADB signs whatever token the
    /// device sends, so the key is ADB's alone, never this installation's TLS identity
    /// (which other brands trust as Photon's client certificate): a device at a Fire TV's
    /// address could otherwise have a TLS 1.2 handshake signed (round 4, M2).
    public static let adbKeySecret = "adb_key"

    /// A pairing from before ADB had a key of its own: a new key is made and stored, and
    /// offered to the device, which asks "Allow USB debugging?" once more (consent to ADB
    /// was given at pairing). The old authorisation, for the TLS identity, is not used again.
    static func migrate(_ device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws -> ADBConnection {
        let key = try RSAKey.generate()
        var updated = secrets
        updated.values[adbKeySecret] = try key.privateKeyPEM()
        try await context.secretsChanged(secrets, updated)
        context.log.debug("firetv: \(device.nickname) now gets an ADB key of its own; the device asks \"Allow USB debugging?\" once")
        do {
            return try await connect(device.endpoint, key: { key }, context: context, offerKey: { _ in true }, acceptTimeout: .seconds(60)).0
        } catch let error as PhotonError where error.code == .timeout || error.code == .authenticationRefused || error.code == .pairingRefused {
            throw PhotonError(
                error.code,
                "\(device.nickname) did not allow Photon's new ADB key: Photon now uses a key of its own for ADB, so the device asks \"Allow USB debugging?\" once more",
                hint: "choose Allow on the TV (tick \"Always allow from this computer\") and run the command again")
        }
    }

    /// Connects and authenticates with the key `key` gives (asked for once the device wants
    /// a signature); with `offerKey`, a device that does not know the key is offered it.
    static func connect(
        _ endpoint: Endpoint, key: @escaping @Sendable () async throws -> RSAKey, context: AdapterContext,
        offerKey: (@Sendable (String) async throws -> Bool)? = nil,
        acceptTimeout: Duration = .seconds(60)
    ) async throws -> (ADBConnection, ADBConnection.Authentication) {
        let stream = try await context.connector.openByteStream(to: endpoint, security: .plain, timeout: context.timeout)
        do {
            return try await ADBConnection.open(
                stream, key: key, comment: "photon@" + Redaction.sanitize(context.clientName, limit: 40).replacingOccurrences(of: " ", with: "-"),
                timeout: context.timeout, offerKey: offerKey ?? { _ in false }, acceptTimeout: acceptTimeout)
        } catch {
            await stream.close()
            throw error
        }
    }

    /// The serial number and model (`getprop`); a device without a serial cannot be told
    /// from another and is refused.
    static func identity(of connection: ADBConnection, context: AdapterContext) async throws -> (
        serial: String, model: String?, manufacturer: String?
    ) {
        let lines = try await connection.shell(ADBShellCommands.identity, timeout: context.timeout)
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let serial = lines.first, !serial.isEmpty, serial.count <= 64,
            serial.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
        else {
            throw PhotonError(.protocolViolation, "the device reports no usable serial number (getprop ro.serialno)")
        }
        func field(_ index: Int) -> String? { lines.count > index && !lines[index].isEmpty ? Redaction.sanitize(lines[index], limit: 64) : nil }
        return (serial, field(1), field(2))
    }

    static func bannerProperty(_ name: String, in banner: String) -> String? {
        for pair in banner.split(separator: ";") {
            let item = pair.split(separator: ":").last.map(String.init) ?? String(pair)
            let parts = item.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == name { return Redaction.sanitize(String(parts[1]), limit: 64) }
        }
        return nil
    }
}

/// Pairing: consent to an unencrypted protocol, then a new ADB key of this pairing's own
/// allowed on the TV, then the device's identity and the key (a secret) stored.
struct FireTVPairing: PairingFlow {
    let endpoint: Endpoint
    let context: AdapterContext
    let acceptTimeout: Duration

    func run(responder: any PairingResponder) async throws -> PairedTV {
        let reason =
            "Fire TV is controlled over ADB, which is not encrypted: anyone on your network can read what Photon sends it (keys, text, app names). Never send secrets through it."
        guard case .trust(true) = try await responder.answer(.allowUnencrypted(reason: reason)) else {
            throw PhotonError(
                .untrustedCertificate, "not pairing over an unencrypted connection without consent; nothing was sent",
                hint: "run again and answer y, or pass --allow-unencrypted (anyone on the network can then read what is sent)")
        }
        let key = try RSAKey.generate()
        let (connection, _) = try await FireTVAdapter.connect(
            endpoint, key: { key }, context: context,
            offerKey: { fingerprint in
                _ = try await responder.answer(
                    .confirmOnTV(
                        message:
                            "On the TV, choose Allow on \"Allow USB debugging?\" within \(Int(acceptTimeout.seconds)) s (tick \"Always allow from this computer\"). The key's fingerprint there is \(fingerprint)."
                    ))
                return true
            }, acceptTimeout: acceptTimeout)
        defer { Task { await connection.close() } }
        let identity = try await FireTVAdapter.identity(of: connection, context: context)
        // Its MACs, for Wake-on-LAN (newcomer #14: none was stored, so `power on` could not
        // wake it); a device that does not say pairs all the same.
        let macs = ((try? await connection.shell(ADBShellCommands.macAddresses, timeout: context.timeout)).map(ADBShellCommands.macs(in:))) ?? []
        let id = "firetv-" + identity.serial.lowercased()
        let name = [identity.manufacturer, identity.model].compactMap { $0 }.joined(separator: " ")
        var device = DeviceRecord(
            id: id, nickname: id, brand: FireTVAdapter.brandID, host: endpoint.host, port: endpoint.port, ports: ["adb": endpoint.port],
            name: name.isEmpty ? "Android device" : name, model: identity.model, mac: macs.first,
            capabilities: FireTVAdapter.maximumCapabilities.sortedNames)
        if macs.count > 1 { device.otherMACs = Array(macs.dropFirst()) }
        return PairedTV(device: device, secrets: DeviceSecrets(values: [FireTVAdapter.adbKeySecret: try key.privateKeyPEM()]))
    }
}
