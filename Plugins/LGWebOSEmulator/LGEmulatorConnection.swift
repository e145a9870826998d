import Foundation
import LGWebOS
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet

extension EmulatedLGTV {
    /// One connection: the main SSAP socket at `/`, or a pointer socket at a path issued
    /// on a main socket.
    func serve(_ stream: any ByteStream, secure: Bool) async {
        // Every connection, before it asks for anything (a client may connect ahead of
        // knowing which socket it wants).
        emit(EmulatorEvent("connection_accepted", [("secure", .bool(secure))]))
        defer {
            emit(EmulatorEvent("connection_closed", [("secure", .bool(secure))]))
            Task { await stream.close() }
        }
        guard let request = try? await HTTPServerRequest.read(from: stream, maxBody: 4096, timeout: .seconds(10)) else { return }
        guard request.isWebSocketUpgrade else {
            // What webOS answers a browser on these ports.
            try? await request.respond(
                status: 200, reason: "OK", headers: ["Content-Type": "text/plain", "Connection": "close"], body: Array("Hello world".utf8))
            return
        }
        if configuration.rejectOrigin, request.head["Origin"] != nil {
            emit(EmulatorEvent("client_rejected", [("reason", .string("invalid origin"))]))
            if let connection = try? await request.upgrade() { await connection.close(code: 1008, reason: "invalid origin") }
            return
        }
        if request.path == "/" {
            await serveMain(request, secure: secure)
        } else if request.path.hasPrefix("/resources/"), request.path.hasSuffix("/netinput.pointer.sock") {
            await servePointer(request)
        } else {
            try? await request.respond(status: 404, reason: "Not Found", headers: ["Connection": "close"])
        }
    }

    private func serveMain(_ request: HTTPServerRequest, secure: Bool) async {
        guard let connection = try? await request.upgrade(maxMessageSize: 1 << 20) else { return }
        let client = Client(connection: connection, secure: secure)
        let id = state.withLock { s -> UInt64 in
            defer { s.nextID += 1 }
            s.clients[s.nextID] = client
            return s.nextID
        }
        emit(EmulatorEvent("client_connected", [("secure", .bool(secure))]))
        defer {
            _ = state.withLock { $0.clients.removeValue(forKey: id) }
            emit(EmulatorEvent("client_disconnected", [("secure", .bool(secure))]))
        }
        do {
            while true {
                // A silent TV reads nothing: no replies, no pongs.
                while state.withLock({ $0.misbehaviour == .silent && $0.clients[id] != nil }) {
                    try await Task.sleep(for: .milliseconds(20))
                }
                guard state.withLock({ $0.clients[id] != nil }) else { break }
                // Short waits, so that going silent stops the pongs too.
                let message: WebSocketMessage?
                do {
                    message = try await connection.receive(timeout: .milliseconds(50))
                } catch let error as PhotonError where error.code == .timeout {
                    continue
                }
                guard let message else { break }
                guard case .text(let text) = message, let json = try? JSONValue.parse(text), json.isObject else {
                    emit(EmulatorEvent("invalid_message"))
                    continue
                }
                try await handle(json, client)
            }
        } catch {}
    }

    private func handle(_ json: JSONValue, _ client: Client) async throws {
        let id = json["id"] ?? .null
        if state.withLock({ $0.misbehaviour == .noisy }) {
            try await client.connection.send(.text(#"{"type":"p2p","payload":{"noise":true}}"#))
            try await client.connection.send(.text(#"{"type":"response","id":"noise-1","payload":{"returnValue":true}}"#))
        }
        switch json["type"]?.stringValue ?? "" {
        case "hello":
            emit(EmulatorEvent("hello"))
            try await send(
                client,
                .object([
                    ("type", "hello"),
                    (
                        "payload",
                        .object([
                            ("protocolVersion", 1), ("deviceType", "tv"), ("deviceOS", "webOS"), ("deviceOSVersion", "4.1.0"),
                            ("deviceOSReleaseVersion", .string(configuration.osRelease)), ("deviceUUID", .string(configuration.uuid)),
                            ("pairingTypes", .array(configuration.pairingTypes.map { .string($0) })),
                        ])
                    ),
                ]))
        case "register":
            emit(EmulatorEvent("register_received", [("with_key", .bool(json["payload"]?["client-key"] != nil))]))
            try await register(json["payload"] ?? .object([]), id: id, client)
        case "request", "subscribe":
            let uri = String((json["uri"]?.stringValue ?? "").trimmingPrefix("ssap://"))
            try await answer(uri, payload: json["payload"] ?? .object([]), id: id, subscribe: json["type"]?.stringValue == "subscribe", client)
        case "unsubscribe":
            client.state.withLock { $0.subscriptions.removeAll { $0.id == id } }
        default:
            try await fail(client, id, "400 bad request")
        }
    }

    func send(_ client: Client, _ value: JSONValue) async throws {
        try await client.connection.send(.text(value.encoded))
    }

    func fail(_ client: Client, _ id: JSONValue, _ error: String) async throws {
        try await send(client, .object([("type", "error"), ("id", id), ("error", .string(error)), ("payload", .object([]))]))
    }

    // MARK: registering

    private func register(_ payload: JSONValue, id: JSONValue, _ client: Client) async throws {
        let manifest = payload["manifest"] ?? .object([])
        let signed = manifest["signed"] != nil || manifest["signatures"] != nil
        if signed && configuration.blacklistSigned {
            emit(EmulatorEvent("client_rejected", [("reason", .string("blacklisted certificate"))]))
            try await fail(client, id, "403 Pairing rejected: blacklisted certificate detected")
            return
        }
        var asked = Set((manifest["permissions"]?.arrayValue ?? []).compactMap(\.stringValue))
        if signed { asked.formUnion((manifest["signed"]?["permissions"]?.arrayValue ?? []).compactMap(\.stringValue)) }
        let granted = asked.subtracting(signed ? [] : LGPermissions.signedOnly).subtracting(configuration.withheld)
        client.state.withLock { $0.granted = granted }
        if let key = payload["client-key"]?.stringValue, state.withLock({ $0.keys.contains(key) }) {
            client.state.withLock { $0.registered = true }
            emit(EmulatorEvent("registered", [("secure", .bool(client.secure))]))
            try await send(client, .object([("type", "registered"), ("id", id), ("payload", .object([("client-key", .string(key))]))]))
            return
        }
        emit(EmulatorEvent("prompt", [("signed", .bool(signed))]))
        try await send(
            client,
            .object([
                ("type", "response"), ("id", id), ("payload", .object([("pairingType", "PROMPT"), ("returnValue", true)])),
            ]))
        // The user answers while the socket keeps being read (pings are answered).
        let answer = state.withLock { $0.acceptOverride } ?? configuration.accept
        Task {
            switch answer {
            case .auto:
                if self.configuration.acceptDelay > .zero { try? await Task.sleep(for: self.configuration.acceptDelay) }
                let key = (try? SecureRandom.bytes(16))?.map { hexByte($0).lowercased() }.joined() ?? UUID().uuidString
                self.state.withLock { _ = $0.keys.insert(key) }
                self.saveKeys()
                client.state.withLock { $0.registered = true }
                self.emit(EmulatorEvent("paired", [("secure", .bool(client.secure))]))
                try? await self.send(client, .object([("type", "registered"), ("id", id), ("payload", .object([("client-key", .string(key))]))]))
            case .deny:
                if self.configuration.acceptDelay > .zero { try? await Task.sleep(for: self.configuration.acceptDelay) }
                self.emit(EmulatorEvent("client_rejected", [("reason", .string("declined on the TV"))]))
                try? await self.fail(client, id, "403 cancelled")
            case .timeout:
                try? await Task.sleep(for: self.configuration.promptTimeout)
                self.emit(EmulatorEvent("client_rejected", [("reason", .string("prompt timed out"))]))
                try? await self.fail(client, id, "403 cancelled")
            }
        }
    }

    // MARK: the pointer socket

    private func servePointer(_ request: HTTPServerRequest) async {
        let path = request.path
        let issued = state.withLock { s in s.clients.values.contains { $0.state.withLock { $0.pointerPath } == path } }
        guard issued else {
            try? await request.respond(status: 404, reason: "Not Found", headers: ["Connection": "close"])
            return
        }
        guard let connection = try? await request.upgrade(maxMessageSize: SSAPMessage.maximumPointerSize) else { return }
        let id = state.withLock { s -> UInt64 in
            defer { s.nextID += 1 }
            s.pointers[s.nextID] = connection
            return s.nextID
        }
        defer { _ = state.withLock { $0.pointers.removeValue(forKey: id) } }
        emit(EmulatorEvent("pointer_connected"))
        while let message = try? await connection.receive(timeout: nil) {
            guard case .text(let text) = message, let fields = LGPointer.parse(text) else {
                emit(EmulatorEvent("invalid_message", [("socket", .string("pointer"))]))
                continue
            }
            switch fields["type"] {
            case "button":
                let name = fields["name"] ?? ""
                emit(EmulatorEvent("key", [("key", .string(name))]))
                await pressed(name)
            case let type?:
                emit(
                    EmulatorEvent(
                        "pointer", [("type", .string(type)), ("dx", .int(Int(fields["dx"] ?? "") ?? 0)), ("dy", .int(Int(fields["dy"] ?? "") ?? 0))]))
            case nil:
                break
            }
        }
    }

    /// What a button does to the state subscribers see.
    private func pressed(_ name: String) async {
        switch name {
        case "VOLUMEUP", "VOLUMEDOWN":
            state.withLock { s in s.volume = max(0, min(100, s.volume + (name == "VOLUMEUP" ? 1 : -1))) }
            await push("audio/getVolume")
        case "MUTE":
            state.withLock { $0.muted.toggle() }
            await push("audio/getVolume")
        case "PLAY", "PAUSE":
            state.withLock { $0.playState = name == "PLAY" ? "playing" : "paused" }
            await push("com.webos.media/getForegroundAppInfo")
        default:
            break
        }
    }
}
