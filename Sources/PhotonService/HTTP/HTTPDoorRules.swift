import Foundation
import PhotonCore

/// A refusal the HTTP door answers with: the status, a stable `code` for scripts, the
/// message and a hint a user can act on. Nothing behind the door ran.
public struct HTTPRefusal: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var message: String
    public var hint: String?
    /// Whether the connection must close after the answer (the rest of the request was
    /// not read, or the client misbehaved).
    public var closesConnection = false

    public init(_ status: Int, _ code: String, _ message: String, hint: String? = nil, closesConnection: Bool = false) {
        self.status = status
        self.code = code
        self.message = message
        self.hint = hint
        self.closesConnection = closesConnection
    }

    /// `{"error","hint","code"}`.
    public var json: JSONValue {
        .object([("error", .string(message)), ("hint", hint.map(JSONValue.string) ?? .null), ("code", .string(code))])
    }

    /// The status and code for an error from behind the door, by exit class: a bad request
    /// 400, a TV that cannot be reached 504, a TV that refused us 409, a TV that is not the
    /// one paired 502, a command the TV lacks 501, an unknown TV 404.
    public static func from(_ error: PhotonError) -> HTTPRefusal {
        let status: Int
        switch error.code {
        case .usage: status = 400
        case .notFound: status = 404
        case .unreachable, .timeout, .connectionClosed: status = 504
        case .pairingRefused, .authenticationRefused, .notPaired: status = 409
        case .pinMismatch, .untrustedCertificate: status = 502
        case .unsupported: status = 501
        case .messageTooLarge: status = 413
        case .protocolViolation, .tls: status = 502
        case .cancelled: status = 503
        case .storeCorrupt, .storePermissions, .storeIO, .crypto, .internal: status = 500
        }
        return HTTPRefusal(status, error.code.rawValue, error.message, hint: error.hint)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 421: return "Misdirected Request"
        case 426: return "Upgrade Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status"
        }
    }
}

/// The door's checks on a request's `Host` and `Origin`, pure so they are tested alone.
/// `Host` must name this server (a page another site loaded cannot reach us by pointing
/// its own name at our address: DNS rebinding); a request that changes something, or
/// opens the event stream, must come from our own origin or from a script (no `Origin`,
/// a bearer token).
public struct HTTPOriginPolicy: Sendable {
    /// Host names and addresses (lowercased, IPv6 in brackets) this server answers to.
    public var hosts: Set<String>
    public var port: UInt16
    public var secure: Bool

    public init(hosts: Set<String>, port: UInt16, secure: Bool) {
        self.hosts = Set(hosts.map { $0.lowercased() })
        self.port = port
        self.secure = secure
    }

    /// The names a server bound to `address` answers to: that address, plus loopback names
    /// when it is loopback, plus this machine's names and addresses when it is a wildcard.
    public static func hosts(boundTo address: String, machineNames: [String], machineAddresses: [String]) -> Set<String> {
        var hosts: Set<String> = [bracketed(address)]
        let loopback = address.hasPrefix("127.") || address == "::1"
        let wildcard = address == "0.0.0.0" || address == "::"
        if loopback || wildcard { hosts.formUnion(["localhost", "127.0.0.1", "[::1]"]) }
        if wildcard || !loopback {
            for name in machineNames where !name.isEmpty { hosts.insert(name.lowercased()) }
        }
        if wildcard { hosts.formUnion(machineAddresses.map(bracketed)) }
        hosts.remove("[::]")
        hosts.remove("0.0.0.0")
        return hosts
    }

    static func bracketed(_ address: String) -> String { address.contains(":") && !address.hasPrefix("[") ? "[\(address)]" : address }

    /// Splits `host[:port]` (IPv6 in brackets); nil when malformed.
    public static func splitAuthority(_ authority: String) -> (host: String, port: UInt16?)? { split(authority) }

    static func split(_ authority: String) -> (host: String, port: UInt16?)? {
        let text = authority.lowercased()
        guard !text.isEmpty, text.utf8.count <= 255, !text.contains(where: { $0 == "/" || $0 == "@" || $0.isWhitespace }) else {
            return nil
        }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = String(text[...close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return (host, nil) }
            guard rest.hasPrefix(":"), let port = UInt16(rest.dropFirst()) else { return nil }
            return (host, port)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return (text, nil)
        case 2:
            guard let port = UInt16(parts[1]) else { return nil }
            return (String(parts[0]), port)
        default: return nil
        }
    }

    /// Checks `Host` (required, one of ours, our port if it names one): 421 otherwise.
    public func checkHost(_ host: String?) throws(HTTPRefusal) {
        guard let host, let (name, port) = Self.split(host), hosts.contains(name), port == nil || port == self.port else {
            throw HTTPRefusal(
                421, "misdirected", "this server does not answer to the host \(Redaction.sanitize(host ?? "(none)"))",
                hint: "open the remote by the address photon serve printed")
        }
    }

    /// The origin a page served by us has, for the request's (already checked) `Host`.
    public func ownOrigin(host: String) -> String { "\(secure ? "https" : "http")://\(host.lowercased())" }

    /// For requests that change something and WebSocket upgrades: an `Origin` must be our
    /// own; none is allowed only for scripts that present a bearer token.
    public func checkOrigin(_ origin: String?, host: String, bearer: Bool) throws(HTTPRefusal) {
        guard let origin else {
            guard bearer else {
                throw HTTPRefusal(
                    403, "forbidden-origin", "a request without an Origin must carry an Authorization: Bearer token",
                    hint: "scripts send the token they got from POST /api/v1/pair")
            }
            return
        }
        var expected = ownOrigin(host: host)
        // A browser leaves the default port out of Origin.
        if let (name, port) = Self.split(host), port == (secure ? 443 : 80) {
            expected = "\(secure ? "https" : "http")://\(name)"
        }
        guard origin.lowercased() == expected else {
            throw HTTPRefusal(
                403, "forbidden-origin", "requests from \(Redaction.sanitize(origin)) are not accepted",
                hint: "only pages this server serves, and scripts with a bearer token, may send commands")
        }
    }
}

/// How a client presented its token: in `Authorization: Bearer` (scripts) or in the
/// pairing cookie (the web remote).
public enum PresentedToken: Sendable, Equatable {
    case bearer(String)
    case cookie(String)

    public var token: String {
        switch self {
        case .bearer(let token), .cookie(let token): return token
        }
    }

    /// The cookie that carries the first half of a web remote's token.
    public static let cookieName = "photon_token"
    /// How much of the token the cookie carries; the page keeps the rest in its origin's
    /// storage and sends it as `Photon-Page-Key` (or, on the event stream, as the
    /// `photon-key.…` WebSocket subprotocol). A browser sends a host's cookies to every
    /// port of the host, so another server on this machine may receive the cookie; without
    /// the half that only this origin's page holds it is worth nothing (round 4, L5). A
    /// cross-site request cannot carry that half either.
    public static let cookieLength = 22
    public static let pageKeyHeader = "Photon-Page-Key"
    /// The subprotocol the page offers (and the door chooses) on the event stream, and the
    /// prefix of the one that carries the page's half of the token.
    public static let webSocketProtocol = "photon-web"
    public static let webSocketKeyPrefix = "photon-key."

    /// The page's half of the token from a WebSocket upgrade's offered subprotocols.
    public static func pageKey(offeredProtocols: String?) -> String? {
        guard let offeredProtocols else { return nil }
        for offered in offeredProtocols.split(separator: ",") {
            let name = offered.trimmingCharacters(in: .whitespaces)
            if name.hasPrefix(webSocketKeyPrefix) { return String(name.dropFirst(webSocketKeyPrefix.count)) }
        }
        return nil
    }

    /// Reads the token from the request's headers (a bearer token wins); nil without one.
    /// A page's token is its cookie joined with its page key; a cookie without the page
    /// key (a request from anywhere but the page, or a cookie from before the split) is no
    /// token.
    public static func from(authorization: String?, cookies: [String], pageKey: String? = nil) -> PresentedToken? {
        if let authorization {
            let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                let token = parts[1].trimmingCharacters(in: .whitespaces)
                if !token.isEmpty, token.utf8.count <= 256 { return .bearer(token) }
            }
            return nil
        }
        for header in cookies {
            for pair in header.split(separator: ";") {
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                guard let eq = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<eq] == cookieName {
                    let half = String(trimmed[trimmed.index(after: eq)...])
                    guard half.utf8.count == cookieLength, let pageKey, !pageKey.isEmpty, pageKey.utf8.count <= 256 else { return nil }
                    return .cookie(half + pageKey)
                }
            }
        }
        return nil
    }
}

/// A token bucket per client: `burst` requests at once, refilled at `perSecond`.
public struct RateLimiter: Sendable {
    public var perSecond: Double
    public var burst: Double
    private var buckets: [String: (tokens: Double, at: ContinuousClock.Instant)] = [:]

    public init(perSecond: Double = 20, burst: Double = 40) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Takes one request for `client`; false when it has none left.
    public mutating func admit(_ client: String, now: ContinuousClock.Instant) -> Bool {
        var (tokens, at) = buckets[client] ?? (burst, now)
        let elapsed = Double((now - at).components.seconds) + Double((now - at).components.attoseconds) / 1e18
        tokens = min(burst, tokens + max(0, elapsed) * perSecond)
        if buckets.count > 4096 { buckets.removeAll() }
        guard tokens >= 1 else {
            buckets[client] = (tokens, now)
            return false
        }
        buckets[client] = (tokens - 1, now)
        return true
    }
}
