import Foundation
import PhotonCore
import PhotonNet

/// A request the door accepted for handling: its head checked, its body read in full.
struct DoorRequest: Sendable {
    let head: HTTPHead
    let method: String
    /// The origin-form target (`/api/v1/tvs?x=1`).
    let target: String
    let body: [UInt8]
    let keepsAlive: Bool
    /// Bytes that arrived after the request (a WebSocket client's first frames).
    let leftover: [UInt8]

    var path: String { String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "") }
    var query: [String: String] { HTTPServerRequest.queryParameters(of: target) }
    /// The path without its query, which may carry names a log should not keep.
    var pathForLog: String { Redaction.sanitize(String(path.prefix(200))) }
}

/// The checks on a request head, pure so they can be fuzzed: the request line, the
/// version, the header names and values, and how the body is framed. Every failure is a
/// status the client can understand; the connection then closes.
public enum HTTPRequestRules {
    public static let methods: Set<String> = ["GET", "HEAD", "POST", "DELETE"]

    /// What the head says.
    public struct Checked: Sendable, Equatable {
        public var method: String
        public var target: String
        public var contentLength: Int
        public var keepsAlive: Bool
    }

    public static func check(_ head: HTTPHead, maximumBody: Int) throws(HTTPRefusal) -> Checked {
        let parts = head.startLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw bad("the request line is not METHOD TARGET VERSION") }
        let method = String(parts[0])
        let target = String(parts[1])
        let version = String(parts[2])
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            throw HTTPRefusal(505, "bad-request", "only HTTP/1.1 is served", closesConnection: true)
        }
        guard methods.contains(method) else {
            throw HTTPRefusal(
                method.utf8.allSatisfy(isTokenByte) && !method.isEmpty ? 405 : 400, "method-not-allowed",
                "the method \(Redaction.sanitize(String(method.prefix(16)))) is not served", hint: "use GET, POST or DELETE",
                closesConnection: true)
        }
        guard target.hasPrefix("/"), target.utf8.count <= 2048, target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw bad("the request target must be a path of at most 2048 visible ASCII bytes")
        }
        var lengths: Set<String> = []
        for (name, value) in head.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else { throw bad("a header name is not a token") }
            guard value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw bad("a header value holds control characters")
            }
            if name.lowercased() == "content-length" { lengths.insert(value.trimmingCharacters(in: .whitespaces)) }
        }
        if head["Transfer-Encoding"] != nil {
            throw HTTPRefusal(
                lengths.isEmpty ? 501 : 400, "bad-request", "request bodies with a Transfer-Encoding (chunked) are not accepted",
                hint: "send the body with a Content-Length", closesConnection: true)
        }
        guard lengths.count <= 1 else { throw bad("the request has conflicting Content-Length headers") }
        var length = 0
        if let text = lengths.first {
            guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let parsed = Int(text) else {
                throw bad("Content-Length is not a number")
            }
            length = parsed
        }
        guard length <= maximumBody else {
            throw HTTPRefusal(
                413, "too-large", "the request body (\(length) bytes) is larger than \(maximumBody) bytes", closesConnection: true)
        }
        let connection = head["Connection"]?.lowercased() ?? ""
        let keepsAlive = version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        return Checked(method: method, target: target, contentLength: length, keepsAlive: keepsAlive)
    }

    static func bad(_ message: String) -> HTTPRefusal { HTTPRefusal(400, "bad-request", message, closesConnection: true) }

    /// RFC 9110 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default: return false
        }
    }
}

/// Reads one request from a connection, bounded in size and time.
enum HTTPRequestReading {
    enum Outcome: Sendable {
        /// A request, and whether more bytes followed it (pipelining: answered, then closed).
        case request(DoorRequest, pipelined: Bool)
        case refused(HTTPRefusal)
    }

    /// Throws when the connection closed or went idle between requests (nothing to answer).
    static func read(from stream: any ByteStream, maximumHead: Int, maximumBody: Int, timeout: Duration, first: Bool) async throws
        -> Outcome
    {
        let head: HTTPHead
        var rest: [UInt8]
        do {
            (head, rest) = try await HTTPHeadReader.read(from: stream, limit: maximumHead, timeout: timeout)
        } catch let error as PhotonError {
            switch error.code {
            case .messageTooLarge:
                return .refused(
                    HTTPRefusal(431, "headers-too-large", "the request head is larger than \(maximumHead) bytes", closesConnection: true))
            case .protocolViolation: return .refused(HTTPRequestRules.bad(error.message))
            case .timeout where first:
                return .refused(HTTPRefusal(408, "timeout", "the request did not arrive in time", closesConnection: true))
            default: throw error
            }
        }
        let checked: HTTPRequestRules.Checked
        do {
            checked = try HTTPRequestRules.check(head, maximumBody: maximumBody)
        } catch {
            return .refused(error)
        }
        let end = ContinuousClock.now + timeout
        while rest.count < checked.contentLength {
            let remaining = end - ContinuousClock.now
            guard remaining > .zero else {
                return .refused(HTTPRefusal(408, "timeout", "the request body did not arrive in time", closesConnection: true))
            }
            let chunk: [UInt8]
            do {
                chunk = try await stream.read(maxLength: checked.contentLength - rest.count, timeout: remaining)
            } catch let error as PhotonError where error.code == .timeout {
                return .refused(HTTPRefusal(408, "timeout", "the request body did not arrive in time", closesConnection: true))
            }
            if chunk.isEmpty { throw PhotonError(.connectionClosed, "the client closed inside a request body") }
            rest += chunk
        }
        let body = Array(rest[..<checked.contentLength])
        let leftover = Array(rest[checked.contentLength...])
        let request = DoorRequest(
            head: head, method: checked.method, target: checked.target, body: body, keepsAlive: checked.keepsAlive, leftover: leftover)
        return .request(request, pipelined: !leftover.isEmpty)
    }
}

/// An answer the door writes: JSON, a page, or nothing more (the connection became a
/// WebSocket).
struct HTTPAnswer: Sendable {
    enum Kind: Sendable {
        case body
        case upgraded
    }
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]
    var closesConnection = false
    var kind = Kind.body

    /// Headers every answer carries: nothing is cached, sniffed, framed or referred, and
    /// never a CORS header.
    static let common: [(String, String)] = [
        ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
    ]

    static func json(_ status: Int, _ value: JSONValue, headers: [(String, String)] = []) -> HTTPAnswer {
        HTTPAnswer(
            status: status, headers: [("Content-Type", "application/json")] + headers, body: Array((value.encoded + "\n").utf8))
    }

    static func refusal(_ refusal: HTTPRefusal) -> HTTPAnswer {
        var answer = json(refusal.status, refusal.json)
        answer.closesConnection = refusal.closesConnection
        if refusal.status == 401 { answer.headers.append(("WWW-Authenticate", "Bearer realm=\"photon\"")) }
        return answer
    }

    static var upgraded: HTTPAnswer { HTTPAnswer(status: 101, headers: [], body: [], kind: .upgraded) }

    func encoded(keepAlive: Bool, head: Bool = false) -> [UInt8] {
        var fields = [("Content-Length", String(body.count))] + headers + Self.common
        fields.append(("Connection", keepAlive ? "keep-alive" : "close"))
        let start = HTTPHead(startLine: "HTTP/1.1 \(status) \(HTTPRefusal.reason(status))", headers: fields)
        return start.bytes + (head ? [] : body)
    }
}

/// What reading one request came to, in terms a fuzz target can check: the door's reader
/// is played slow, silent, stalling and closing clients (Fuzz/Sources/FuzzHTTPDoorClients)
/// and must answer each with a request within its limits, a refusal it can send, or a
/// clean end, and never hang.
public enum HTTPDoorReadingOutcome: Sendable, Equatable {
    case request(bodyBytes: Int, leftoverBytes: Int)
    case refused(status: Int)
    /// The connection closed or went idle: nothing to answer.
    case ended

    /// Reads one request from `stream` as the door does.
    public static func reading(
        _ stream: any ByteStream, maximumHead: Int = 16 * 1024, maximumBody: Int = 16 * 1024, timeout: Duration = .seconds(10),
        first: Bool = true
    ) async -> HTTPDoorReadingOutcome {
        do {
            switch try await HTTPRequestReading.read(
                from: stream, maximumHead: maximumHead, maximumBody: maximumBody, timeout: timeout, first: first)
            {
            case .request(let request, _): return .request(bodyBytes: request.body.count, leftoverBytes: request.leftover.count)
            case .refused(let refusal): return .refused(status: refusal.status)
            }
        } catch {
            return .ended
        }
    }
}
