import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import SamsungTV

/// The emulated Frame's transfers: an upload over a one-shot socket (`ready_to_use` names
/// it, the client sends a length-prefixed JSON header with the key and the bytes, the TV
/// answers `image_added`), an upload in one binary frame (art API 0.97), and thumbnails
/// sent back over a socket the same way.
extension EmulatedSamsungTV {
    /// Listens once on the TV's host, for a transfer; gives the port and the accepted stream.
    private func oneShotListener() throws -> TCPListener {
        try TCPListener(host: configuration.host, port: 0)
    }

    private func connectionInfo(port: UInt16, key: String, id: String?) -> JSONValue {
        .string(
            JSONValue.object([
                ("ip", .string(configuration.host)), ("port", .int(Int(port))), ("key", .string(key)), ("secured", false),
                ("id", .string(id ?? "")),
            ]).encoded)
    }

    func socketUpload(_ request: JSONValue, id: String?, raw: String, on channel: WebSocketConnection) async throws {
        guard let size = request["file_size"]?.intValue, (1...Self.artUploadLimit).contains(size) else {
            return try await artError(channel, id: id, code: "-1", raw: raw)
        }
        let listener = try oneShotListener()
        let key = UUID().uuidString
        try await artAnswer(channel, "ready_to_use", id: id, [("conn_info", connectionInfo(port: listener.port, key: key, id: id))])
        let matte = request["matte_id"]?.stringValue ?? "none"
        Task {
            defer { listener.close() }
            guard let stream = try? await withTimeout(.seconds(10), "the upload connection", operation: { try await listener.accept() }) else {
                return
            }
            defer { Task { await stream.close() } }
            var buffer: [UInt8] = []
            var header: (header: JSONValue, consumed: Int)?
            while header == nil {
                guard let chunk = try? await stream.read(maxLength: 64 * 1024, timeout: .seconds(10)), !chunk.isEmpty else { return }
                buffer += chunk
                header = try? SamsungArtMessage.readHeader(buffer)
                if header == nil, buffer.count > 8192 { return }
            }
            guard let (fields, consumed) = header, fields["secKey"]?.stringValue == key, fields["fileLength"]?.intValue == size else {
                try? await self.artError(channel, id: id, code: "-3", raw: raw)
                return
            }
            var received = buffer.count - consumed
            while received < size {
                guard let chunk = try? await stream.read(maxLength: 256 * 1024, timeout: .seconds(10)), !chunk.isEmpty else { return }
                received += chunk.count
            }
            let content = self.addArtwork(matte: matte, bytes: received)
            try? await self.artAnswer(channel, "image_added", id: id, [("content_id", .string(content))])
        }
    }

    /// An upload in one binary frame (art API 0.97): a 2-byte header length, the emit JSON
    /// whose data names `send_image`, then the bytes.
    func binaryUpload(_ bytes: [UInt8], on channel: WebSocketConnection) async throws {
        guard configuration.artAPIVersion == "0.97", bytes.count > 2 else { return }
        let length = Int(bytes[0]) << 8 | Int(bytes[1])
        guard bytes.count >= 2 + length, let outer = try? JSONValue.parse(Array(bytes[2..<(2 + length)])),
            let data = outer["params"]?["data"]?.stringValue, let request = try? JSONValue.parse(data),
            request["request"]?.stringValue == "send_image"
        else { return try await artError(channel, id: nil, code: "-1", raw: "binary") }
        let id = request["id"]?.stringValue
        let content = addArtwork(matte: request["matte_id"]?.stringValue ?? "none", bytes: bytes.count - 2 - length)
        try await artAnswer(channel, "image_added", id: id, [("content_id", .string(content))])
    }

    private func addArtwork(matte: String, bytes: Int) -> String {
        let content = state.withLock { s -> String in
            s.frame.uploads += 1
            let content = String(format: "MY_F%04d", 100 + s.frame.uploads)
            s.frame.artworks.append((content, "MY-C0002", matte))
            return content
        }
        emit(EmulatorEvent("art_uploaded", [("content_id", .string(content)), ("bytes", .int(bytes))]))
        return content
    }

    /// Thumbnails: a tiny JPEG per content id, each with its header, over a one-shot
    /// socket (inline in the answer with art API 0.97).
    func sendThumbnails(_ request: JSONValue, id: String?, raw: String, on channel: WebSocketConnection) async throws {
        let wanted =
            request["content_id"]?.stringValue.map { [$0] }
            ?? (request["content_id_list"]?.arrayValue ?? []).compactMap { $0["content_id"]?.stringValue }
        let known = state.withLock { s in wanted.filter { w in s.frame.artworks.contains { $0.id == w } } }
        guard !known.isEmpty, known.count == wanted.count else { return try await artError(channel, id: id, code: "-1", raw: raw) }
        let listener = try oneShotListener()
        try await artAnswer(channel, "ready_to_use", id: id, [("conn_info", connectionInfo(port: listener.port, key: UUID().uuidString, id: id))])
        Task {
            defer { listener.close() }
            guard let stream = try? await withTimeout(.seconds(10), "the thumbnail connection", operation: { try await listener.accept() }) else {
                return
            }
            for (n, content) in known.enumerated() {
                let image: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(content.utf8) + [0xFF, 0xD9]
                let header = Array(
                    JSONValue.object([
                        ("fileID", .string(content)), ("fileType", "jpg"), ("fileLength", .int(image.count)), ("num", .int(n)),
                        ("total", .int(known.count)),
                    ]).encoded.utf8)
                let length = UInt32(header.count)
                let prefix = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                try? await stream.write(prefix + header + image, timeout: .seconds(10))
            }
            self.emit(EmulatorEvent("art_thumbnails", [("count", .int(known.count))]))
            await stream.close()
        }
    }
}
