import Foundation

/// The head of an HTTP/1.1 request or response (start line and headers), as used by
/// the WebSocket handshake and the small REST calls TVs need. Header names compare
/// case-insensitively.
public struct HTTPHead: Sendable, Hashable {
    /// `GET /path HTTP/1.1` or `HTTP/1.1 101 Switching Protocols`, split on spaces.
    public var startLine: String
    public var headers: [(name: String, value: String)]

    public init(startLine: String, headers: [(name: String, value: String)]) {
        self.startLine = startLine
        self.headers = headers
    }

    public static func == (a: HTTPHead, b: HTTPHead) -> Bool {
        a.startLine == b.startLine && a.headers.map(\.name) == b.headers.map(\.name)
            && a.headers.map(\.value) == b.headers.map(\.value)
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(startLine) }

    public subscript(name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Whether a comma-separated header contains `token` (case-insensitive).
    public func header(_ name: String, contains token: String) -> Bool {
        headers.filter { $0.name.lowercased() == name.lowercased() }
            .flatMap { $0.value.split(separator: ",").map(String.init) }
            .contains { Self.trimmingOptionalWhitespace($0[...]).lowercased() == token.lowercased() }
    }

    /// For a request: method and target.
    public var requestLine: (method: String, target: String)? {
        let parts = startLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// For a response: the status code (three digits, 100–599).
    public var statusCode: Int? {
        let parts = startLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].utf8.count == 3,
            parts[1].utf8.allSatisfy({ (48...57).contains($0) }), let code = Int(parts[1]), (100...599).contains(code)
        else { return nil }
        return code
    }

    /// Serializes the head, ending with the blank line.
    public var bytes: [UInt8] {
        var text = startLine + "\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Parses a head (without the final blank line's bytes checked again). Lines end at
    /// CR LF; a header's name and value lose the optional whitespace (spaces and tabs)
    /// around them. Works on the bytes, not through Foundation's string search and
    /// character sets: every REST command of a cold key parses one of these.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws -> HTTPHead {
        var lines: [String] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        func takeLine(upTo end: Int) throws {
            guard let line = String(validating: bytes[lineStart..<end], as: UTF8.self) else {
                throw PhotonError(.protocolViolation, "the HTTP head is not valid UTF-8")
            }
            lines.append(line)
        }
        while index < bytes.endIndex {
            if bytes[index] == 13, index + 1 < bytes.endIndex, bytes[index + 1] == 10 {
                try takeLine(upTo: index)
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        try takeLine(upTo: bytes.endIndex)
        while lines.last == "" { lines.removeLast() }
        guard let start = lines.first, !start.isEmpty else {
            throw PhotonError(.protocolViolation, "empty HTTP head")
        }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")), colon != line.startIndex else {
                throw PhotonError(.protocolViolation, "malformed HTTP header line: \(Redaction.sanitize(line, limit: 80))")
            }
            headers.append(
                (
                    trimmingOptionalWhitespace(line[..<colon]),
                    trimmingOptionalWhitespace(line[line.utf8.index(after: colon)...])
                ))
        }
        return HTTPHead(startLine: start, headers: headers)
    }

    /// `text` without the spaces and tabs at either end (HTTP's optional whitespace).
    static func trimmingOptionalWhitespace(_ text: Substring) -> String {
        let utf8 = text.utf8
        func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = utf8.firstIndex(where: { !isWhitespace($0) }),
            let last = utf8.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(text[first..<utf8.index(after: last)])
    }
}

/// Reads an HTTP head from a byte stream, bounded in size and time, keeping any bytes
/// that arrived after it. In PhotonCore because adapters speak HTTP (REST calls to TVs)
/// over the byte streams their `Connector` gives them.
public struct HTTPHeadReader {
    public static let defaultLimit = 16 * 1024

    /// Returns the head and the bytes read past its end.
    public static func read(
        from stream: any ByteStream, limit: Int = defaultLimit, timeout: Duration?
    ) async throws -> (HTTPHead, [UInt8]) {
        var buffer: [UInt8] = []
        let end = timeout.map { ContinuousClock.now + $0 }
        var searchFrom = 0
        while true {
            if let range = findTerminator(buffer, from: searchFrom) {
                let head = try HTTPHead.parse(buffer[..<range.lowerBound])
                return (head, Array(buffer[range.upperBound...]))
            }
            searchFrom = max(0, buffer.count - 3)
            guard buffer.count < limit else {
                throw PhotonError(.messageTooLarge, "the HTTP head is larger than \(limit) bytes")
            }
            let remaining = end.map { $0 - ContinuousClock.now }
            if let remaining, remaining <= .zero { throw PhotonError(.timeout, "waiting for the HTTP head timed out") }
            let chunk = try await stream.read(maxLength: limit - buffer.count, timeout: remaining)
            if chunk.isEmpty {
                throw PhotonError(.connectionClosed, "the connection closed before the HTTP head was complete")
            }
            buffer += chunk
        }
    }

    static func findTerminator(_ bytes: [UInt8], from start: Int) -> Range<Int>? {
        guard bytes.count >= 4 else { return nil }
        var i = start
        while i + 3 < bytes.count {
            if bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i..<(i + 4) }
            i += 1
        }
        return nil
    }
}

/// A minimal HTTP/1.1 client for the small REST calls TVs answer (device info, app
/// launch): one request per connection, `Connection: close`, body bounded by a limit.
public enum HTTPClient {
    public struct Response: Sendable {
        public var status: Int
        public var head: HTTPHead
        public var body: [UInt8]
    }

    public static func request(
        _ method: String, _ target: String, host: String, over stream: any ByteStream, body: [UInt8] = [],
        maxBody: Int = 256 * 1024, timeout: Duration
    ) async throws -> Response {
        var headers: [(String, String)] = [("Host", host), ("Connection", "close"), ("Accept", "application/json")]
        if method != "GET" || !body.isEmpty { headers.append(("Content-Length", String(body.count))) }
        try await stream.write(HTTPHead(startLine: "\(method) \(target) HTTP/1.1", headers: headers).bytes + body, timeout: timeout)
        let end = ContinuousClock.now + timeout
        var parser = HTTPResponseParser(maxBody: maxBody)
        while true {
            let chunk: [UInt8]
            do {
                if let response = try parser.next() { return response }
                let remaining = end - ContinuousClock.now
                guard remaining > .zero else { throw PhotonError(.timeout, "the answer to \(method) \(target) timed out") }
                chunk = try await stream.read(maxLength: 64 * 1024, timeout: remaining)
            } catch let error as PhotonError where error.code == .protocolViolation {
                throw PhotonError(.protocolViolation, "the answer to \(method) \(target) is not valid HTTP: \(error.message)", hint: error.hint)
            }
            if chunk.isEmpty {
                guard let response = try parser.next(atEnd: true) else {
                    throw PhotonError(.connectionClosed, "the answer to \(target) was cut short")
                }
                return response
            }
            parser.append(chunk)
        }
    }
}
