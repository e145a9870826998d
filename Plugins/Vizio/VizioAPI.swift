import PhotonCore

/// Vizio's SmartCast API over one kept-alive HTTPS connection to the TV's pinned
/// certificate: reads are GET, writes PUT with JSON, each with the pairing's `AUTH` token.
final class VizioAPI: Sendable {
    let client: HTTPKeepAliveClient
    let endpoint: Endpoint

    static let maximumAnswer = 256 * 1024

    init(endpoint: Endpoint, connector: any Connector, pin: CertificateFingerprint, token: String?, timeout: Duration) {
        self.endpoint = endpoint
        var headers: [(String, String)] = [("Accept", "application/json")]
        if let token { headers.append(("AUTH", token)) }
        client = HTTPKeepAliveClient(
            endpoint: endpoint, connector: connector, security: .tls(TLSClientOptions(trust: .pinned(pin))), timeout: timeout,
            maxBody: Self.maximumAnswer, defaultHeaders: headers)
    }

    /// A GET whose status must be success: the answer.
    func read(_ path: String) async throws -> JSONValue {
        let (answer, status) = try await exchange("GET", path, body: nil)
        guard status.isSuccess else { throw status.failure(what: path) }
        return answer
    }

    /// A PUT whose status must be success: the answer.
    @discardableResult
    func write(_ path: String, _ body: JSONValue) async throws -> JSONValue {
        let (answer, status) = try await exchange("PUT", path, body: body)
        guard status.isSuccess else { throw status.failure(what: path) }
        return answer
    }

    /// One request and its answer with its status, whatever the status.
    func exchange(_ method: String, _ path: String, body: JSONValue?) async throws -> (JSONValue, VizioStatus) {
        let response = try await client.request(
            method, path, headers: body == nil ? [] : [("Content-Type", "application/json")], body: body.map { Array($0.encoded.utf8) } ?? [])
        switch response.status {
        case 200: break
        case 401, 403:
            throw PhotonError(
                .authenticationRefused, "the Vizio TV refused \(path) (HTTP \(response.status)): it does not accept this pairing",
                hint: "pair again: photon pair \(endpoint) --brand vizio --replace")
        case 404: throw PhotonError.unsupported("the Vizio TV has no \(path) (HTTP 404)", hint: "its firmware lacks this call")
        default: throw PhotonError(.protocolViolation, "the Vizio TV answered \(path) with HTTP \(response.status)")
        }
        return try VizioStatus.read(response.body, what: path)
    }
}

/// The SmartCast paths Photon uses (TVs; soundbars are not supported).
enum VizioPaths {
    static let startPairing = "/pairing/start"
    static let finishPairing = "/pairing/pair"
    static let cancelPairing = "/pairing/cancel"
    static let deviceInfo = "/state/device/deviceinfo"
    static let power = "/state/device/power_mode"
    static let keys = "/key_command/"
    static let inputs = "/menu_native/dynamic/tv_settings/devices/name_input"
    static let currentInput = "/menu_native/dynamic/tv_settings/devices/current_input"
    static let volume = "/menu_native/dynamic/tv_settings/audio/volume"
    static let mute = "/menu_native/dynamic/tv_settings/audio/mute"
    static let pictureMode = "/menu_native/dynamic/tv_settings/picture/picture_mode"
    static let pictureModeChoices = "/menu_native/static/tv_settings/picture/picture_mode"
    static let serial = "/menu_native/dynamic/tv_settings/system/system_information/tv_information/serial_number"
    static let serialElsewhere = "/menu_native/dynamic/tv_settings/admin_and_privacy/system_information/tv_information/serial_number"
    static let esn = "/menu_native/dynamic/tv_settings/system/system_information/uli_information/esn"
    static let currentApp = "/app/current"
    static let launchApp = "/app/launch"
}
