/// How the body of an HTTP/1.1 response is delimited, read from its head with every
/// number checked: a TV (or anything answering at its address) controls these headers,
/// so a negative, huge, repeated or non-decimal length is an error, never a trap.
public enum HTTPBodyFraming: Sendable, Equatable {
    /// No body (1xx, 204, 304).
    case none
    /// Exactly this many bytes.
    case length(Int)
    /// `Transfer-Encoding: chunked`.
    case chunked
    /// Everything until the server closes the connection.
    case untilClose

    /// The framing a response head declares. Refuses lengths over `maxBody`.
    public static func of(response head: HTTPHead, status: Int, maxBody: Int) throws -> HTTPBodyFraming {
        if (100..<200).contains(status) || status == 204 || status == 304 { return .none }
        let encodings = head.headers.filter { $0.name.lowercased() == "transfer-encoding" }
            .flatMap { $0.value.split(separator: ",").map { String($0).trimmingSpaces.lowercased() } }
            .filter { !$0.isEmpty }
        let lengths = head.headers.filter { $0.name.lowercased() == "content-length" }
        if !encodings.isEmpty {
            // RFC 9112 §6.1: chunked must come last; both headers together is how
            // request smuggling starts, so it is refused rather than guessed at.
            guard lengths.isEmpty else {
                throw PhotonError(.protocolViolation, "the HTTP answer has both Transfer-Encoding and Content-Length")
            }
            guard encodings.last == "chunked", encodings.allSatisfy({ $0 == "chunked" || $0 == "identity" }),
                encodings.filter({ $0 == "chunked" }).count == 1
            else {
                throw PhotonError(
                    .unsupported,
                    "the HTTP answer uses a transfer coding Photon does not decode (\(Redaction.sanitize(encodings.joined(separator: ", "), limit: 60)))"
                )
            }
            return .chunked
        }
        guard !lengths.isEmpty else { return .untilClose }
        // Repeated headers, or one header with a list, are accepted only when every value
        // is the same decimal number (RFC 9110 §8.6).
        var value: Int?
        for field in lengths {
            for part in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                let parsed = try contentLength(String(part).trimmingSpaces, maxBody: maxBody)
                guard value == nil || value == parsed else {
                    throw PhotonError(.protocolViolation, "the HTTP answer has conflicting Content-Length values")
                }
                value = parsed
            }
        }
        return .length(value ?? 0)
    }

    /// The body length, for a message framed by Content-Length (0 without one).
    public var contentLength: Int {
        if case .length(let n) = self { return n }
        return 0
    }

    /// A Content-Length value: ASCII digits only (no sign, no spaces), at most `maxBody`.
    static func contentLength(_ text: String, maxBody: Int) throws -> Int {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.allSatisfy({ (48...57).contains($0) }) else {
            throw PhotonError(.protocolViolation, "the HTTP answer has an invalid Content-Length '\(Redaction.sanitize(text, limit: 30))'")
        }
        // Leading zeros are legal; the number's size is checked without overflowing.
        var value = 0
        for digit in digits {
            value = value * 10 + Int(digit - 48)
            guard value <= maxBody else {
                throw PhotonError(.messageTooLarge, "the HTTP answer announces a body larger than \(maxBody) bytes")
            }
        }
        return value
    }
}

/// Decodes `Transfer-Encoding: chunked` incrementally: sizes are ASCII hex, bounded
/// before any arithmetic, and the whole body is bounded by `maxBody`.
public struct HTTPChunkedDecoder: Sendable {
    enum State: Sendable, Equatable {
        case size
        case data(Int)
        case dataEnd, trailer, done
    }

    public let maxBody: Int
    /// The longest size or trailer line accepted (extensions included).
    public static let maxLineLength = 4096
    private(set) var state: State = .size
    public private(set) var body: [UInt8] = []

    public init(maxBody: Int) { self.maxBody = maxBody }

    public var isComplete: Bool { state == .done }

    /// Consumes what it can of `queue`; returns when it needs more bytes or is complete.
    public mutating func consume(_ queue: inout ByteQueue) throws {
        while true {
            switch state {
            case .done: return
            case .size:
                guard let line = try Self.takeLine(&queue) else { return }
                state = try chunkSize(line).map { .data($0) } ?? .trailer
            case .data(let remaining):
                let n = min(remaining, queue.count)
                guard n > 0 else { return }
                body += queue.bytes(0..<n)
                queue.consume(n)
                state = remaining - n == 0 ? .dataEnd : .data(remaining - n)
            case .dataEnd:
                guard queue.count >= 2 else { return }
                guard queue[0] == 13, queue[1] == 10 else {
                    throw PhotonError(.protocolViolation, "a chunk of the HTTP answer does not end with CRLF")
                }
                queue.consume(2)
                state = .size
            case .trailer:
                guard let line = try Self.takeLine(&queue) else { return }
                if line.isEmpty { state = .done }
            }
        }
    }

    /// The size of the next chunk, or nil for the last (zero) chunk.
    private func chunkSize(_ line: [UInt8]) throws -> Int? {
        let sizePart = line.prefix { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        guard !sizePart.isEmpty, sizePart.count <= 15 else {
            throw PhotonError(.protocolViolation, "a chunk size of the HTTP answer is missing or too long")
        }
        var size = 0
        for byte in sizePart {
            guard let digit = asciiHexValue(byte) else {
                throw PhotonError(.protocolViolation, "a chunk size of the HTTP answer is not hexadecimal")
            }
            size = size << 4 | Int(digit)
        }
        if size == 0 { return nil }
        guard size <= maxBody - body.count else {
            throw PhotonError(.messageTooLarge, "the HTTP answer is larger than \(maxBody) bytes")
        }
        return size
    }

    /// One CRLF-terminated line without its CRLF, or nil if it is not complete yet.
    static func takeLine(_ queue: inout ByteQueue) throws -> [UInt8]? {
        var i = 0
        while i + 1 < queue.count {
            if queue[i] == 13 && queue[i + 1] == 10 {
                let line = queue.bytes(0..<i)
                queue.consume(i + 2)
                return line
            }
            i += 1
        }
        guard queue.count <= maxLineLength else {
            throw PhotonError(.messageTooLarge, "a line of the HTTP answer is longer than \(maxLineLength) bytes")
        }
        return nil
    }
}

func asciiHexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 48...57: return byte - 48
    case 65...70: return byte - 55
    case 97...102: return byte - 87
    default: return nil
    }
}

/// A whole HTTP/1.1 response parsed from bytes as they arrive: head, interim 1xx answers
/// skipped, body by Content-Length, chunked or close, every limit enforced. Pure, so the
/// fuzzer drives the same code the REST calls use.
public struct HTTPResponseParser: Sendable {
    public let maxHead: Int
    public let maxBody: Int
    private var queue = ByteQueue()
    private var head: HTTPHead?
    private var status = 0
    private var framing: HTTPBodyFraming?
    private var chunked: HTTPChunkedDecoder?
    private var interim = 0
    /// How far the head's terminator has been searched for (so each search is resumed,
    /// not repeated, as bytes arrive).
    private var scanned = 0

    public init(maxHead: Int = HTTPHeadReader.defaultLimit, maxBody: Int) {
        self.maxHead = maxHead
        self.maxBody = maxBody
    }

    public mutating func append(_ bytes: [UInt8]) { queue.append(bytes) }

    /// The offset just past the head's blank line, or nil if it has not arrived.
    private mutating func findHeadEnd() -> Int? {
        var i = max(0, scanned - 3)
        let limit = min(queue.count, maxHead + 4)
        while i + 3 < limit {
            if queue[i] == 13 && queue[i + 1] == 10 && queue[i + 2] == 13 && queue[i + 3] == 10 { return i + 4 }
            i += 1
        }
        scanned = limit
        return nil
    }

    /// The response once it is complete; nil while more bytes are needed. With
    /// `atEnd` (the connection closed), an incomplete response is an error.
    public mutating func next(atEnd: Bool = false) throws -> HTTPClient.Response? {
        while head == nil {
            guard let end = findHeadEnd() else {
                if queue.count > maxHead {
                    throw PhotonError(.messageTooLarge, "the HTTP head is larger than \(maxHead) bytes")
                }
                if atEnd {
                    throw PhotonError(.connectionClosed, "the connection closed before the HTTP head was complete")
                }
                return nil
            }
            guard end <= maxHead else {
                throw PhotonError(.messageTooLarge, "the HTTP head is larger than \(maxHead) bytes")
            }
            let parsed = try HTTPHead.parse(queue.bytes(0..<(end - 4))[...])
            queue.consume(end)
            scanned = 0
            guard let code = parsed.statusCode else { throw PhotonError(.protocolViolation, "the answer is not an HTTP response") }
            if (100..<200).contains(code) && code != 101 {
                interim += 1
                guard interim <= 8 else { throw PhotonError(.protocolViolation, "too many interim HTTP answers") }
                continue
            }
            head = parsed
            status = code
            framing = try HTTPBodyFraming.of(response: parsed, status: code, maxBody: maxBody)
            if framing == .chunked { chunked = HTTPChunkedDecoder(maxBody: maxBody) }
        }
        guard let head, let framing else { return nil }
        switch framing {
        case .none:
            return HTTPClient.Response(status: status, head: head, body: [])
        case .length(let length):
            if queue.count >= length { return HTTPClient.Response(status: status, head: head, body: queue.bytes(0..<length)) }
            if atEnd { throw PhotonError(.connectionClosed, "the HTTP answer was cut short (\(queue.count) of \(length) bytes)") }
            return nil
        case .chunked:
            try chunked!.consume(&queue)
            if chunked!.isComplete { return HTTPClient.Response(status: status, head: head, body: chunked!.body) }
            if atEnd { throw PhotonError(.connectionClosed, "the chunked HTTP answer was cut short") }
            return nil
        case .untilClose:
            guard queue.count <= maxBody else {
                throw PhotonError(.messageTooLarge, "the HTTP answer is larger than \(maxBody) bytes")
            }
            return atEnd ? HTTPClient.Response(status: status, head: head, body: queue.bytes(0..<queue.count)) : nil
        }
    }
}
