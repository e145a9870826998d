import PhotonCore

/// Sony's IP control API over one kept-alive HTTP connection: JSON-RPC calls on
/// `/sony/<service>` and IRCC-SOAP key codes on `/sony/ircc`, each with the pairing's
/// credential — a pre-shared key (`X-Auth-PSK`) or the cookie PIN registration gave. A
/// cookie the TV no longer takes (14 days old, or the TV rebooted) is renewed once by
/// registering again with the stored PIN, without asking anyone; only a TV that refuses
/// that too is "pair again" (exit 4).
final class SonyAPI: Sendable {
    /// What proves the pairing to the TV.
    enum Credential: Sendable, Equatable {
        case none
        case psk(String)
        /// The `auth` cookie, and what registers again for a new one.
        case cookie(String, registration: SonyRegistration?)
    }

    typealias Answer = SonyAnswer

    let client: HTTPKeepAliveClient
    let endpoint: Endpoint
    private let credential: Locked<Credential>
    /// `ircc`, or `IRCC` for TVs whose path is upper case (learnt on a 404).
    private let irccPath = Locked("ircc")
    /// Called with the new cookie after a renewal, to store it.
    let cookieRenewed: @Sendable (String) async -> Void

    /// Longest answer read (an app list with icons is tens of KiB).
    static let maximumAnswer = 512 * 1024

    init(
        endpoint: Endpoint, connector: any Connector, timeout: Duration, credential: Credential,
        cookieRenewed: @escaping @Sendable (String) async -> Void = { _ in }
    ) {
        self.endpoint = endpoint
        self.credential = Locked(credential)
        self.cookieRenewed = cookieRenewed
        client = HTTPKeepAliveClient(
            endpoint: endpoint, connector: connector, timeout: timeout, maxBody: Self.maximumAnswer,
            defaultHeaders: [("Accept", "application/json"), ("Cache-Control", "no-cache")])
    }

    var currentCredential: Credential { credential.withLock { $0 } }

    private func authHeaders() -> [(String, String)] {
        switch credential.withLock({ $0 }) {
        case .none: return []
        case .psk(let key): return [("X-Auth-PSK", key)]
        case .cookie(let cookie, _): return [("Cookie", "auth=\(cookie)")]
        }
    }

    /// One JSON-RPC call. `params` is the call's one parameter object (or none).
    func call(
        _ service: String, _ method: String, _ params: [JSONValue] = [], version: String = "1.0", timeout: Duration? = nil
    ) async throws -> Answer {
        let body = Array(
            JSONValue.object([("method", .string(method)), ("id", .int(1)), ("params", .array(params)), ("version", .string(version))])
                .encoded.utf8)
        let response = try await authorised(what: "\(service)/\(method)") {
            try await self.client.request(
                "POST", "/sony/\(service)", headers: $0 + [("Content-Type", "application/json; charset=UTF-8")], body: body, timeout: timeout)
        }
        try Self.check(response, what: "\(service)/\(method)")
        return try Self.answer(response.body, what: "\(service)/\(method)")
    }

    /// A call whose error is a failure: the result, or the TV's error as an error.
    func result(
        _ service: String, _ method: String, _ params: [JSONValue] = [], version: String = "1.0", timeout: Duration? = nil
    ) async throws -> [JSONValue] {
        switch try await call(service, method, params, version: version, timeout: timeout) {
        case .result(let result): return result
        case .error(let code, let message): throw Self.failure(code: code, message: message, what: "\(service)/\(method)")
        }
    }

    /// Sends one IRCC code. An IRCC path the TV does not have (404) is tried in the other
    /// case once: some Bravias serve `/sony/IRCC` only.
    func sendIRCC(_ code: String) async throws {
        guard SonyKeys.isIRCCCode(code) || code.isEmpty else { throw PhotonError(.usage, "an IRCC code is base64 text") }
        let body = Array(SonyKeys.envelope(code: code).utf8)
        for attempt in 0..<2 {
            let path = irccPath.withLock { $0 }
            let response = try await authorised(what: "the IRCC key") {
                try await self.client.request(
                    "POST", "/sony/\(path)",
                    headers: $0 + [
                        ("Content-Type", "text/xml; charset=UTF-8"), ("SOAPACTION", "\"urn:schemas-sony-com:service:IRCC:1#X_SendIRCC\""),
                    ], body: body)
            }
            if response.status == 404, attempt == 0 {
                irccPath.withLock { $0 = $0 == "ircc" ? "IRCC" : "ircc" }
                continue
            }
            try Self.check(response, what: "the IRCC key")
            return
        }
    }

    /// Runs `send` with the credential's headers; a 401/403 on a cookie with a stored PIN
    /// renews the cookie once and sends again (the TV refused the first, so it did nothing).
    private func authorised(what: String, _ send: @Sendable ([(String, String)]) async throws -> HTTPClient.Response) async throws
        -> HTTPClient.Response
    {
        let response = try await send(authHeaders())
        guard response.status == 401 || response.status == 403,
            case .cookie(_, let registration?) = credential.withLock({ $0 })
        else { return response }
        let renewed = try await SonyRegistration.register(registration, pin: registration.pin, over: client)
        guard case .registered(let cookie) = renewed else {
            throw PhotonError(
                .authenticationRefused, "the Sony TV no longer accepts this pairing (its cookie expired and the stored PIN was refused)",
                hint: "pair again: photon pair \(endpoint) --brand sony --replace")
        }
        credential.withLock { $0 = .cookie(cookie, registration: registration) }
        await cookieRenewed(cookie)
        return try await send(authHeaders())
    }

    /// Throws the error an HTTP status means; 200 passes.
    static func check(_ response: HTTPClient.Response, what: String) throws {
        switch response.status {
        case 200: return
        case 401, 403:
            throw PhotonError(
                .authenticationRefused, "the Sony TV refused \(what) (HTTP \(response.status)): it does not accept this pairing",
                hint: "pair again (photon pair HOST --brand sony --replace), or check the pre-shared key under Network → IP control")
        case 404:
            throw PhotonError(
                .unsupported, "the Sony TV has no \(what) (HTTP 404)",
                hint: "the TV's IP control may still be starting, or its model lacks this call; turn on Network → Remote start and IP control")
        case 503:
            throw PhotonError(.unreachable, "the Sony TV is busy (HTTP 503) and did not carry out \(what)", hint: "try again in a moment")
        default:
            throw PhotonError(.protocolViolation, "the Sony TV answered \(what) with HTTP \(response.status)")
        }
    }

    static func answer(_ body: [UInt8], what: String) throws -> Answer { try SonyAnswer.parse(body, what: what) }

    /// The error a JSON-RPC error code means.
    static func failure(code: Int, message: String, what: String) -> PhotonError {
        if message.lowercased().contains("not power-on") || code == 40005 {
            return PhotonError(.unreachable, "the Sony TV is in standby and did not carry out \(what)", hint: "turn it on: photon power TV on")
        }
        switch code {
        case 12, 15:
            return PhotonError.unsupported("the Sony TV has no \(what) (error \(code): \(message))", hint: "its model or firmware lacks this call")
        case 3, 5: return PhotonError(.usage, "the Sony TV refused the values of \(what) (error \(code): \(message))")
        case 7: return PhotonError(.unsupported, "the Sony TV cannot do \(what) now (error 7, \(message))", hint: "it depends on what the TV shows")
        case 41000...41999: return PhotonError(.notFound, "the Sony TV could not find what \(what) named (error \(code): \(message))")
        default: return PhotonError(.protocolViolation, "the Sony TV failed \(what) (error \(code): \(message))")
        }
    }
}

/// What PIN registration (`accessControl/actRegister`) sends: who this client is, and the
/// PIN that registered it (kept as a secret so an expired cookie is renewed unasked).
struct SonyRegistration: Sendable, Equatable {
    var clientID: String
    var nickname: String
    var pin: String

    enum Outcome: Sendable, Equatable {
        case registered(cookie: String)
        /// 401: the PIN is wrong, or (with `0000`) the TV now shows one.
        case refused
    }

    /// Registers with `pin` (HTTP Basic with an empty user, as Sony's apps do).
    static func register(_ registration: SonyRegistration, pin: String, over client: HTTPKeepAliveClient) async throws -> Outcome {
        let params: [JSONValue] = [
            .object([
                ("clientid", .string(registration.clientID)), ("nickname", .string(registration.nickname)), ("level", .string("private")),
            ]),
            .array([.object([("value", .string("yes")), ("function", .string("WOL"))])]),
        ]
        let body = Array(
            JSONValue.object([("method", .string("actRegister")), ("id", .int(8)), ("params", .array(params)), ("version", .string("1.0"))])
                .encoded.utf8)
        let response = try await client.request(
            "POST", "/sony/accessControl",
            headers: [("Authorization", "Basic " + Base64.encode(Array(":\(pin)".utf8))), ("Content-Type", "application/json; charset=UTF-8")],
            body: body)
        if response.status == 401 { return .refused }
        try SonyAPI.check(response, what: "registration")
        if case .error(let code, let message) = try SonyAPI.answer(response.body, what: "registration") {
            throw SonyAPI.failure(code: code, message: message, what: "registration")
        }
        guard let cookie = authCookie(response.head) else {
            throw PhotonError(.protocolViolation, "the Sony TV registered Photon but gave no auth cookie")
        }
        return .registered(cookie: cookie)
    }

    /// The `auth` cookie's value from `Set-Cookie` headers (letters, digits and a few
    /// marks only, so it can go back in a header as it is).
    static func authCookie(_ head: HTTPHead) -> String? {
        for (name, value) in head.headers where name.lowercased() == "set-cookie" {
            guard let first = value.split(separator: ";").first else { continue }
            let pair = first.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, String(pair[0]).trimmingSpaces == "auth" else { continue }
            let cookie = String(pair[1]).trimmingSpaces
            guard !cookie.isEmpty, cookie.utf8.count <= 512,
                cookie.utf8.allSatisfy({ $0.isASCIIAlphanumeric || [43, 45, 46, 47, 61, 95].contains($0) })
            else { return nil }
            return cookie
        }
        return nil
    }
}

/// Base64, for HTTP Basic credentials.
enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[Int(value >> (18 - 6 * UInt32(position)) & 0x3F)] : 61)
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
