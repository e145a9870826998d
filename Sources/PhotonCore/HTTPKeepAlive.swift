/// One HTTP/1.1 connection to a TV, kept open between requests (keep-alive) and reopened
/// when the TV closes it, for adapters whose protocol is HTTP requests: plain (Roku's ECP)
/// or over TLS with the pinned certificate (`security`), the same pin-with-consent rules
/// as every other transport (REST TVs), with request headers (an auth header, a cookie,
/// a JSON content type), and answers with fixed, chunked or until-close bodies, bounded by
/// `maxBody`.
/// Requests go one at a time, in order. A command (anything but GET) is sent at most once:
/// it goes on a fresh connection when the kept one has been idle for `idleReuse` (a TV
/// may have closed it meanwhile), and is never resent. Only a GET whose reused connection
/// turned out closed — no byte of an answer — is asked again on a new connection.
public final class HTTPKeepAliveClient: Sendable {
    public let endpoint: Endpoint
    public let maxBody: Int
    /// Plain, or TLS with the TV's pinned certificate (`TransportSecurity.tls`).
    public let security: TransportSecurity
    /// Sent with every request, before the request's own headers (`Accept`).
    public let defaultHeaders: [(String, String)]
    private let connector: any Connector
    private let timeout: Duration
    private let current = Locked<(any ByteStream)?>(nil)
    private let lastUse = Locked<ContinuousClock.Instant?>(nil)
    /// How long a kept connection may sit idle and still carry a command.
    public let idleReuse: Duration
    private let gate = AsyncGate()
    private let check: ConnectionCheck?

    /// Run on every new connection before its first request, with a function that sends
    /// one GET on that connection: a protocol without authentication proves this way that
    /// each connection reaches the paired TV (Roku: its serial), not only the first. A
    /// check that throws closes the connection, and its error is the request's.
    public typealias ConnectionCheck = @Sendable (_ get: (_ target: String) async throws -> HTTPClient.Response) async throws -> Void

    public init(
        endpoint: Endpoint, connector: any Connector, security: TransportSecurity = .plain, timeout: Duration, maxBody: Int = 256 * 1024,
        idleReuse: Duration = .seconds(4), defaultHeaders: [(String, String)] = [("Accept", "application/xml, text/xml, */*")],
        check: ConnectionCheck? = nil
    ) {
        self.check = check
        self.security = security
        self.defaultHeaders = defaultHeaders
        self.idleReuse = idleReuse
        self.endpoint = endpoint
        self.connector = connector
        self.timeout = timeout
        self.maxBody = maxBody
    }

    /// Sends one request and reads its answer. `target` is the path with its query;
    /// `headers` follow the client's default ones (a name or value that could split the
    /// request — a line break, a colon in a name — is refused before anything is sent).
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [], timeout: Duration? = nil
    ) async throws -> HTTPClient.Response {
        let limit = timeout ?? self.timeout
        try Self.checkRequest(method, target, headers: defaultHeaders + headers)
        return try await gate.withGate {
            if method != "GET", let last = lastUse.withLock({ $0 }), ContinuousClock.now - last > idleReuse { await drop() }
            let reused = current.withLock { $0 } != nil
            defer { lastUse.withLock { $0 = .now } }
            do {
                return try await attempt(method, target, headers: headers, body: body, timeout: limit)
            } catch is StaleConnection where reused && method == "GET" {
                return try await attempt(method, target, headers: headers, body: body, timeout: limit)
            } catch is StaleConnection {
                throw PhotonError(
                    .connectionClosed, "\(endpoint) closed the connection without answering \(method) \(target)",
                    hint: method == "GET" ? nil : "it was not sent again (it may or may not have been carried out)")
            }
        }
    }

    /// Opens the connection now, running the connection check on it, unless one is open:
    /// an adapter that learns what it needs from the check (Roku's device-info) spares a
    /// cold command a second request.
    public func open(timeout: Duration? = nil) async throws {
        try await gate.withGate {
            _ = try await stream(timeout: timeout ?? self.timeout)
            lastUse.withLock { $0 = .now }
        }
    }

    /// The connection closed before any byte of the answer.
    struct StaleConnection: Error {}

    /// Refuses what would let a value end the request line or a header early.
    static func checkRequest(_ method: String, _ target: String, headers: [(String, String)]) throws {
        func isToken(_ text: String) -> Bool {
            !text.isEmpty
                && text.unicodeScalars.allSatisfy {
                    $0.isASCII && $0.value > 0x20 && $0.value < 0x7F && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains($0)
                }
        }
        guard isToken(method) else { throw PhotonError(.usage, "an HTTP method is a token such as GET or POST") }
        guard target.hasPrefix("/"), target.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw PhotonError(.usage, "an HTTP target is a path of printable ASCII without spaces")
        }
        for (name, value) in headers {
            guard isToken(name), !value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
                throw PhotonError(.usage, "the HTTP header '\(Redaction.sanitize(name, limit: 32))' has a character that would split the request")
            }
        }
    }

    private func attempt(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async throws
        -> HTTPClient.Response
    {
        try await exchange(on: try await stream(timeout: timeout), method, target, headers: headers, body: body, timeout: timeout)
    }

    /// The open connection, or a new one that passed the connection check.
    private func stream(timeout: Duration) async throws -> any ByteStream {
        if let open = current.withLock({ $0 }) { return open }
        let stream = try await connector.openByteStream(to: endpoint, security: security, timeout: timeout)
        current.withLock { $0 = stream }
        if let check {
            do {
                try await CommandDeadline.exempt {
                    try await check { target in try await self.exchange(on: stream, "GET", target, headers: [], body: [], timeout: timeout) }
                }
            } catch let stale as StaleConnection {
                throw PhotonError(.connectionClosed, "\(endpoint) closed a new connection before answering (\(stale))")
            } catch {
                await drop()
                throw error
            }
        }
        return stream
    }

    /// One request and its answer on `stream`.
    private func exchange(
        on stream: any ByteStream, _ method: String, _ target: String, headers extra: [(String, String)], body: [UInt8], timeout: Duration
    ) async throws -> HTTPClient.Response {
        var headers: [(String, String)] = [("Host", endpoint.description)] + defaultHeaders + extra
        if method != "GET" || !body.isEmpty { headers.append(("Content-Length", String(body.count))) }
        try CommandDeadline.checkBeforeSending()
        do {
            try await stream.write(HTTPHead(startLine: "\(method) \(target) HTTP/1.1", headers: headers).bytes + body, timeout: timeout)
        } catch let error as PhotonError where error.code == .connectionClosed {
            await drop()
            throw StaleConnection()
        }
        let end = ContinuousClock.now + timeout
        var parser = HTTPResponseParser(maxBody: maxBody)
        var received = 0
        do {
            while true {
                if let response = try parser.next() {
                    if response.head.header("Connection", contains: "close") { await drop() }
                    return response
                }
                let remaining = end - ContinuousClock.now
                guard remaining > .zero else { throw PhotonError(.timeout, "\(endpoint) did not answer \(method) \(target) in time") }
                let chunk = try await stream.read(maxLength: 64 * 1024, timeout: remaining)
                if chunk.isEmpty {
                    if received == 0 { throw StaleConnection() }
                    let response = try parser.next(atEnd: true)
                    await drop()
                    guard let response else { throw PhotonError(.connectionClosed, "\(endpoint) cut its answer short") }
                    return response
                }
                received += chunk.count
                parser.append(chunk)
            }
        } catch let stale as StaleConnection {
            await drop()
            throw stale
        } catch {
            // After a bad or partial answer the connection's state is unknown: start afresh.
            await drop()
            throw error
        }
    }

    /// Closes the connection (the next request opens a new one).
    public func drop() async {
        let stream = current.withLock { s -> (any ByteStream)? in
            defer { s = nil }
            return s
        }
        await stream?.close()
    }
}
