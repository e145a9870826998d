import PhotonCore
import PhotonCrypto

/// Pairing: the certificate trusted with consent; `system` read for the TV's features;
/// `pair/request` (the TV shows a PIN and gives an auth key); the PIN typed; `pair/grant`
/// signed with the PIN and authenticated with Digest as the device id and auth key. What
/// the PIN proves: the person at the TV allowed this installation. The auth key travels
/// only inside the pinned TLS connection.
struct PhilipsPairing: PairingFlow {
    let endpoint: Endpoint
    let httpPort: UInt16
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
        let secure = TransportSecurity.tls(TLSClientOptions(trust: .pinned(pin)))
        let api = PhilipsAPI(endpoint: endpoint, connector: context.connector, security: secure, credential: nil, timeout: context.timeout)
        defer { Task { await api.client.drop() } }
        let system = try await readSystem(api)
        try system.checkPairable()
        let deviceID = PhilipsAdapter.deviceID(for: context)
        let device: JSONValue = .object([
            ("device_name", .string(String(context.clientName.prefix(40)))), ("device_os", "Linux"), ("type", "native"),
            ("id", .string(deviceID)), ("app_id", "org.photon.remote"), ("app_name", "Photon"),
        ])
        var access: [(String, JSONValue)] = [("scope", .array(["read", "write", "control"]))]
        if let featuring = system.featuring { access.append(("featuring", featuring)) }
        let requested = try await api.write("pair/request", .object([("access", .object(access)), ("device", device)]))
        try Self.check(requested, what: "pair/request")
        guard let authKey = requested["auth_key"]?.stringValue, PhilipsReadings.isName(authKey, limit: 128),
            let timestamp = requested["timestamp"].flatMap({ $0.intValue.map(String.init) ?? $0.stringValue }), timestamp.utf8.count <= 24,
            timestamp.utf8.allSatisfy(\.isASCIIAlphanumeric)
        else { throw PhotonError(.protocolViolation, "the Philips TV started pairing without an auth key or timestamp") }
        guard case .code(let typed) = try await responder.answer(.enterCode(length: 4, alphabet: .decimal)) else {
            throw PhotonError(.pairingRefused, "no PIN was given; pairing was not finished", hint: "type the 4 digits the TV shows")
        }
        let code = try CodeAlphabet.decimal.validate(typed, length: 4)
        let granting = PhilipsAPI(
            endpoint: endpoint, connector: context.connector, security: secure, credential: .init(user: deviceID, password: authKey),
            timeout: context.timeout)
        defer { Task { await granting.client.drop() } }
        let auth: JSONValue = .object([
            ("auth_appId", "1"), ("auth_timestamp", requested["timestamp"] ?? .string(timestamp)),
            ("auth_signature", .string(PhilipsSharedKey.signature(timestamp: timestamp, pin: code))), ("pin", .string(code)),
        ])
        let granted = try await granting.write("pair/grant", .object([("auth", auth), ("device", device)]))
        try Self.check(granted, what: "pair/grant")
        guard let serial = system.serial ?? system.deviceID else {
            throw PhotonError(.protocolViolation, "the Philips TV reports no serial number or device id")
        }
        let id = "philips-" + serial.lowercased()
        let model = system.model ?? system.name
        return PairedTV(
            device: DeviceRecord(
                id: id, nickname: id, brand: PhilipsAdapter.brandID, host: endpoint.host, port: endpoint.port,
                ports: ["https": endpoint.port, "http": httpPort], name: "Philips \(model ?? "TV")", model: model, mac: nil,
                capabilities: PhilipsAdapter.maximumCapabilities.sortedNames),
            secrets: DeviceSecrets(pin: pin, values: [PhilipsAdapter.deviceIDSecret: deviceID, PhilipsAdapter.authKeySecret: authKey]))
    }

    /// `system` over the pinned connection, else (firmware that serves it on plain HTTP
    /// only) from the plain port.
    private func readSystem(_ api: PhilipsAPI) async throws -> PhilipsSystem {
        if let answer = try? await api.read("system"), case .object(let pairs) = answer, !pairs.isEmpty {
            return try PhilipsSystem.parse(answer)
        }
        let plain = PhilipsAPI(
            endpoint: Endpoint(host: endpoint.host, port: httpPort), connector: context.connector, security: .plain, credential: nil,
            timeout: context.timeout)
        defer { Task { await plain.client.drop() } }
        return try PhilipsSystem.parse(try await plain.read("system"))
    }

    /// A pairing answer's `error_id`: anything but SUCCESS fails.
    static func check(_ answer: JSONValue, what: String) throws {
        let result = answer["error_id"]?.stringValue ?? ""
        guard result != "SUCCESS" else { return }
        let said = Redaction.sanitize(result.isEmpty ? "no error_id" : result, limit: 40)
        switch result {
        case "INVALID_PIN", "INVALID_SIGNATURE":
            throw PhotonError(.pairingRefused, "the Philips TV refused the PIN (\(said))", hint: "pair again and type the PIN the TV shows now")
        case "TIMEOUT", "PAIRING_TIMEOUT":
            throw PhotonError(.pairingRefused, "the Philips TV's PIN expired (\(said))", hint: "pair again and type the PIN within a minute")
        case "CONCURRENT_PAIRING":
            throw PhotonError(.pairingRefused, "the Philips TV is pairing another device (\(said))", hint: "wait a minute, then pair again")
        default: throw PhotonError(.pairingRefused, "the Philips TV refused \(what) (\(said))")
        }
    }
}
