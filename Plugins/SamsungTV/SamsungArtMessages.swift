import Foundation
import PhotonCore

/// The Frame's art channel on the wire: requests are `ms.channel.emit` of an
/// `art_app_request` whose `data` is a JSON string; answers and pushes are
/// `d2d_service_message` events whose `data` is a JSON string again. Everything read here
/// came from the network: bounded, depth-limited, ids checked.
public enum SamsungArtMessage {
    /// An answer or push from the art app.
    public struct Answer: Sendable, Equatable {
        /// `request_id` (else `id`): the request it answers; nil for a push.
        public var requestID: String?
        /// The inner `event` (`get_artmode_status`, `ready_to_use`, `image_added`,
        /// `artmode_status`, `error`…).
        public var event: String
        public var payload: JSONValue
    }

    /// The largest art-channel message accepted (a content list of a few hundred items).
    public static let maximumSize = 1024 * 1024

    /// Reads one frame of the art channel: an answer, or nil for a frame that is not one
    /// (`ms.channel.ready` and the like). Garbage throws.
    public static func parse(_ text: String) throws -> Answer? {
        guard text.utf8.count <= maximumSize else {
            throw PhotonError(.messageTooLarge, "a message from the TV's art channel is over \(maximumSize) bytes")
        }
        guard let outer = try? JSONValue.parse(Array(text.utf8), maximumDepth: 8), let name = outer["event"]?.stringValue else {
            throw PhotonError(.protocolViolation, "the TV's art channel sent something that is not an event object")
        }
        guard name == "d2d_service_message" else { return nil }
        guard let data = outer["data"]?.stringValue, let inner = try? JSONValue.parse(Array(data.utf8), maximumDepth: 8), inner.isObject else {
            throw PhotonError(.protocolViolation, "the TV's art answer carries no JSON object")
        }
        let id = (inner["request_id"] ?? inner["id"])?.stringValue.flatMap { isToken($0) ? $0 : nil }
        let event = inner["event"]?.stringValue.map { Redaction.sanitize($0, limit: 64) } ?? "*"
        return Answer(requestID: id, event: event, payload: inner)
    }

    /// A request for the art app, with its id.
    public static func request(_ name: String, id: String, _ params: [(String, JSONValue)]) -> String {
        let data = JSONValue.object([("request", .string(name)), ("id", .string(id)), ("request_id", .string(id))] + params).encoded
        return JSONValue.object([
            ("method", "ms.channel.emit"), ("params", .object([("event", "art_app_request"), ("to", "host"), ("data", .string(data))])),
        ]).encoded
    }

    /// The art mode an answer or push says (`value`, or `status` in `art_mode_changed`).
    public static func artMode(_ payload: JSONValue) -> Bool? {
        switch (payload["value"] ?? payload["status"])?.stringValue?.lowercased() {
        case "on"?: return true
        case "off"?: return false
        default: return nil
        }
    }

    /// `get_content_list`'s `content_list` (a JSON string of items): each artwork's
    /// content id and category, in the TV's order.
    public static func contentList(_ payload: JSONValue) throws -> [(contentID: String, category: String?)] {
        let list: JSONValue?
        if let text = payload["content_list"]?.stringValue {
            list = try? JSONValue.parse(Array(text.utf8), maximumDepth: 6)
        } else {
            list = payload["content_list"]
        }
        guard let items = list?.arrayValue else { throw PhotonError(.protocolViolation, "the TV's content list is not a list") }
        return items.prefix(2000).compactMap { item in
            guard let id = item["content_id"]?.stringValue, ArtCommand.isIdentifier(id) else { return nil }
            return (id, item["category_id"]?.stringValue.flatMap { ArtCommand.isIdentifier($0) ? $0 : nil })
        }
    }

    /// `conn_info` of a `ready_to_use` answer (an object, or a JSON string of one): where
    /// the upload goes and the key it carries.
    public static func connection(_ payload: JSONValue) throws -> (ip: String, port: UInt16, key: String, secured: Bool) {
        var info = payload["conn_info"]
        if let text = info?.stringValue { info = try? JSONValue.parse(Array(text.utf8), maximumDepth: 4) }
        guard let info, let ip = info["ip"]?.stringValue, ip.utf8.count <= 64, !ip.isEmpty,
            let port = info["port"]?.intValue ?? info["port"]?.stringValue.flatMap({ Int($0) }), (1...65535).contains(port),
            let key = info["key"]?.stringValue, isToken(key)
        else { throw PhotonError(.protocolViolation, "the TV's upload answer has no usable address, port and key") }
        let secured = info["secured"]?.boolValue ?? (info["secured"]?.stringValue == "true")
        return (ip, UInt16(port), key, secured)
    }

    /// The 4-byte big-endian length and JSON header that start an upload on the D2D socket.
    public static func uploadHeader(fileLength: Int, fileType: String, key: String) -> [UInt8] {
        let header = Array(
            JSONValue.object([
                ("num", 0), ("total", 1), ("fileLength", .int(fileLength)), ("fileName", "image"), ("fileType", .string(fileType)),
                ("secKey", .string(key)), ("version", "0.0.1"),
            ]).encoded.utf8)
        let n = UInt32(header.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + header
    }

    /// An upload for the art API 0.97 in one binary frame: a 2-byte big-endian header
    /// length, the `ms.channel.emit` whose data names `send_image`, then the image.
    public static func legacyUpload(_ upload: ArtUpload, id: String) -> [UInt8] {
        let inner = JSONValue.object([
            ("request", "send_image"), ("file_type", .string(upload.fileType == "jpg" ? "JPEG" : upload.fileType.uppercased())),
            ("matte_id", .string(upload.matte)), ("id", .string(id)),
        ]).encoded
        let header = Array(
            JSONValue.object([
                ("method", "ms.channel.emit"), ("params", .object([("data", .string(inner)), ("to", "host"), ("event", "art_app_request")])),
            ]).encoded.utf8)
        return [UInt8(header.count >> 8 & 0xFF), UInt8(header.count & 0xFF)] + header + upload.bytes
    }

    /// Reads a D2D header (the TV's side of an upload, or a thumbnail): its length prefix
    /// and JSON, bounded. Returns the header and how many bytes it took, or nil when more
    /// bytes are needed.
    public static func readHeader(_ bytes: [UInt8]) throws -> (header: JSONValue, consumed: Int)? {
        guard bytes.count >= 4 else { return nil }
        let length = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard (2...4096).contains(length) else { throw PhotonError(.protocolViolation, "an art transfer header of \(length) bytes") }
        guard bytes.count >= 4 + length else { return nil }
        guard let header = try? JSONValue.parse(Array(bytes[4..<(4 + length)]), maximumDepth: 4), header.isObject,
            let size = header["fileLength"]?.intValue, (0...ArtUpload.maximumBytes).contains(size)
        else { throw PhotonError(.protocolViolation, "an art transfer header is not JSON with a bounded fileLength") }
        return (header, 4 + length)
    }

    /// An id the TV or Photon made: printable, no quotes, at most 128 bytes.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }
    }
}
