import PhotonCore
import PhotonCrypto

/// JointSpace (API 6) over one kept-alive HTTPS connection to the TV's pinned certificate,
/// each request authenticated with HTTP Digest as the pairing's device id and auth key.
/// The first request of a connection meets the TV's challenge (401) and is sent again with
/// the answer; the challenge is kept and answered up front afterwards. Like ha-philipsjs,
/// whose requests real TVs accept, every request counts `nc=00000001` with a new client
/// nonce; a TV that then asks again (a new nonce) is answered once more.
final class PhilipsAPI: Sendable {
    struct Credential: Sendable {
        var user: String
        var password: String
    }

    let client: HTTPKeepAliveClient
    let endpoint: Endpoint
    let credential: Credential?
    private let challenge = Locked<DigestChallenge?>(nil)

    static let maximumAnswer = 512 * 1024

    init(endpoint: Endpoint, connector: any Connector, security: TransportSecurity, credential: Credential?, timeout: Duration) {
        self.endpoint = endpoint
        self.credential = credential
        client = HTTPKeepAliveClient(
            endpoint: endpoint, connector: connector, security: security, timeout: timeout, maxBody: Self.maximumAnswer,
            defaultHeaders: [("Accept", "application/json")])
    }

    /// A GET of `/6/PATH`: its answer.
    func read(_ path: String, timeout: Duration? = nil) async throws -> JSONValue {
        try await exchange("GET", path, body: nil, timeout: timeout)
    }

    /// A POST of JSON to `/6/PATH`: its answer (often empty).
    @discardableResult
    func write(_ path: String, _ body: JSONValue, timeout: Duration? = nil) async throws -> JSONValue {
        try await exchange("POST", path, body: body, timeout: timeout)
    }

    /// One request, answered with the Digest challenge when the TV asks for it.
    func exchange(_ method: String, _ path: String, body: JSONValue?, timeout: Duration? = nil) async throws -> JSONValue {
        let target = "/6/" + path
        let bytes = body.map { Array($0.encoded.utf8) } ?? []
        var response = try await send(method, target, bytes, challenge: challenge.withLock { $0 }, timeout: timeout)
        if response.status == 401, let credential, let header = response.head["WWW-Authenticate"] {
            // A 401 means the TV did nothing: sending the request again is safe.
            let fresh = try DigestChallenge.parse(header)
            challenge.withLock { $0 = fresh }
            response = try await send(method, target, bytes, challenge: fresh, timeout: timeout)
            if response.status == 401 { throw refused(path, credential: credential) }
        }
        switch response.status {
        case 200: return try PhilipsJSON.parse(response.body, what: path)
        case 401: throw refused(path, credential: credential)
        case 403, 404: throw PhotonError.unsupported("the Philips TV has no \(path) (HTTP \(response.status))", hint: "its firmware lacks this call")
        default: throw PhotonError(.protocolViolation, "the Philips TV answered \(path) with HTTP \(response.status)")
        }
    }

    private func refused(_ path: String, credential: Credential?) -> PhotonError {
        guard credential != nil else {
            return PhotonError(
                .authenticationRefused, "the Philips TV asks for a pairing to answer \(path)",
                hint: "pair first: photon pair \(endpoint) --brand philips")
        }
        return PhotonError(
            .authenticationRefused, "the Philips TV refused \(path): it no longer accepts this pairing",
            hint: "pair again: photon pair \(endpoint) --brand philips --replace")
    }

    private func send(_ method: String, _ target: String, _ body: [UInt8], challenge: DigestChallenge?, timeout: Duration?) async throws
        -> HTTPClient.Response
    {
        var headers: [(String, String)] = body.isEmpty && method == "GET" ? [] : [("Content-Type", "application/json")]
        if let credential, let challenge {
            let clientNonce = Hex.encode(try SecureRandom.bytes(8))
            headers.append(
                (
                    "Authorization",
                    challenge.authorization(
                        user: credential.user, password: credential.password, method: method, uri: target, count: 1, clientNonce: clientNonce)
                ))
        }
        return try await client.request(method, target, headers: headers, body: body, timeout: timeout)
    }
}
