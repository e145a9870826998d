import PhotonCore

/// Vizio SmartCast: an HTTPS JSON API (port 7345; 9000 on firmware before 4.0) with the
/// TV's self-signed certificate, pinned with consent like every TLS brand, and a token the
/// TV hands out for the PIN it shows. Reads are GET, writes PUT; settings are changed by
/// quoting the HASHVAL just read.
public struct VizioAdapter: TVAdapter {
    public static let brandID = "vizio"
    public static let maximumCapabilities = Capabilities(
        .keys, .longPress, .appLaunch, .volumeState, .volumeSet, .powerState, .currentApp, .inputs, .inputList, .pictureMode)

    public static let tokenSecret = "auth-token"

    /// Catalog apps as Vizio launches them (`NAME_SPACE:APP_ID`, from pyvizio's table):
    /// never looked up in Vizio's cloud.
    public static let appCatalogIDs: [String: [String]] = [
        "netflix": ["3:1"], "youtube": ["5:1"], "prime-video": ["2:4"], "disney-plus": ["2:75"], "hulu": ["2:3"], "apple-tv": ["3:4"],
    ]

    /// How often a session asks for power, volume, the input, the app and the picture mode.
    public var pollInterval: Duration

    public init(pollInterval: Duration = .seconds(3)) { self.pollInterval = pollInterval }

    public var descriptor: AdapterDescriptor { Self.descriptor }
    public var id: String { Self.brandID }

    public static let descriptor = AdapterDescriptor(
        id: Self.brandID, displayName: "Vizio SmartCast (HTTPS API)", discovery: .init(serviceTypes: ["_viziocast._tcp"]),
        ports: .init(main: "https", Self.httpsPort), pairing: .init(style: .codeOnTV, secretNames: [Self.tokenSecret]),
        capabilities: Self.maximumCapabilities, keyTable: VizioKeys.keyTable,
        help: .init(
            pairing:
                "Vizio SmartCast: the TV's self-signed certificate is shown (or checked against --trust) before anything is sent; then type the 4-digit PIN the TV shows. PORT is the API's: 7345, or 9000 on firmware before 4.0. A pairing left unfinished is cancelled, so the TV is not left blocked.",
            probe: "Vizio: GET /state/device/deviceinfo over HTTPS on port 7345 (then 9000), which answers without authentication.",
            launch: "Vizio takes NAME_SPACE:APP_ID (3:1 is Netflix, 5:1 YouTube) or a catalog name; the TV cannot list its apps.",
            exampleApp: "3:1", networkStandby: "\"Quick Start\" (System → Power Mode)"),
        appCatalogIDs: Self.appCatalogIDs)

    public static let httpsPort: UInt16 = 7345
    public static let legacyPort: UInt16 = 9000

    public func recognise(_ service: DiscoveredService) -> TVCandidate? {
        guard service.type == "_viziocast._tcp" else { return nil }
        let host = service.addresses.first ?? service.host
        return TVCandidate(
            brand: id, name: Redaction.sanitize(service.txt["name"] ?? service.name, limit: 64), endpoint: Endpoint(host: host, port: Self.httpsPort),
            model: service.txt["mdl"].map { Redaction.sanitize($0, limit: 64) }, ports: ["https": Self.httpsPort])
    }

    public func probe(host: String, ports: [String: UInt16], context: AdapterContext) async throws -> TVCandidate? {
        let candidates = ports["https"].map { [$0] } ?? [Self.httpsPort, Self.legacyPort]
        var lastError: Error?
        for port in candidates {
            let endpoint = Endpoint(host: host, port: port)
            let client = HTTPKeepAliveClient(
                endpoint: endpoint, connector: context.connector, security: .tls(TLSClientOptions(trust: .captureForFirstUse)),
                timeout: context.timeout, defaultHeaders: [("Accept", "application/json")])
            defer { Task { await client.drop() } }
            do {
                let response = try await client.request("GET", VizioPaths.deviceInfo)
                guard response.status == 200, let (answer, status) = try? VizioStatus.read(response.body, what: "deviceinfo"), status.isSuccess
                else { return nil }
                let model = VizioReadings.model(answer)
                return TVCandidate(brand: id, name: "Vizio \(model ?? "SmartCast TV")", endpoint: endpoint, model: model, ports: ["https": port])
            } catch {
                lastError = error
            }
        }
        if let lastError { throw lastError }
        return nil
    }

    public func pairing(with endpoint: Endpoint, options: AdapterOptionValues, context: AdapterContext) -> any PairingFlow {
        VizioPairing(endpoint: endpoint, context: context)
    }

    public func openSession(device: DeviceRecord, secrets: DeviceSecrets, context: AdapterContext) async throws -> any RemoteSession {
        guard let pin = secrets.pin, let token = secrets[Self.tokenSecret] else {
            throw PhotonError(
                .notPaired, "the pairing of \(Redaction.sanitize(device.nickname)) has no certificate pin or token",
                hint: "pair again: photon pair \(device.endpoint) --brand vizio --replace")
        }
        let api = VizioAPI(endpoint: device.endpoint, connector: context.connector, pin: pin, token: token, timeout: context.timeout)
        do {
            let power = try VizioReadings.power(try await api.read(VizioPaths.power))
            return VizioSession(api: api, device: device, power: power, pollInterval: pollInterval, context: context)
        } catch {
            await api.client.drop()
            throw error
        }
    }

    /// This installation's device id for the TV's list of paired devices: stable per
    /// installation (from its identity), not secret.
    static func deviceID(for context: AdapterContext) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in context.clientIdentity.certificatePEM.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "photon-" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Pairing: the certificate trusted with consent, then `/pairing/start` (the TV shows a
/// PIN), the PIN typed, `/pairing/pair` for the token; a pairing that does not finish is
/// cancelled (`/pairing/cancel`), or the TV may stay BLOCKED until it restarts.
struct VizioPairing: PairingFlow {
    let endpoint: Endpoint
    let context: AdapterContext

    func run(responder: any PairingResponder) async throws -> PairedTV {
        let stream = try await context.connector.openByteStream(
            to: endpoint, security: .tls(TLSClientOptions(trust: .captureForFirstUse)), timeout: context.timeout)
        let pin: CertificateFingerprint
        do {
            pin = try await responder.requireTrust(in: stream)
        } catch {
            await stream.close()
            throw error
        }
        await stream.close()
        let api = VizioAPI(endpoint: endpoint, connector: context.connector, pin: pin, token: nil, timeout: context.timeout)
        defer { Task { await api.client.drop() } }
        let deviceID = VizioAdapter.deviceID(for: context)
        let who: [(String, JSONValue)] = [("DEVICE_ID", .string(deviceID)), ("DEVICE_NAME", .string(context.clientName))]
        let started = try await api.write(VizioPaths.startPairing, .object(who))
        let item = VizioJSON.field(started, "item")
        guard let challenge = VizioJSON.integer(VizioJSON.field(item, "challenge_type")),
            let request = VizioJSON.integer(VizioJSON.field(item, "pairing_req_token"))
        else {
            _ = try? await api.exchange("PUT", VizioPaths.cancelPairing, body: .object(who))
            throw PhotonError(.protocolViolation, "the Vizio TV started pairing without a challenge")
        }
        let token: String
        do {
            guard case .code(let typed) = try await responder.answer(.enterCode(length: 4, alphabet: .decimal)) else {
                throw PhotonError(.pairingRefused, "no PIN was given; pairing was cancelled", hint: "type the 4 digits the TV shows")
            }
            let code = try CodeAlphabet.decimal.validate(typed, length: 4)
            let (answer, status) = try await api.exchange(
                "PUT", VizioPaths.finishPairing,
                body: .object([
                    ("DEVICE_ID", .string(deviceID)), ("CHALLENGE_TYPE", .int(challenge)), ("PAIRING_REQ_TOKEN", .int(request)),
                    ("RESPONSE_VALUE", .string(code)),
                ]))
            guard status.isSuccess else { throw status.failure(what: "pairing") }
            guard let issued = VizioJSON.text(VizioJSON.field(VizioJSON.field(answer, "item"), "auth_token")), !issued.isEmpty,
                issued.utf8.count <= 128, issued.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == 45 || $0 == 95 })
            else { throw PhotonError(.protocolViolation, "the Vizio TV paired but gave no usable token") }
            token = issued
        } catch {
            // Never leave the TV mid-pairing: an abandoned start can block it until it restarts.
            _ = try? await api.exchange("PUT", VizioPaths.cancelPairing, body: .object(who))
            throw error
        }
        let authed = VizioAPI(endpoint: endpoint, connector: context.connector, pin: pin, token: token, timeout: context.timeout)
        defer { Task { await authed.client.drop() } }
        let model = VizioReadings.model(try await authed.read(VizioPaths.deviceInfo))
        var serial: String?
        for path in [VizioPaths.serial, VizioPaths.serialElsewhere, VizioPaths.esn] where serial == nil {
            serial = (try? await authed.read(path)).flatMap(VizioReadings.serial)
        }
        guard let serial else { throw PhotonError(.protocolViolation, "the Vizio TV reports no serial number or ESN") }
        let id = "vizio-" + serial.lowercased()
        return PairedTV(
            device: DeviceRecord(
                id: id, nickname: id, brand: VizioAdapter.brandID, host: endpoint.host, port: endpoint.port, ports: ["https": endpoint.port],
                name: "Vizio \(model ?? "SmartCast TV")", model: model, mac: nil, capabilities: VizioAdapter.maximumCapabilities.sortedNames),
            secrets: DeviceSecrets(pin: pin, values: [VizioAdapter.tokenSecret: token]))
    }
}
