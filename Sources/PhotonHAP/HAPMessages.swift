import Foundation
import PhotonCore

/// One HTTP request a HomeKit controller sent: `POST /pair-setup`, `GET /characteristics?id=1.9`,
/// `PUT /characteristics` and the rest of HAP's few resources.
public struct HAPRequest: Sendable, Equatable {
    public var method: String
    /// The path without its query (`/characteristics`).
    public var path: String
    /// The query's items in order, percent-decoded (`id` → `1.9,1.10`).
    public var query: [(name: String, value: String)]
    public var head: HTTPHead
    public var body: [UInt8]

    public static func == (a: HAPRequest, b: HAPRequest) -> Bool {
        a.method == b.method && a.path == b.path && a.query.map(\.name) == b.query.map(\.name)
            && a.query.map(\.value) == b.query.map(\.value) && a.head == b.head && a.body == b.body
    }

    /// The first query item named `name`.
    public func query(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

/// Reads a controller's requests from the bytes of a connection (plain before pair-verify,
/// the cipher's plaintext after), as they come: requests may arrive in pieces or several
/// at once, and each is kept in order. Bounded: a head over `maximumHead` bytes or a body
/// over `maximumBody` is refused, chunked bodies are refused (no HomeKit controller sends
/// one), and a body needs a `Content-Length`. After an error the connection must close.
public struct HAPRequestReader: Sendable {
    public static let maximumHead = 8 * 1024
    public static let maximumBody = 64 * 1024

    var buffer: [UInt8] = []

    public init() {}

    /// Bytes read and not yet part of a whole request.
    public var bufferedCount: Int { buffer.count }

    public mutating func append(_ bytes: [UInt8]) { buffer += bytes }

    /// The next whole request, or nil until more bytes arrive.
    public mutating func next() throws -> HAPRequest? {
        guard let headEnd = Self.endOfHead(in: buffer) else {
            // No blank line within the limit (its four bytes may still be arriving).
            if buffer.count > Self.maximumHead + 3 {
                throw PhotonError(.messageTooLarge, "a HAP request head over \(Self.maximumHead) bytes")
            }
            return nil
        }
        guard headEnd <= Self.maximumHead else {
            throw PhotonError(.messageTooLarge, "a HAP request head over \(Self.maximumHead) bytes")
        }
        let head = try HTTPHead.parse(buffer[..<headEnd])
        let (method, target) = try Self.requestLine(head)
        let length = try Self.contentLength(head)
        let total = headEnd + 4 + length
        guard buffer.count >= total else { return nil }
        let (path, query) = try Self.split(target)
        // Consumed only once whole and valid: a refused request stays refused.
        let body = Array(buffer[(headEnd + 4)..<total])
        buffer.removeFirst(total)
        return HAPRequest(method: method, path: path, query: query, head: head, body: body)
    }

    /// Where the blank line ending the head starts (the index of its `\r\n\r\n`).
    static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    static func requestLine(_ head: HTTPHead) throws -> (method: String, target: String) {
        guard let (method, target) = head.requestLine, !method.isEmpty,
            method.utf8.allSatisfy({ (65...90).contains($0) }), target.hasPrefix("/")
        else {
            throw PhotonError(.protocolViolation, "not an HTTP/1.x request line: \(Redaction.sanitize(head.startLine, limit: 80))")
        }
        return (method, target)
    }

    static func contentLength(_ head: HTTPHead) throws -> Int {
        if head["Transfer-Encoding"] != nil {
            throw PhotonError(.protocolViolation, "a chunked HAP request (controllers send a Content-Length)")
        }
        let values = head.headers.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        guard let first = values.first else { return 0 }
        guard values.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 9, first.utf8.allSatisfy({ (48...57).contains($0) }),
            let length = Int(first)
        else {
            throw PhotonError(.protocolViolation, "an invalid Content-Length in a HAP request")
        }
        guard length <= maximumBody else {
            throw PhotonError(.messageTooLarge, "a HAP request body of \(length) bytes (at most \(maximumBody))")
        }
        return length
    }

    static func split(_ target: String) throws -> (path: String, query: [(name: String, value: String)]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        guard parts.count == 2 else { return (path, []) }
        var items: [(String, String)] = []
        for pair in parts[1].split(separator: "&") {
            let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = String(nameValue[0]).removingPercentEncoding,
                let value = (nameValue.count == 2 ? String(nameValue[1]) : "").removingPercentEncoding
            else {
                throw PhotonError(.protocolViolation, "a malformed query in a HAP request")
            }
            items.append((name, value))
        }
        return (path, items)
    }
}

/// An answer to a controller, or an event it subscribed to (`EVENT/1.0 200 OK`, the same
/// form with another protocol name).
public struct HAPResponse: Sendable, Equatable {
    /// The two media types HAP bodies have.
    public enum ContentType: String, Sendable {
        case pairing = "application/pairing+tlv8"
        case json = "application/hap+json"
    }

    /// What the server does once the answer is written.
    enum Effect: Sendable, Equatable {
        /// Pair-verify succeeded: encrypt from the next byte on, for this controller.
        case startSession(controller: String, sharedSecret: [UInt8])
        /// Pairings were removed: these controllers' sessions end.
        case cut([String])
    }

    public var status: Int
    public var contentType: ContentType?
    public var body: [UInt8]
    public var isEvent: Bool
    var effect: Effect?

    public init(status: Int, contentType: ContentType? = nil, body: [UInt8] = [], isEvent: Bool = false) {
        self.status = status
        self.contentType = body.isEmpty ? nil : contentType
        self.body = body
        self.isEvent = isEvent
    }

    /// A pairing answer (TLV8).
    public static func pairing(_ tlv: TLV8) -> HAPResponse { HAPResponse(status: 200, contentType: .pairing, body: tlv.encoded) }

    /// A JSON answer.
    public static func json(_ status: Int, _ body: [UInt8]) -> HAPResponse { HAPResponse(status: status, contentType: .json, body: body) }

    /// An event with a JSON body.
    public static func event(_ body: [UInt8]) -> HAPResponse { HAPResponse(status: 200, contentType: .json, body: body, isEvent: true) }

    /// The answer on the wire.
    public var encoded: [UInt8] {
        var text = "\(isEvent ? "EVENT/1.0" : "HTTP/1.1") \(status) \(Self.reason(status))\r\n"
        if let contentType { text += "Content-Type: \(contentType.rawValue)\r\n" }
        text += "Content-Length: \(body.count)\r\n\r\n"
        return Array(text.utf8) + body
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 207: "Multi-Status"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 422: "Unprocessable Entity"
        case 429: "Too Many Requests"
        case 470: "Connection Authorization Required"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
