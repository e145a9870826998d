import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import SamsungTV

extension EmulatedSamsungTV {
    /// The input each input key switches to, by its standard name.
    static let inputs: [String: String] = [
        "KEY_HDMI1": "hdmi1", "KEY_HDMI2": "hdmi2", "KEY_HDMI3": "hdmi3", "KEY_HDMI4": "hdmi4", "KEY_TV": "tv", "KEY_AV1": "av",
        "KEY_COMPONENT1": "component",
    ]

    /// One HTTP connection: REST requests, or an upgrade to the remote channel.
    func serve(_ stream: any ByteStream, secure: Bool) async {
        defer { Task { await stream.close() } }
        guard let request = try? await HTTPServerRequest.read(from: stream, maxBody: 64 * 1024, timeout: .seconds(10)) else { return }
        if request.isWebSocketUpgrade {
            await serveChannel(request, secure: secure)
            return
        }
        do {
            try await serveREST(request, secure: secure)
        } catch {}
    }

    func serveREST(_ request: HTTPServerRequest, secure: Bool) async throws {
        func json(_ object: Any, status: Int = 200) async throws {
            let body = Array(JSONValue.sorted(object).encoded.utf8)
            try await request.respond(
                status: status, reason: status == 200 ? "OK" : "Not Found",
                headers: ["Content-Type": "application/json; charset=utf-8", "Connection": "close"], body: body)
        }
        let path = request.path
        if request.method == "GET" && (path == "/api/v2/" || path == "/api/v2") {
            let c = configuration
            let power = state.withLock { $0.powerState }
            let support: [String: String] = [
                "TokenAuthSupport": c.tokenAuthSupport ? "true" : "false", "remote_available": "true", "FrameTVSupport": c.frame ? "true" : "false",
            ]
            let supportText = JSONValue.sorted(support).encoded + "\n"
            var device: [String: String] = [
                "FrameTVSupport": c.frame ? "true" : "false", "OS": "Tizen", "TokenAuthSupport": c.tokenAuthSupport ? "true" : "false",
                "duid": "uuid:0b7a3c1e-photon-emulated", "id": "uuid:0b7a3c1e-photon-emulated", "model": "24_EMULATED",
                "modelName": c.modelName, "name": c.name, "networkType": "wired", "type": "Samsung SmartTV",
                "wifiMac": c.mac, "ip": c.host,
            ]
            device["PowerState"] = power
            try await json([
                "device": device, "id": "uuid:0b7a3c1e-photon-emulated", "isSupport": supportText, "name": c.name,
                "remote": "1.0", "type": "Samsung SmartTV", "version": "2.0.25",
            ])
            emit(EmulatorEvent("rest", [("method", .string("GET")), ("path", .string(path))]))
        } else if path.hasPrefix("/api/v2/applications/") {
            let app = String(path.dropFirst("/api/v2/applications/".count)).removingPercentEncoding ?? ""
            if request.method == "POST" {
                emit(EmulatorEvent("launch", [("app", .string(app)), ("via", .string("rest"))]))
                try await json(true)
            } else {
                try await json(["id": app, "name": app, "running": false, "version": "1.0", "visible": false])
            }
        } else {
            try await json(["error": "not found"], status: 404)
        }
    }

    func serveChannel(_ request: HTTPServerRequest, secure: Bool) async {
        let isArt = configuration.frame && request.path == "/api/v2/channels/com.samsung.art-app"
        guard request.path == "/api/v2/channels/samsung.remote.control" || isArt,
            let channel = try? await request.upgrade(maxMessageSize: isArt ? Self.artUploadLimit : 64 * 1024)
        else {
            return
        }
        let id = state.withLock { s -> UInt64 in
            defer { s.nextChannel += 1 }
            s.channels[s.nextChannel] = channel
            return s.nextChannel
        }
        defer { _ = state.withLock { $0.channels.removeValue(forKey: id) } }
        let query = request.query
        let nameB64 = query["name"] ?? ""
        let clientName = Data(base64Encoded: nameB64).map { String(decoding: $0, as: UTF8.self) } ?? "Smart Device"
        func event(_ name: String, _ data: Any? = nil) async throws {
            var object: [String: Any] = ["event": name]
            if let data { object["data"] = data }
            try await channel.send(.text(JSONValue.sorted(object).encoded))
        }
        do {
            // Noise real TVs send before connecting.
            try await event("ed.edenTV.update", ["update_type": "ed.edenApp.update"])
            if configuration.touchEnableBeforeConnect { try await event("ms.remote.touchEnable") }
            try await event("ms.voiceApp.hide")

            var issued: String?
            if !secure && configuration.tokenAuthSupport {
                emit(EmulatorEvent("client_rejected", [("reason", .string("plain channel on a token TV")), ("client", .string(clientName))]))
                try await event("ms.channel.unauthorized")
                await channel.close(code: 1000, reason: "")
                return
            }
            if secure {
                let presented = query["token"]
                let (known, rotate) = state.withLock { s -> (Bool, Bool) in
                    let known = presented.map { s.tokens.contains($0) } ?? false
                    defer { if known { s.rotateTokenOnNextConnect = false } }
                    return (known, s.rotateTokenOnNextConnect)
                }
                if known {
                    if rotate { issued = newToken() }
                } else {
                    emit(EmulatorEvent("prompt", [("client", .string(clientName))]))
                    switch state.withLock({ $0.acceptOverride }) ?? configuration.accept {
                    case .auto:
                        if configuration.acceptDelay > .zero { try await Task.sleep(for: configuration.acceptDelay) }
                        issued = newToken()
                    case .deny:
                        if configuration.acceptDelay > .zero { try await Task.sleep(for: configuration.acceptDelay) }
                        emit(EmulatorEvent("client_rejected", [("reason", .string("denied on the TV")), ("client", .string(clientName))]))
                        try await event("ms.channel.unauthorized")
                        await channel.close(code: 1000, reason: "")
                        return
                    case .timeout:
                        try await Task.sleep(for: configuration.promptTimeout)
                        emit(EmulatorEvent("client_rejected", [("reason", .string("prompt timed out")), ("client", .string(clientName))]))
                        try await event("ms.channel.timeOut")
                        await channel.close(code: 1000, reason: "")
                        return
                    }
                }
            }
            var data: [String: Any] = [
                "id": "client-\(id)",
                "clients": [
                    ["id": "client-\(id)", "attributes": ["name": nameB64, "token": query["token"] ?? ""], "deviceName": nameB64, "isHost": false]
                ],
            ]
            if let issued {
                data["token"] = issued
                emit(EmulatorEvent("paired", [("client", .string(clientName))]))
            }
            try await event("ms.channel.connect", data)
            emit(EmulatorEvent("client_connected", [("client", .string(clientName)), ("secure", .bool(secure))]))
            if isArt {
                try await serveArt(channel, id: id)
                emit(EmulatorEvent("client_disconnected", [("client", .string(clientName))]))
                return
            }
            let pinger = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: self.configuration.pingInterval)
                    if Task.isCancelled { return }
                    try? await channel.ping([0])
                }
            }
            defer { pinger.cancel() }
            while let message = try await channel.receive(timeout: nil) {
                guard case .text(let text) = message,
                    let object = try? JSONValue.parse(text),
                    let method = object["method"]?.stringValue, let params = object["params"], params.isObject
                else {
                    emit(EmulatorEvent("invalid_message", [("bytes", .int(text(message).utf8.count))]))
                    continue
                }
                try await handle(method: method, params: params, event: event)
            }
        } catch {}
        emit(EmulatorEvent("client_disconnected", [("client", .string(clientName))]))
    }

    private func text(_ message: WebSocketMessage) -> String {
        if case .text(let t) = message { return t }
        return ""
    }

    private func newToken() -> String {
        let token = String(Int.random(in: 10_000_000...99_999_999))
        state.withLock { _ = $0.tokens.insert(token) }
        saveTokens()
        return token
    }

    private func handle(method: String, params: JSONValue, event: (String, Any?) async throws -> Void) async throws {
        switch (method, params["TypeOfRemote"]?.stringValue, params["event"]?.stringValue) {
        case ("ms.remote.control", "SendRemoteKey", _):
            let key = params["DataOfCmd"]?.stringValue ?? ""
            let cmd = params["Cmd"]?.stringValue ?? ""
            emit(EmulatorEvent("key", [("key", .string(key)), ("cmd", .string(cmd))]))
            // The set switches inputs on its input keys.
            if cmd != "Release", let input = Self.inputs[key] { emit(EmulatorEvent("input", [("input", .string(input))])) }
            if key == "KEY_POWER" && configuration.frame {
                await framePowerKey(cmd)
            } else if key == "KEY_POWER" && (cmd == "Click" || cmd == "Press") {
                state.withLock { $0.powerState = $0.powerState == "on" ? "standby" : "on" }
            }
        case ("ms.remote.control", "SendInputString", _):
            let text = params["Cmd"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
            emit(EmulatorEvent("text", [("text", .string(text))]))
            try await event("ms.remote.imeUpdate", Data(text.utf8).base64EncodedString())
        case ("ms.remote.control", "SendInputEnd", _):
            emit(EmulatorEvent("text_end"))
        case ("ms.channel.emit", _, "ed.apps.launch"):
            emit(EmulatorEvent("launch", [("app", .string(params["data"]?["appId"]?.stringValue ?? "")), ("via", .string("websocket"))]))
            try await event("ed.apps.launch", 200)
        case ("ms.channel.emit", _, "ed.installedApp.get"):
            guard configuration.answersAppList else { return }
            try await event(
                "ed.installedApp.get",
                [
                    "data": [
                        ["appId": "111299001912", "app_type": 2, "name": "YouTube"], ["appId": "3201907018807", "app_type": 2, "name": "Netflix"],
                    ]
                ])
        default:
            emit(EmulatorEvent("unknown_method", [("method", .string(method))]))
        }
    }
}

extension JSONValue {
    /// A value built from the emulator's dictionaries and arrays, object keys sorted (as
    /// the TVs write them), for Photon's one JSON writer.
    static func sorted(_ value: Any) -> JSONValue {
        switch value {
        case let text as String: return .string(text)
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .int(number)
        case let items as [Any]: return .array(items.map(sorted))
        case let object as [String: Any]: return .object(object.keys.sorted().map { ($0, sorted(object[$0]!)) })
        default: return .null
        }
    }
}
