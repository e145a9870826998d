import Foundation
import Philips
import PhotonCore
import PhotonEmulatorSupport

/// The calls a paired client makes, and the `notifychange` long-poll.
extension EmulatedPhilips {
    func authorised(_ method: String, _ path: String, _ body: JSONValue) async -> PhilipsEmulatorAnswer {
        switch (method, path) {
        case ("GET", "powerstate"): return .json(.object([("powerstate", .string(state.withLock { $0.standby } ? "Standby" : "On"))]))
        case ("POST", "powerstate"):
            guard let wanted = body["powerstate"]?.stringValue, ["On", "Standby"].contains(wanted) else { return .notFound }
            change { $0.standby = wanted == "Standby" }
            emit(EmulatorEvent("power", [("state", .string(wanted == "On" ? "on" : "standby"))]))
            return .ok
        case ("GET", "audio/volume"): return .json(volume(state.withLock { $0 }))
        case ("POST", "audio/volume"):
            let level = body["current"]?.intValue
            if let level, !(0...60).contains(level) { return PhilipsEmulatorAnswer(status: 500, body: Array("Bad level".utf8)) }
            change { s in
                if let level { s.volume = level }
                if let muted = body["muted"]?.boolValue { s.muted = muted }
            }
            let now = state.withLock { $0 }
            emit(EmulatorEvent("volume", [("level", .int(now.volume)), ("muted", .bool(now.muted))]))
            return .ok
        case ("POST", "input/key"):
            guard let key = body["key"]?.stringValue, !key.isEmpty, key.utf8.count <= 32 else { return .notFound }
            press(key)
            return .ok
        case ("GET", "applications"):
            let apps: [JSONValue] = Self.apps.map { app in
                .object([
                    ("label", .string(app.label)), ("intent", Self.intent(app.package, app.className)), ("order", 0),
                    ("id", .string("\(app.className)-\(app.package)")), ("type", "app"),
                ])
            }
            return .json(.object([("version", 0), ("applications", .array(apps))]))
        case ("POST", "activities/launch"): return launch(body["intent"] ?? .null)
        case ("GET", "activities/current"): return .json(state.withLock { $0.activity })
        case ("GET", "activities/tv"): return .json(watched(state.withLock { $0 })[3].1)
        case ("POST", "activities/tv"):
            guard let ccid = body["channel"]?["ccid"]?.intValue, let channel = Self.channels.first(where: { $0.ccid == ccid }) else {
                return .notFound
            }
            change { s in
                s.ccid = ccid
                s.activity = Self.intent("org.droidtv.playtv", "org.droidtv.playtv.PlayTvActivity")
            }
            emit(EmulatorEvent("channel", [("number", .string(channel.preset)), ("ccid", .int(ccid))]))
            return .ok
        case ("GET", "channeldb/tv"):
            return .json(
                .object([
                    ("channelLists", .array([.object([("id", "all"), ("version", 10), ("listType", "MixedSources"), ("active", true)])])),
                    ("favoriteLists", .array([])),
                ]))
        case ("GET", "channeldb/tv/channelLists/all"):
            let list: [JSONValue] = Self.channels.map {
                .object([("ccid", .int($0.ccid)), ("preset", .string($0.preset)), ("name", .string($0.name))])
            }
            return .json(.object([("id", "all"), ("version", 10), ("listType", "MixedSources"), ("medium", "mixed"), ("Channel", .array(list))]))
        case ("GET", "context"), ("GET", "screenstate"):
            return .json(watched(state.withLock { $0 }).first { $0.0 == path }?.1 ?? .null)
        case ("POST", "notifychange"): return await notifyChange(body["notification"] ?? .object([]))
        default: return ambilight(method, path, body)
        }
    }

    /// A key as the TV acts on it: volume and power keys change its state.
    func press(_ key: String) {
        change { s in
            switch key {
            case "VolumeUp": s.volume = min(60, s.volume + 1)
            case "VolumeDown": s.volume = max(0, s.volume - 1)
            case "Mute": s.muted.toggle()
            case "Standby": s.standby.toggle()
            case "Home": s.activity = Self.launcherActivity
            default: break
            }
        }
        emit(EmulatorEvent("key", [("key", .string(key))]))
    }

    func launch(_ intent: JSONValue) -> PhilipsEmulatorAnswer {
        if intent["action"]?.stringValue == "org.droidtv.playtv.SELECTURI" {
            guard let uri = intent["extras"]?["uri"]?.stringValue, let name = Self.inputName(uri) else { return .notFound }
            change { $0.activity = Self.intent("org.droidtv.playtv", "org.droidtv.playtv.PlayTvActivity") }
            emit(EmulatorEvent("input", [("input", .string(name)), ("uri", .string(uri))]))
            return .ok
        }
        guard let package = intent["component"]?["packageName"]?.stringValue, let app = Self.apps.first(where: { $0.package == package }) else {
            return .notFound
        }
        change { $0.activity = Self.intent(app.package, app.className) }
        emit(EmulatorEvent("launch", [("app", .string(package))]))
        return .ok
    }

    func ambilight(_ method: String, _ path: String, _ body: JSONValue) -> PhilipsEmulatorAnswer {
        switch (method, path) {
        case ("GET", "ambilight/power"): return .json(.object([("power", .string(state.withLock { $0.ambilightPower } ? "On" : "Off"))]))
        case ("POST", "ambilight/power"):
            guard let power = body["power"]?.stringValue, ["On", "Off"].contains(power) else { return .notFound }
            change { $0.ambilightPower = power == "On" }
            emit(EmulatorEvent("ambilight", [("power", .string(power.lowercased()))]))
            return .ok
        case ("GET", "ambilight/supportedstyles"):
            // As Android firmware answers: styles without their settings.
            let styles: [JSONValue] = ["OFF", "FOLLOW_VIDEO", "FOLLOW_AUDIO", "Lounge light", "MANUAL", "EXPERT"].map {
                .object([("styleName", .string($0))])
            }
            return .json(.object([("supportedStyles", .array(styles))]))
        case ("GET", "ambilight/currentconfiguration"):
            let (style, setting) = state.withLock { ($0.ambilightStyle, $0.ambilightSetting) }
            return .json(.object([("styleName", .string(style)), ("isExpert", false), ("menuSetting", .string(setting))]))
        case ("POST", "ambilight/currentconfiguration"):
            guard let style = body["styleName"]?.stringValue, style.utf8.count <= 40 else { return .notFound }
            let setting = body["menuSetting"]?.stringValue ?? ""
            change { s in
                s.ambilightStyle = style
                s.ambilightSetting = setting
                s.ambilightPower = style != "OFF"
            }
            emit(EmulatorEvent("ambilight", [("style", .string(style)), ("setting", .string(setting))]))
            return .ok
        case ("GET", "ambilight/mode"): return .json(.object([("current", "internal")]))
        case ("POST", "ambilight/mode"): return .ok
        case ("GET", "ambilight/topology"): return .json(.object([("layers", 1), ("left", 2), ("top", 0), ("right", 2), ("bottom", 0)]))
        case ("GET", "ambilight/cached"), ("GET", "ambilight/processed"), ("GET", "ambilight/measured"):
            let black: JSONValue = .object([("r", 0), ("g", 0), ("b", 0)])
            let side: JSONValue = .object([("0", black), ("1", black)])
            return .json(.object([("layer1", .object([("left", side), ("top", .object([])), ("right", side), ("bottom", .object([]))]))]))
        case ("GET", "HueLamp/power"): return .json(.object([("power", "Off")]))
        default: return .notFound
        }
    }

    /// Holds the request until something the client quoted differs (answered with only
    /// that), or for `notifyHold` (answered with `{}`). A misbehaviour set meanwhile is
    /// acted on here, so a client waiting on this call sees it.
    func notifyChange(_ known: JSONValue) async -> PhilipsEmulatorAnswer {
        let deadline = ContinuousClock.now + configuration.notifyHold
        let misbehavioursBefore = state.withLock { $0.misbehaviourSet.count }
        while !Task.isCancelled {
            let current = watched(state.withLock { $0 })
            let changed = current.filter { path, value in known[path] != nil && known[path] != value }
            if !changed.isEmpty { return .json(.object(changed)) }
            let (count, pending) = state.withLock { $0.misbehaviourSet }
            if count > misbehavioursBefore, pending == .garbage || pending == .huge {
                _ = takeMisbehaviour()
                if pending == .garbage { return PhilipsEmulatorAnswer(body: Array("{\"powerstate\": [".utf8)) }
                return PhilipsEmulatorAnswer(body: Array("{\"x\": \"".utf8) + [UInt8](repeating: 0x61, count: 600 * 1024) + Array("\"}".utf8))
            }
            if ContinuousClock.now >= deadline { break }
            try? await Task.sleep(for: .milliseconds(40))
        }
        return .json(.object([]))
    }
}
