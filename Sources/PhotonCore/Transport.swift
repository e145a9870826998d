/// Where a TV listens: a host (IPv4, IPv6 or name) and a port.
public struct Endpoint: Sendable, Hashable, Codable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST[:PORT]`, with IPv6 in brackets (`[::1]:6466`). A bare IPv6 address
    /// without brackets is accepted when it has no port.
    public init(parsing text: String, defaultPort: UInt16) throws {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else {
            throw PhotonError(.usage, "empty address", hint: "give HOST or HOST:PORT, e.g. 127.0.0.1:6466")
        }
        func port(_ s: Substring) throws -> UInt16 {
            guard let value = UInt16(s), value > 0 else {
                throw PhotonError(
                    .usage, "invalid port '\(s)' in address '\(text)'", hint: "a port is a number from 1 to 65535")
            }
            return value
        }
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]") else {
                throw PhotonError(.usage, "unclosed '[' in address '\(text)'", hint: "write IPv6 as [::1]:6466")
            }
            host = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
            let rest = trimmed[trimmed.index(after: close)...]
            if rest.isEmpty {
                self.port = defaultPort
            } else if rest.hasPrefix(":") {
                self.port = try port(rest.dropFirst())
            } else {
                throw PhotonError(.usage, "unexpected text after ']' in '\(text)'", hint: "write IPv6 as [::1]:6466")
            }
        } else if trimmed.filter({ $0 == ":" }).count > 1 {
            host = trimmed
            self.port = defaultPort
        } else if let colon = trimmed.firstIndex(of: ":") {
            host = String(trimmed[..<colon])
            self.port = try port(trimmed[trimmed.index(after: colon)...])
        } else {
            host = trimmed
            self.port = defaultPort
        }
        guard !host.isEmpty else {
            throw PhotonError(.usage, "missing host in address '\(text)'", hint: "give HOST or HOST:PORT")
        }
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension String {
    public var trimmingSpaces: String {
        var s = Substring(self)
        while let first = s.first, first.isWhitespace { s.removeFirst() }
        while let last = s.last, last.isWhitespace { s.removeLast() }
        return String(s)
    }
}

/// The SHA-256 fingerprint of a certificate's DER encoding: what a TV is pinned to.
public struct CertificateFingerprint: Sendable, Hashable, Codable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws {
        guard bytes.count == 32 else {
            throw PhotonError(.usage, "a SHA-256 fingerprint has 32 bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Parses 64 hex digits, with or without colons or spaces, in any case.
    public init(hex: String) throws {
        var digits: [UInt8] = []
        for ch in hex.unicodeScalars where ch != ":" && ch != " " {
            guard let v = hexValue(ch) else {
                throw PhotonError(
                    .usage, "the fingerprint has a character that is not hex: '\(ch)'",
                    hint: "give the 64 hex digits shown by `photon pair` (colons optional)")
            }
            digits.append(v)
        }
        guard digits.count == 64 else {
            throw PhotonError(
                .usage, "a SHA-256 fingerprint has 64 hex digits, this one has \(digits.count)",
                hint: "copy the whole fingerprint shown by `photon pair`")
        }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for i in stride(from: 0, to: 64, by: 2) { out.append(digits[i] << 4 | digits[i + 1]) }
        bytes = out
    }

    /// Upper-case hex pairs joined by colons, as `openssl x509 -fingerprint` prints.
    public var description: String { bytes.map { hexByte($0) }.joined(separator: ":") }
    /// Lower-case hex without separators.
    public var compactHex: String { bytes.map { hexByte($0).lowercased() }.joined() }
    /// The first 8 hex digits and a redaction mark, for diagnostic reports.
    public var redacted: String { String(compactHex.prefix(8)) + "[REDACTED]" }

    public init(from decoder: any Decoder) throws {
        try self.init(hex: try decoder.singleValueContainer().decode(String.self))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(compactHex)
    }
}

func hexValue(_ ch: Unicode.Scalar) -> UInt8? {
    switch ch {
    case "0"..."9": return UInt8(ch.value - 48)
    case "a"..."f": return UInt8(ch.value - 87)
    case "A"..."F": return UInt8(ch.value - 55)
    default: return nil
    }
}

public func hexByte(_ b: UInt8) -> String {
    let digits: [Character] = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
}

/// What we know of a certificate seen on a connection: its DER, fingerprint, subject and
/// (for RSA keys) modulus and public exponent as unsigned big-endian bytes, which some
/// brands compute their pairing secret from.
public struct CertificateInfo: Sendable, Hashable {
    public var der: [UInt8]
    public var fingerprint: CertificateFingerprint
    /// The subject as one line, RFC 2253 style (`CN=...,O=...`).
    public var subject: String
    public var commonName: String?
    public var rsaModulus: [UInt8]?
    public var rsaExponent: [UInt8]?

    public init(
        der: [UInt8], fingerprint: CertificateFingerprint, subject: String, commonName: String?,
        rsaModulus: [UInt8]?, rsaExponent: [UInt8]?
    ) {
        self.der = der
        self.fingerprint = fingerprint
        self.subject = subject
        self.commonName = commonName
        self.rsaModulus = rsaModulus
        self.rsaExponent = rsaExponent
    }
}

/// This installation's TLS client identity: a PEM certificate and its private key.
public struct ClientIdentity: Sendable, Hashable {
    public var certificatePEM: String
    public var privateKeyPEM: String
    public init(certificatePEM: String, privateKeyPEM: String) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }
}

/// How a TLS client decides whether to trust the TV. There is deliberately no
/// "accept anything": either the certificate must match a stored pin, or it is captured
/// for a first-use decision that the caller must put to the user before sending anything.
public enum ServerTrust: Sendable, Hashable {
    case pinned(CertificateFingerprint)
    case captureForFirstUse
}

/// Where the TLS sessions of pinned connections are kept between processes, so that a
/// cold `photon key` resumes the last session with its TV instead of running a full
/// handshake (no certificate signature by the TV, none by us, no certificate to parse).
/// A session is a secret (it holds the resumption key): implementations keep it like the
/// secret store (0600). Keys are opaque hex digests (of the address, the pin and the
/// client identity), never a TV's name or address. Every method is quick and synchronous
/// (it is called from inside a TLS read); a failure only means a full handshake next time.
public protocol TLSSessionStore: Sendable {
    /// The stored session for `key`, DER-encoded, if any.
    func session(for key: String) -> [UInt8]?
    /// Keeps `session` (DER) for `key`, replacing what was there.
    func save(_ session: [UInt8], for key: String)
    /// Drops the session for `key` (the TV refused it, or it expired).
    func removeSession(for key: String)
}

/// The security of a transport: plain, or TLS with an optional client identity.
public enum TransportSecurity: Sendable, Hashable {
    case plain
    case tls(TLSClientOptions)

    public var isTLS: Bool {
        if case .tls = self { return true }
        return false
    }
}

/// TLS settings for a client connection to a TV.
public struct TLSClientOptions: Sendable, Hashable {
    public var identity: ClientIdentity?
    public var trust: ServerTrust
    /// SNI name; nil sends none (TVs are addressed by IP).
    public var serverName: String?
    public var minimumVersion: TLSVersion
    public var maximumVersion: TLSVersion

    public init(
        identity: ClientIdentity? = nil, trust: ServerTrust, serverName: String? = nil,
        minimumVersion: TLSVersion = .tls12, maximumVersion: TLSVersion = .tls13
    ) {
        self.identity = identity
        self.trust = trust
        self.serverName = serverName
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
    }
}

public enum TLSVersion: String, Sendable, Hashable, Codable, Comparable {
    case tls12 = "TLSv1.2"
    case tls13 = "TLSv1.3"
    public static func < (a: TLSVersion, b: TLSVersion) -> Bool { a == .tls12 && b == .tls13 }
}

/// A connected, ordered byte stream to a TV (TCP or TLS). Reads and writes may be
/// called from different tasks; each is serialized internally. Every wait is bounded by
/// the stream's timeout or the one given.
public protocol ByteStream: AnyObject, Sendable {
    /// The peer's certificate, for TLS streams.
    var peerCertificate: CertificateInfo? { get }
    /// Our own certificate, for TLS streams with a client identity.
    var localCertificate: CertificateInfo? { get }
    /// Reads at least one byte and at most `maxLength`; an empty array means the peer
    /// closed the stream. Throws `timeout` when nothing arrives in time (nil: no limit).
    func read(maxLength: Int, timeout: Duration?) async throws -> [UInt8]
    /// Writes all bytes, or throws.
    func write(_ bytes: [UInt8], timeout: Duration?) async throws
    /// Closes the stream; pending and later reads end. Safe to call more than once.
    func close() async
    /// The executor a task that mostly waits on this stream should prefer (for sockets,
    /// the event loop's thread, where readiness is seen), or nil for the default pool.
    var preferredExecutor: (any TaskExecutor)? { get }
    /// Lets what arrives wait a few tens of milliseconds to be handled together with other
    /// connections' (far fewer wake-ups for a process holding thousands). For a session's
    /// steady state, where pings and state reports need no instant answer; not for a
    /// connection whose requests wait on answers. A no-op where unsupported.
    func allowBatchedReadiness()
}

extension ByteStream {
    public var preferredExecutor: (any TaskExecutor)? { nil }
    public func allowBatchedReadiness() {}
    public func read(maxLength: Int) async throws -> [UInt8] { try await read(maxLength: maxLength, timeout: nil) }
    public func write(_ bytes: [UInt8]) async throws { try await write(bytes, timeout: nil) }
}

/// A WebSocket message.
public enum WebSocketMessage: Sendable, Hashable {
    case text(String)
    case binary([UInt8])
}

/// A connected message stream (WebSocket) to a TV. Pings are answered by the
/// implementation while `receive` is being called.
public protocol MessageStream: AnyObject, Sendable {
    var peerCertificate: CertificateInfo? { get }
    /// The next message, or nil once the peer closed the stream (cleanly or not: see
    /// `closeCode`).
    func receive(timeout: Duration?) async throws -> WebSocketMessage?
    func send(_ message: WebSocketMessage) async throws
    /// Starts the close handshake and closes the connection.
    func close(code: UInt16, reason: String) async
    /// The close code the peer sent (1005 when it sent none, 1006 when the connection
    /// dropped without a close frame); nil while open.
    var closeCode: UInt16? { get async }
    /// Sends a ping. The pong, like any frame, shows as `lastActivity` (while a receive
    /// loop runs) — how a long-lived session notices a peer that went silent.
    func sendPing() async throws
    /// When the peer last sent anything; nil if the stream cannot tell.
    var lastActivity: ContinuousClock.Instant? { get }
}

extension MessageStream {
    /// Streams without pings (in-memory test pairs) do nothing.
    public func sendPing() async throws {}
    public var lastActivity: ContinuousClock.Instant? { nil }
}

/// What an adapter asks for to open a WebSocket to a TV.
public struct MessageStreamRequest: Sendable, Hashable {
    public var endpoint: Endpoint
    /// Path and query, e.g. `/api/v2/channels/remote?name=...`.
    public var target: String
    public var security: TransportSecurity
    public var headers: [String: String]
    public var maxMessageSize: Int

    public init(
        endpoint: Endpoint, target: String, security: TransportSecurity, headers: [String: String] = [:],
        maxMessageSize: Int = 1 << 20
    ) {
        self.endpoint = endpoint
        self.target = target
        self.security = security
        self.headers = headers
        self.maxMessageSize = maxMessageSize
    }
}

/// How an adapter reaches the network. PhotonNet implements it over sockets and
/// OpenSSL; tests inject an in-memory one. Adapters never open sockets themselves.
public protocol Connector: Sendable {
    func openByteStream(to endpoint: Endpoint, security: TransportSecurity, timeout: Duration) async throws
        -> any ByteStream
    func openMessageStream(_ request: MessageStreamRequest, timeout: Duration) async throws -> any MessageStream
    /// Runs the WebSocket handshake for `request` over a stream that is already open —
    /// so an adapter can ask for consent to the TV's certificate before sending anything.
    func upgradeToMessageStream(_ stream: any ByteStream, request: MessageStreamRequest, timeout: Duration) async throws
        -> any MessageStream
}
