import Foundation
import PhotonCore
import PhotonCrypto

/// The client side of the WebSocket opening handshake.
public enum WebSocketClient {
    /// Upgrades `stream` to a WebSocket for `target` (path and query) on `host`.
    /// A refusal (any status but 101) is reported with the status, and the URL query,
    /// which may hold a token, never appears in errors or logs.
    public static func connect(
        over stream: any ByteStream, host: String, target: String, headers: [String: String] = [:],
        maxMessageSize: Int = 1 << 20, timeout: Duration, log: PhotonLog = .silent
    ) async throws -> WebSocketConnection {
        let key = Data(try SecureRandom.bytes(16)).base64EncodedString()
        var fields: [(String, String)] = [
            ("Host", host), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", "13"),
        ]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields.append((name, value)) }
        let request = HTTPHead(startLine: "GET \(target) HTTP/1.1", headers: fields)
        log.debug("WebSocket upgrade GET \(redactedTarget(target)) on \(host)")
        try await stream.write(request.bytes, timeout: timeout)
        let (response, rest) = try await HTTPHeadReader.read(from: stream, timeout: timeout)
        guard let status = response.statusCode else {
            throw PhotonError(.protocolViolation, "the server's WebSocket answer is not HTTP")
        }
        guard status == 101 else {
            throw PhotonError(
                status == 401 || status == 403 ? .authenticationRefused : .protocolViolation,
                "the server refused the WebSocket upgrade for \(redactedTarget(target)) with HTTP \(status)",
                hint: "check the port and that the TV's remote control service is on")
        }
        guard response.header("Upgrade", contains: "websocket"), response.header("Connection", contains: "upgrade"),
            response["Sec-WebSocket-Accept"] == webSocketAccept(forKey: key)
        else {
            throw PhotonError(.protocolViolation, "the server's WebSocket handshake answer is invalid")
        }
        return WebSocketConnection(stream: stream, role: .client, maxMessageSize: maxMessageSize, bufferedBytes: rest)
    }

    /// The request target with its query values replaced, for logs and errors.
    public static func redactedTarget(_ target: String) -> String {
        guard let q = target.firstIndex(of: "?") else { return target }
        let query = target[target.index(after: q)...].split(separator: "&").map { part -> String in
            guard let eq = part.firstIndex(of: "=") else { return String(part) }
            return part[..<eq] + "=[REDACTED]"
        }
        return target[...q] + query.joined(separator: "&")
    }
}

/// A request read on a server connection, before deciding to answer it over HTTP or to
/// upgrade it to a WebSocket (emulated TVs serve REST and WebSocket on one port).
public struct HTTPServerRequest: Sendable {
    public let head: HTTPHead
    public let method: String
    public let target: String
    public let body: [UInt8]
    let stream: any ByteStream
    let leftover: [UInt8]

    /// A request whose head and body the caller read itself; `leftover` holds bytes that
    /// arrived after it (a WebSocket client's first frames).
    public init(head: HTTPHead, method: String, target: String, body: [UInt8], stream: any ByteStream, leftover: [UInt8] = []) {
        self.head = head
        self.method = method
        self.target = target
        self.body = body
        self.stream = stream
        self.leftover = leftover
    }

    /// The path without the query.
    public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }

    /// Decoded query parameters.
    public var query: [String: String] { Self.queryParameters(of: target) }

    /// The query parameters of a request target (`?a=1&b`), percent-decoded. Any text
    /// parses: empty names (`?=x`), empty parts and bad escapes included; the first
    /// value of a repeated name wins.
    public static func queryParameters(of target: String) -> [String: String] {
        guard let q = target.firstIndex(of: "?") else { return [:] }
        var out: [String: String] = [:]
        for part in target[target.index(after: q)...].split(separator: "&") {
            let name: Substring
            let value: Substring
            if let eq = part.firstIndex(of: "=") {
                name = part[..<eq]
                value = part[part.index(after: eq)...]
            } else {
                name = part
                value = ""
            }
            let decodedName = String(name).removingPercentEncoding ?? String(name)
            guard !decodedName.isEmpty, out[decodedName] == nil else { continue }
            out[decodedName] = String(value).removingPercentEncoding ?? String(value)
        }
        return out
    }

    public var isWebSocketUpgrade: Bool {
        method == "GET" && head.header("Upgrade", contains: "websocket") && head.header("Connection", contains: "upgrade")
    }

    /// Reads one request (head and a Content-Length body up to `maxBody`).
    public static func read(from stream: any ByteStream, maxBody: Int = 1 << 20, timeout: Duration) async throws
        -> HTTPServerRequest
    {
        let (head, rest) = try await HTTPHeadReader.read(from: stream, timeout: timeout)
        guard let (method, target) = head.requestLine else {
            throw PhotonError(.protocolViolation, "not an HTTP/1.x request")
        }
        var body = rest
        guard head["Transfer-Encoding"] == nil else {
            throw PhotonError(.unsupported, "request bodies with a Transfer-Encoding are not accepted")
        }
        let length = try HTTPBodyFraming.of(response: head, status: 200, maxBody: maxBody).contentLength
        let end = ContinuousClock.now + timeout
        while body.count < length {
            let chunk = try await stream.read(maxLength: length - body.count, timeout: end - ContinuousClock.now)
            if chunk.isEmpty { throw PhotonError(.connectionClosed, "the connection closed inside a request body") }
            body += chunk
        }
        let leftover = Array(body[length...])
        return HTTPServerRequest(
            head: head, method: method, target: target, body: Array(body[..<length]), stream: stream,
            leftover: leftover)
    }

    /// Answers with a plain HTTP response (the connection stays open for the next
    /// request if the client wants).
    public func respond(status: Int, reason: String, headers: [String: String] = [:], body: [UInt8] = []) async throws {
        var fields: [(String, String)] = [("Content-Length", String(body.count))]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields.append((name, value)) }
        let head = HTTPHead(startLine: "HTTP/1.1 \(status) \(reason)", headers: fields)
        try await stream.write(head.bytes + body, timeout: .seconds(10))
    }

    /// Completes the WebSocket handshake for this request, choosing `subprotocol` (one the
    /// client offered) when given.
    public func upgrade(maxMessageSize: Int = 1 << 20, subprotocol: String? = nil) async throws -> WebSocketConnection {
        guard isWebSocketUpgrade, let key = head["Sec-WebSocket-Key"], head["Sec-WebSocket-Version"] == "13",
            Data(base64Encoded: key)?.count == 16
        else {
            try? await respond(status: 400, reason: "Bad Request", headers: ["Sec-WebSocket-Version": "13"])
            throw PhotonError(.protocolViolation, "invalid WebSocket upgrade request")
        }
        var fields = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", webSocketAccept(forKey: key))]
        if let subprotocol { fields.append(("Sec-WebSocket-Protocol", subprotocol)) }
        let response = HTTPHead(startLine: "HTTP/1.1 101 Switching Protocols", headers: fields)
        try await stream.write(response.bytes, timeout: .seconds(10))
        return WebSocketConnection(stream: stream, role: .server, maxMessageSize: maxMessageSize, bufferedBytes: leftover)
    }
}
