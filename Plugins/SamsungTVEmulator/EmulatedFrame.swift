import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import SamsungTV

/// The Frame's art state: art mode, the artworks (id, category, matte), the one shown,
/// brightness and slideshow.
struct FrameArt: Sendable {
    var artMode: Bool
    var artworks: [(id: String, category: String, matte: String)] = [
        ("SAM-S10001", "MY-C0002", "none"), ("SAM-S10002", "MY-C0002", "shadowbox_polar"), ("MY_F0001", "MY-C0002", "none"),
    ]
    var current = "SAM-S10001"
    var brightness = 5
    var slideshow = "off"
    var uploads = 0
    /// When KEY_POWER was pressed (a hold of 2 s or more switches the set off).
    var powerPressed: Date?
}

/// The emulated Frame's art app: requests on the art channel answered as
/// `d2d_service_message`s, pushes of `artmode_status` to every art channel, uploads and
/// thumbnails over one-shot sockets (or, with art API 0.97, uploads in one binary frame),
/// errors as `{"event": "error", "error_code"}`.
extension EmulatedSamsungTV {
    static let artUploadLimit = 24 * 1024 * 1024

    func serveArt(_ channel: WebSocketConnection, id: UInt64) async throws {
        state.withLock { $0.artChannels[id] = channel }
        defer { _ = state.withLock { $0.artChannels.removeValue(forKey: id) } }
        try await channel.send(.text(#"{"event":"ms.channel.ready","data":{}}"#))
        while let message = try await channel.receive(timeout: nil) {
            switch message {
            case .text(let text):
                guard let outer = try? JSONValue.parse(text), outer["params"]?["event"]?.stringValue == "art_app_request",
                    let data = outer["params"]?["data"]?.stringValue, let request = try? JSONValue.parse(data)
                else {
                    emit(EmulatorEvent("invalid_message", [("bytes", .int(text.utf8.count))]))
                    continue
                }
                try await answerArt(request, raw: data, on: channel)
            case .binary(let bytes):
                try await binaryUpload(bytes, on: channel)
            }
        }
    }

    /// Sends one art answer (`fields` plus the request's ids) on `channel`.
    func artAnswer(_ channel: WebSocketConnection, _ event: String, id: String?, _ fields: [(String, JSONValue)] = []) async throws {
        var inner: [(String, JSONValue)] = [("event", .string(event))]
        if let id { inner += [("request_id", .string(id)), ("id", .string(id))] }
        inner += fields
        let outer = JSONValue.object([("event", "d2d_service_message"), ("data", .string(JSONValue.object(inner).encoded))])
        try await channel.send(.text(outer.encoded))
    }

    func artError(_ channel: WebSocketConnection, id: String?, code: String, raw: String) async throws {
        try await artAnswer(channel, "error", id: id, [("error_code", .string(code)), ("request_data", .string(raw))])
        emit(EmulatorEvent("art_error", [("code", .string(code))]))
    }

    /// Tells every art channel the art mode (as the TV does when it changes).
    func pushArtMode(_ on: Bool) async {
        let channels = state.withLock { Array($0.artChannels.values) }
        for channel in channels { try? await artAnswer(channel, "artmode_status", id: nil, [("value", .string(on ? "on" : "off"))]) }
        emit(EmulatorEvent("art_mode", [("value", .string(on ? "on" : "off"))]))
    }

    /// KEY_POWER on a Frame: a click toggles TV and art (from standby: on); a press held
    /// 2 s or more before its release switches the set off.
    func framePowerKey(_ cmd: String) async {
        let now = Date()
        var artChanged: Bool?
        state.withLock { s in
            switch cmd {
            case "Press": s.frame.powerPressed = now
            case "Release":
                if let pressed = s.frame.powerPressed, now.timeIntervalSince(pressed) >= 2 {
                    s.powerState = "standby"
                    s.frame.artMode = false
                } else if s.powerState == "on" {
                    s.frame.artMode.toggle()
                    artChanged = s.frame.artMode
                }
                s.frame.powerPressed = nil
            default:
                if s.powerState != "on" {
                    s.powerState = "on"
                    s.frame.artMode = false
                } else {
                    s.frame.artMode.toggle()
                    artChanged = s.frame.artMode
                }
            }
        }
        let power = state.withLock { $0.powerState }
        emit(EmulatorEvent("power", [("state", .string(power))]))
        if let artChanged { await pushArtMode(artChanged) }
    }

    func answerArt(_ request: JSONValue, raw: String, on channel: WebSocketConnection) async throws {
        let name = request["request"]?.stringValue ?? ""
        let id = request["request_id"]?.stringValue ?? request["id"]?.stringValue
        emit(EmulatorEvent("art_request", [("request", .string(name))]))
        let legacy = configuration.artAPIVersion == "0.97"
        switch name {
        case "api_version" where !legacy: try await artAnswer(channel, name, id: id, [("version", .string(configuration.artAPIVersion))])
        case "get_api_version": try await artAnswer(channel, name, id: id, [("version", .string(configuration.artAPIVersion))])
        case "get_artmode_status":
            let on = state.withLock { $0.frame.artMode }
            try await artAnswer(channel, "artmode_status", id: id, [("value", .string(on ? "on" : "off"))])
        case "set_artmode_status":
            guard let value = request["value"]?.stringValue, ["on", "off"].contains(value) else {
                return try await artError(channel, id: id, code: "-1", raw: raw)
            }
            state.withLock { s in
                s.frame.artMode = value == "on"
                if s.powerState != "on" { s.powerState = "on" }
            }
            try await artAnswer(channel, name, id: id, [("value", .string(value))])
            await pushArtMode(value == "on")
        case "get_content_list":
            let category = request["category"]?.stringValue
            let items: [JSONValue] = state.withLock { $0.frame.artworks }.filter { category == nil || $0.category == category }.map {
                .object([
                    ("content_id", .string($0.id)), ("category_id", .string($0.category)), ("matte_id", .string($0.matte)), ("width", 3840),
                    ("height", 2160),
                ])
            }
            try await artAnswer(channel, name, id: id, [("content_list", .string(JSONValue.array(items).encoded))])
        case "get_current_artwork":
            let (current, art) = state.withLock { ($0.frame.current, $0.frame.artworks) }
            let item = art.first { $0.id == current }
            try await artAnswer(
                channel, name, id: id,
                [("content_id", .string(current)), ("category_id", .string(item?.category ?? "")), ("matte_id", .string(item?.matte ?? "none"))])
        case "select_image":
            guard let content = request["content_id"]?.stringValue, state.withLock({ s in s.frame.artworks.contains { $0.id == content } }) else {
                return try await artError(channel, id: id, code: "-1", raw: raw)
            }
            state.withLock { $0.frame.current = content }
            emit(EmulatorEvent("art_shown", [("content_id", .string(content))]))
            try await artAnswer(channel, "image_selected", id: id, [("content_id", .string(content))])
        case "delete_image_list":
            let wanted = (request["content_id_list"]?.arrayValue ?? []).compactMap { $0["content_id"]?.stringValue }
            let deleted = state.withLock { s -> [String] in
                let present = wanted.filter { w in s.frame.artworks.contains { $0.id == w } }
                s.frame.artworks.removeAll { present.contains($0.id) }
                if present.contains(s.frame.current) { s.frame.current = s.frame.artworks.first?.id ?? "" }
                return present
            }
            for content in deleted { emit(EmulatorEvent("art_deleted", [("content_id", .string(content))])) }
            let list = JSONValue.array(deleted.map { .object([("content_id", .string($0))]) }).encoded
            try await artAnswer(channel, "image_deleted", id: id, [("content_id_list", .string(list))])
        case "get_matte_list":
            let types = JSONValue.array(["none", "modernthin", "shadowbox", "flexible"].map { .object([("matte_type", .string($0))]) }).encoded
            let colors = JSONValue.array(["polar", "black", "warm"].map { .object([("color", .string($0))]) }).encoded
            try await artAnswer(channel, name, id: id, [("matte_type_list", .string(types)), ("matte_color_list", .string(colors))])
        case "change_matte":
            guard let content = request["content_id"]?.stringValue, let matte = request["matte_id"]?.stringValue,
                state.withLock({ s in s.frame.artworks.contains { $0.id == content } })
            else { return try await artError(channel, id: id, code: "-1", raw: raw) }
            state.withLock { s in
                if let i = s.frame.artworks.firstIndex(where: { $0.id == content }) { s.frame.artworks[i].matte = matte }
            }
            emit(EmulatorEvent("art_matte", [("content_id", .string(content)), ("matte", .string(matte))]))
            try await artAnswer(channel, "matte_changed", id: id, [("content_id", .string(content)), ("matte_id", .string(matte))])
        case "get_brightness": try await artAnswer(channel, name, id: id, [("value", .string(String(state.withLock { $0.frame.brightness })))])
        case "get_artmode_settings":
            let brightness = state.withLock { $0.frame.brightness }
            let settings = JSONValue.array([.object([("item", "brightness"), ("value", .string(String(brightness)))])]).encoded
            try await artAnswer(channel, name, id: id, [("data", .string(settings))])
        case "set_brightness":
            guard let level = request["value"]?.intValue ?? request["value"]?.stringValue.flatMap({ Int($0) }), (0...10).contains(level) else {
                return try await artError(channel, id: id, code: "-1", raw: raw)
            }
            state.withLock { $0.frame.brightness = level }
            emit(EmulatorEvent("art_brightness", [("value", .int(level))]))
            try await artAnswer(channel, name, id: id, [("value", .string(String(level)))])
        case "set_slideshow_status", "set_auto_rotation_status":
            let value = request["value"]?.stringValue ?? "off"
            state.withLock { $0.frame.slideshow = value }
            emit(EmulatorEvent("art_slideshow", [("value", .string(value))]))
            try await artAnswer(channel, name, id: id, [("value", .string(value))])
        case "get_slideshow_status", "get_auto_rotation_status":
            try await artAnswer(channel, name, id: id, [("value", .string(state.withLock { $0.frame.slideshow })), ("category_id", "MY-C0002")])
        case "send_image" where !legacy: try await socketUpload(request, id: id, raw: raw, on: channel)
        case "get_thumbnail_list", "get_thumbnail": try await sendThumbnails(request, id: id, raw: raw, on: channel)
        default: try await artError(channel, id: id, code: "-1", raw: raw)
        }
    }
}
