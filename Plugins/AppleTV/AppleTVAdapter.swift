import Foundation
import PhotonCore
import PhotonCrypto
import PhotonHAP

/// Apple TV (tvOS 15 and later) over the Companion protocol: no TLS and no certificate,
/// but HomeKit-style pairing with the PIN the TV shows (SRP-6a, Ed25519), and on every
/// connection a verification in which the Apple TV proves it holds the long-term key
/// learned at pairing — this brand's pin. Then encrypted OPACK messages for keys (HID),
/// apps, power state and media controls.
public struct AppleTVAdapter: TVAdapter {
    public static let brandID = "appletv"
    /// Volume (keys and a level) reaches what the Apple TV controls: a TV over HDMI-CEC or
    /// AirPlay speakers; a level is refused with the reason when it controls none.
    public static let maximumCapabilities = Capabilities(.keys, .longPress, .text, .appLaunch, .appList, .volumeSet, .volumeState, .powerState)
    /// Companion's usual port (the real one comes from mDNS).
    public static let companionPort: UInt16 = 49153

    /// HID buttons (`_hidC`), by the names the emulator reports.
    static let hid: [RemoteKey: (code: Int64, name: String)] = [
        .up: (1, "Up"), .down: (2, "Down"), .left: (3, "Left"), .right: (4, "Right"), .back: (5, "Menu"), .select: (6, "Select"),
        .home: (7, "Home"), .volumeUp: (8, "VolumeUp"), .volumeDown: (9, "VolumeDown"), .powerOff: (12, "Sleep"), .powerOn: (13, "Wake"),
        .playPause: (14, "PlayPause"), .channelUp: (15, "ChannelIncrement"), .channelDown: (16, "ChannelDecrement"), .guide: (17, "Guide"),
    ]
    /// Media controls (`_mcc`).
    static let media: [RemoteKey: (code: Int64, name: String)] = [
        .play: (1, "Play"), .pause: (2, "Pause"), .next: (3, "NextTrack"), .previous: (4, "PreviousTrack"),
    ]

    public static let appCatalogIDs: [String: [String]] = [
        "netflix": ["com.netflix.Netflix"], "youtube": ["com.google.ios.youtube"], "prime-video": ["com.amazon.aiv.AIVApp"],
        "disney-plus": ["com.disney.disneyplus"], "max": ["com.wbd.stream", "com.hbo.hbonow"], "hulu": ["com.hulu.plus"],
        "plex": ["com.plexapp.plex"], "spotify": ["com.spotify.client"], "apple-tv": ["com.apple.TVWatchList"], "twitch": ["tv.twitch"],
        "kodi": ["org.xbmc.kodi-tvos"],
    ]

    public var descriptor: AdapterDescriptor { Self.descriptor }
    public var id: String { Self.brandID }

    public static let descriptor = AdapterDescriptor(
        id: Self.brandID, displayName: "Apple TV (Companion)",
        discovery: .init(serviceTypes: ["_companion-link._tcp"]),
        ports: .init(main: "companion", Self.companionPort),
        pairing: .init(
            style: .codeOnTV, secretNames: ["client_id", "client_key", "tv_id", "tv_key"],
            pinnedKey: .protocolKey("the Apple TV's long-term key, checked by pair-verify on every connection")),
        capabilities: Self.maximumCapabilities,
        // `power` toggles: Sleep when the Apple TV is awake, Wake when it sleeps (newcomer #9:
        // the remote and the web remote offered no power key although it works).
        keyTable: (hid.map { KeyMapping(key: $0.key, code: $0.value.name) } + media.map { KeyMapping(key: $0.key, code: $0.value.name) }
            + [KeyMapping(key: .power, code: "Sleep/Wake")])
            .sorted { $0.code < $1.code },
        help: .init(
            pairing:
                "Apple TV shows a 4-digit PIN when pairing starts: type it (keep leading zeros). Its long-term key is then checked on every connection.",
            probe: "Apple TV: a TCP connection to the Companion port (49153 unless mDNS says otherwise).",
            launch: "Apple TV takes bundle ids (com.netflix.Netflix) or links (https://…, or an app's own scheme).",
            exampleApp: "com.netflix.Netflix"),
        appCatalogIDs: Self.appCatalogIDs)

    public init() {}

    public func recognise(_ service: DiscoveredService) -> TVCandidate? {
        guard service.type == "_companion-link._tcp" else { return nil }
        let host = service.addresses.first ?? service.host
        var candidate = TVCandidate(
            brand: id, name: Redaction.sanitize(service.txt["rphn"] ?? service.name, limit: 64), endpoint: Endpoint(host: host, port: service.port),
            model: service.txt["rpmd"].map { Redaction.sanitize($0, limit: 32) }, ports: ["companion": service.port])
        if let flags = service.txt["rpfl"].flatMap({ UInt64($0.hasPrefix("0x") ? String($0.dropFirst(2)) : $0, radix: 16) }), flags & 0x04 != 0 {
            candidate.unsupportedReason = "pairing is turned off on this Apple TV (Settings › Remotes and Devices)"
        }
        return candidate
    }

    public func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate? {
        let endpoint = Endpoint(host: host, port: ports["companion"] ?? Self.companionPort)
        // Pair-verify's first message shows nothing on the TV (pair-setup would show a PIN),
        // and an Apple TV answers it with its ephemeral key: that answer identifies it.
        let connection = try await Self.connect(endpoint, context: context)
        defer { Task { await connection.close() } }
        let hello = TLV8([(.state, [1]), (.publicKey, try X25519PrivateKey().publicKey)])
        guard
            let answer = try? await connection.exchangeAuth(
                .pairVerifyStart, .object([("_pd", .data(hello.encoded)), ("_auTy", .int(4))]), timeout: context.timeout),
            let data = answer["_pd"]?.dataValue, let tlv = try? TLV8.decode(data), tlv.byte(.state) == 2
        else { return nil }
        return TVCandidate(brand: id, name: "Apple TV (Companion)", endpoint: endpoint, ports: ["companion": endpoint.port])
    }

    public func pairing(with endpoint: Endpoint, options: AdapterOptionValues, context: AdapterContext) -> any PairingFlow {
        AppleTVPairing(endpoint: endpoint, context: context)
    }

    public func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws -> any RemoteSession {
        let credentials = try Self.credentials(from: secrets)
        let connection = try await Self.connect(device.endpoint, context: context)
        do {
            try await CompanionPairing.verify(on: connection, credentials: credentials, timeout: context.timeout)
            return try await AppleTVSession.open(connection, context: context)
        } catch let error as PhotonError where error.code == .pinMismatch {
            await connection.close()
            throw PhotonError(
                .pinMismatch, "\(error.message) (\(Redaction.sanitize(device.nickname)) at \(device.endpoint))",
                hint: "if the Apple TV was reset or replaced, pair again: photon pair \(device.endpoint) --brand appletv --replace")
        } catch {
            await connection.close()
            throw error
        }
    }

    static func connect(_ endpoint: Endpoint, context: AdapterContext) async throws -> CompanionConnection {
        let stream = try await context.connector.openByteStream(to: endpoint, security: .plain, timeout: context.timeout)
        let connection = CompanionConnection(stream: stream)
        await connection.start()
        return connection
    }

    /// The stored pairing, or `notPaired` when it is incomplete.
    static func credentials(from secrets: DeviceSecrets) throws -> HAPCredentials {
        guard let clientID = secrets["client_id"].flatMap({ try? Hex.decode($0) }),
            let clientKey = secrets["client_key"].flatMap({ try? Hex.decode($0) }),
            clientKey.count == 32, let tvID = secrets["tv_id"].flatMap({ try? Hex.decode($0) }),
            let tvKey = secrets["tv_key"].flatMap({ try? Hex.decode($0) }), tvKey.count == 32
        else {
            throw PhotonError(.notPaired, "the stored Apple TV pairing is incomplete", hint: "pair it again: photon pair ADDRESS --brand appletv")
        }
        return HAPCredentials(clientID: clientID, clientKey: clientKey, tvID: tvID, tvPublicKey: tvKey)
    }

    /// What pairing stores: the credentials as hex, and the Apple TV's long-term key's
    /// SHA-256 as the pin `photon list` shows.
    static func secrets(_ credentials: HAPCredentials) throws -> DeviceSecrets {
        DeviceSecrets(
            pin: try CertificateFingerprint(bytes: Digest.sha256(credentials.tvPublicKey)),
            values: [
                "client_id": Hex.encode(credentials.clientID), "client_key": Hex.encode(credentials.clientKey), "tv_id": Hex.encode(credentials.tvID),
                "tv_key": Hex.encode(credentials.tvPublicKey),
            ])
    }
}

/// Pairing: pair-setup with the PIN the TV shows, then a verified connection that reads the
/// TV's name and model, then the credentials stored (the TV's key as the pin).
struct AppleTVPairing: PairingFlow {
    let endpoint: Endpoint
    let context: AdapterContext

    func run(responder: any PairingResponder) async throws -> PairedTV {
        let connection = try await AppleTVAdapter.connect(endpoint, context: context)
        let credentials: HAPCredentials
        do {
            credentials = try await CompanionPairing.setup(on: connection, name: context.clientName, timeout: max(context.timeout, .seconds(10))) {
                guard case .code(let code) = try await responder.answer(.enterCode(length: 4, alphabet: .decimal)) else {
                    throw PhotonError(.pairingRefused, "no PIN was given; nothing was stored", hint: "type the 4 digits the Apple TV shows")
                }
                let digits = code.trimmingCharacters(in: .whitespaces)
                guard digits.count == 4, digits.allSatisfy({ ("0"..."9").contains($0) }) else {
                    throw PhotonError(.usage, "the Apple TV's PIN is 4 digits, not '\(Redaction.sanitize(digits))'")
                }
                return digits
            }
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
        // A verified connection proves the pairing works, and gives the name and model.
        let verified = try await AppleTVAdapter.connect(endpoint, context: context)
        defer { Task { await verified.close() } }
        try await CompanionPairing.verify(on: verified, credentials: credentials, timeout: context.timeout)
        let info = try await verified.request("_systemInfo", AppleTVSession.systemInfo(context), timeout: context.timeout)
        let tvID = String(decoding: credentials.tvID, as: UTF8.self)
        let id = "appletv-" + tvID.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(32)
        return PairedTV(
            device: DeviceRecord(
                id: id, nickname: id, brand: AppleTVAdapter.brandID, host: endpoint.host, port: endpoint.port, ports: ["companion": endpoint.port],
                name: info["_n"]?.stringValue.map { Redaction.sanitize($0, limit: 64) } ?? "Apple TV",
                model: info["_mdl"]?.stringValue.map { Redaction.sanitize($0, limit: 32) }, mac: nil,
                capabilities: AppleTVAdapter.maximumCapabilities.sortedNames),
            secrets: try AppleTVAdapter.secrets(credentials))
    }
}
