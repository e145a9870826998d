import Foundation
import LGWebOS
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport

extension EmulatedLGTV {
    /// The permission each service needs, as real TVs enforce it.
    static let permissions: [String: String] = [
        "audio/setVolume": "CONTROL_AUDIO", "audio/volumeUp": "CONTROL_AUDIO", "audio/volumeDown": "CONTROL_AUDIO",
        "audio/setMute": "CONTROL_AUDIO", "audio/getVolume": "CONTROL_AUDIO", "audio/getStatus": "CONTROL_AUDIO",
        "com.webos.service.tvpower/power/getPowerState": "READ_POWER_STATE", "system/turnOff": "CONTROL_POWER",
        "system/turnOn": "CONTROL_POWER",
        "com.webos.applicationManager/getForegroundAppInfo": "READ_RUNNING_APPS",
        "com.webos.applicationManager/listLaunchPoints": "READ_INSTALLED_APPS",
        "system.launcher/launch": "LAUNCH", "system.launcher/open": "LAUNCH", "system.launcher/close": "CLOSE",
        "com.webos.service.ime/insertText": "CONTROL_INPUT_TEXT", "com.webos.service.ime/sendEnterKey": "CONTROL_INPUT_TEXT",
        "com.webos.service.ime/deleteCharacters": "CONTROL_INPUT_TEXT",
        "com.webos.service.networkinput/getPointerInputSocket": "CONTROL_MOUSE_AND_KEYBOARD",
        "tv/getExternalInputList": "READ_INPUT_DEVICE_LIST", "tv/switchInput": "CONTROL_INPUT_TV",
        "com.webos.service.apiadapter/audio/getSoundOutput": "READ_SETTINGS",
        "com.webos.media/getForegroundAppInfo": "READ_RUNNING_APPS",
        "com.webos.service.update/getCurrentSWInformation": "READ_UPDATE_INFO",
        "com.webos.service.connectionmanager/getinfo": "READ_NETWORK_STATE",
        "tv/getChannelList": "READ_TV_CHANNEL_LIST", "tv/getCurrentChannel": "READ_CURRENT_CHANNEL",
        "tv/channelUp": "CONTROL_INPUT_TV", "tv/channelDown": "CONTROL_INPUT_TV", "tv/openChannel": "CONTROL_INPUT_TV",
        "settings/setSystemSettings": "WRITE_SETTINGS", "system.notifications/createToast": "WRITE_NOTIFICATION_TOAST",
        "com.webos.service.tvpower/power/turnOffScreen": "CONTROL_TV_SCREEN", "com.webos.service.tvpower/power/turnOnScreen": "CONTROL_TV_SCREEN",
        "media.controls/play": "CONTROL_INPUT_MEDIA_PLAYBACK", "media.controls/pause": "CONTROL_INPUT_MEDIA_PLAYBACK",
        "media.controls/stop": "CONTROL_INPUT_MEDIA_PLAYBACK",
    ]

    static let apps: [(String, String)] = [
        ("com.webos.app.home", "Home"), ("com.webos.app.livetv", "Live TV"), ("youtube.leanback.v4", "YouTube"), ("netflix", "Netflix"),
        ("com.webos.app.browser", "Web Browser"), ("com.webos.app.hdmi1", "HDMI 1"), ("com.webos.app.hdmi2", "PlayStation"),
        ("com.webos.app.hdmi3", "HDMI 3"), ("com.webos.app.externalinput.av1", "AV"),
    ]

    /// The external inputs (id, label, app, standard name for the `input` event); the user
    /// renamed HDMI 2.
    static let inputs: [(id: String, label: String, app: String, name: String)] = [
        ("HDMI_1", "HDMI 1", "com.webos.app.hdmi1", "hdmi1"), ("HDMI_2", "PlayStation", "com.webos.app.hdmi2", "hdmi2"),
        ("HDMI_3", "HDMI 3", "com.webos.app.hdmi3", "hdmi3"), ("AV_1", "AV", "com.webos.app.externalinput.av1", "av"),
    ]

    /// The emulated TV's channel `n`: 7-1, 7-2, 9-1, then 10-1, 11-1… (ATSC-style numbers,
    /// as US sets report them).
    static func channel(_ n: Int) -> (id: String, number: String, name: String) {
        let (major, minor) = n < 2 ? (7, n + 1) : (n + 7, 1)
        return ("1_\(major)_\(minor)_0_\(n + 1)", "\(major)-\(minor)", "Photon \(["News", "Weather", "Sports"][min(n, 2)]) \(n + 1)")
    }

    /// Answers a request or subscription.
    func answer(_ uri: String, payload: JSONValue, id: JSONValue, subscribe: Bool, _ client: Client) async throws {
        let (registered, granted) = client.state.withLock { ($0.registered, $0.granted) }
        guard registered || uri == "system/getSystemInfo" else {
            emit(EmulatorEvent("refused", [("uri", .string(uri)), ("reason", .string("not registered"))]))
            return try await fail(client, id, "401 insufficient permissions (not registered)")
        }
        if let needed = Self.permissions[uri], !granted.contains(needed) {
            emit(EmulatorEvent("refused", [("uri", .string(uri)), ("reason", .string("permission \(needed)"))]))
            return try await fail(client, id, "401 insufficient permissions")
        }
        if subscribe { emit(EmulatorEvent("subscribe", [("uri", .string(uri))])) }
        // A subscriber is registered before its first answer is read: a change made meanwhile
        // by another client (a turnOff) is then pushed to it too, never lost between the two.
        let isState = self.statePayload(uri) != nil
        if subscribe, isState { client.state.withLock { $0.subscriptions.append((id, uri)) } }
        if let state = self.statePayload(uri) {
            switch state {
            case .success(let fields):
                return try await respond(client, id, fields + (subscribe ? [("subscribed", true)] : []))
            case .failure(let error):
                if subscribe { client.state.withLock { $0.subscriptions.removeAll { $0.uri == uri && $0.id == id } } }
                return try await fail(client, id, error.message)
            }
        }
        let performed: [(String, JSONValue)]?
        do {
            performed = try await perform(uri, payload, client)
        } catch let error as ServiceError {
            return try await fail(client, id, error.message)
        }
        guard let fields = performed else {
            emit(EmulatorEvent("refused", [("uri", .string(uri)), ("reason", .string("no such service"))]))
            return try await fail(client, id, "404 no such service or method")
        }
        try await respond(client, id, fields)
    }

    private struct ServiceError: Error {
        let message: String
    }

    func respond(_ client: Client, _ id: JSONValue, _ fields: [(String, JSONValue)]) async throws {
        try await send(client, .object([("type", "response"), ("id", id), ("payload", .object([("returnValue", true)] + fields))]))
    }

    /// Tells every subscriber of `uri` its new state.
    func push(_ uri: String) async {
        guard case .success(let fields)? = statePayload(uri) else { return }
        for client in state.withLock({ Array($0.clients.values) }) {
            for subscription in client.state.withLock({ $0.subscriptions }) where subscription.uri == uri {
                do {
                    try await respond(client, subscription.id, fields)
                } catch {
                    // A subscriber that cannot be told is gone; say so rather than hide it.
                    emit(EmulatorEvent("push_failed", [("uri", .string(uri)), ("error", .string(PhotonError.wrap(error).message))]))
                }
            }
        }
    }

    /// The state services (those that can be subscribed to), or nil for other services.
    private func statePayload(_ uri: String) -> Result<[(String, JSONValue)], ServiceError>? {
        let s = state.withLock { $0 }
        switch uri {
        case "system/getSystemInfo":
            return .success([
                ("modelName", .string(configuration.modelName)), ("serialNumber", "PHOTONEMU0001"), ("receiverType", "dvb"),
                ("features", .object([("dvr", true), ("3d", false)])), ("programMode", false),
            ])
        case "com.webos.service.tvpower/power/getPowerState":
            return .success([("state", .string(s.powerState))] + (s.processing.map { [("processing", .string($0))] } ?? []))
        case "com.webos.applicationManager/getForegroundAppInfo":
            return .success([("appId", .string(s.app)), ("windowId", ""), ("processId", "")])
        case "audio/getVolume":
            return .success([
                ("callerId", "com.webos.service.apiadapter"),
                (
                    "volumeStatus",
                    .object([
                        ("activeStatus", true), ("adjustVolume", true), ("maxVolume", 100), ("muteStatus", .bool(s.muted)),
                        ("volume", .int(s.volume)), ("mode", "normal"), ("soundOutput", .string(s.soundOutput)),
                    ])
                ),
            ])
        case "audio/getStatus":
            return .success([("mute", .bool(s.muted)), ("volume", .int(s.volume)), ("scenario", "mastervolume_tv_speaker")])
        case "com.webos.applicationManager/listLaunchPoints":
            return .success([("launchPoints", .array(Self.apps.map { .object([("id", .string($0.0)), ("title", .string($0.1)), ("icon", "")]) }))])
        case "tv/getExternalInputList":
            return .success([
                (
                    "devices",
                    .array(
                        Self.inputs.enumerated().map { n, input in
                            .object([
                                ("id", .string(input.id)), ("label", .string(input.label)), ("port", .int(n + 1)), ("connected", .bool(n == 1)),
                                ("appId", .string(input.app)), ("favorite", false),
                            ])
                        })
                )
            ])
        case "com.webos.service.apiadapter/audio/getSoundOutput":
            return .success([("soundOutput", .string(s.soundOutput))])
        case "com.webos.media/getForegroundAppInfo":
            return .success([
                (
                    "foregroundAppInfo",
                    .array([
                        .object([
                            ("appId", .string(s.app)), ("playState", .string(s.playState)), ("type", "media"), ("mediaId", "_photon1"),
                            ("windowId", "_Window_Id_1"),
                        ])
                    ])
                )
            ])
        case "tv/getChannelList":
            return .success([
                ("channelListCount", .int(configuration.channelCount)),
                (
                    "channelList",
                    .array(
                        (0..<configuration.channelCount).map { n in
                            let channel = Self.channel(n)
                            return .object([
                                ("channelId", .string(channel.id)), ("channelName", .string(channel.name)),
                                ("channelNumber", .string(channel.number)),
                            ])
                        })
                ),
            ])
        case "tv/getCurrentChannel":
            guard s.app == "com.webos.app.livetv" else { return .failure(ServiceError(message: "500 Application error")) }
            let first = Self.channel(0)
            return .success([("channelId", .string(first.id)), ("channelName", .string(first.name)), ("channelNumber", .string(first.number))])
        default:
            return nil
        }
    }

    /// Services that act; nil for an unknown one.
    private func perform(_ uri: String, _ payload: JSONValue, _ client: Client) async throws -> [(String, JSONValue)]? {
        switch uri {
        case "audio/setVolume":
            let level = max(0, min(100, payload["volume"]?.intValue ?? 0))
            state.withLock { $0.volume = level }
            emit(EmulatorEvent("volume", [("level", .int(level))]))
            await push("audio/getVolume")
            return [("volume", .int(level)), ("soundOutput", .string(state.withLock { $0.soundOutput }))]
        case "com.webos.service.apiadapter/audio/changeSoundOutput":
            // As webOS answers: an output this set lacks is an error, nothing changes.
            let output = payload["output"]?.stringValue ?? ""
            guard LGSoundOutputs.known.contains(where: { $0.id == output }) else {
                emit(EmulatorEvent("sound_output_failed", [("output", .string(output))]))
                throw ServiceError(message: "500 Invalid sound output")
            }
            state.withLock { $0.soundOutput = output }
            emit(EmulatorEvent("sound_output", [("output", .string(output))]))
            await push(LGSoundOutputs.getURI)
            await push("audio/getVolume")
            return []
        case "audio/volumeUp", "audio/volumeDown":
            let up = uri.hasSuffix("Up")
            state.withLock { s in s.volume = max(0, min(100, s.volume + (up ? 1 : -1))) }
            emit(EmulatorEvent("volume_step", [("direction", .string(up ? "up" : "down"))]))
            await push("audio/getVolume")
            return []
        case "audio/setMute":
            let mute = payload["mute"]?.boolValue ?? true
            state.withLock { $0.muted = mute }
            emit(EmulatorEvent("mute", [("muted", .bool(mute))]))
            await push("audio/getVolume")
            return []
        case "system/turnOff":
            emit(EmulatorEvent("power_off"))
            // As real sets do: still Active while the switch-off is processed, then standby.
            await setPowerState("Active", processing: "Request Active Standby")
            await setPowerState("Active Standby")
            return []
        case "system/turnOn":
            emit(EmulatorEvent("power_on"))
            await setPowerState("Active")
            return []
        case "system.launcher/launch":
            let app = payload["id"]?.stringValue ?? ""
            guard Self.apps.contains(where: { $0.0 == app }) else {
                emit(EmulatorEvent("launch_failed", [("app", .string(app))]))
                return [("returnValue", false), ("errorCode", -101), ("errorText", "no such app")]
            }
            state.withLock { $0.app = app }
            emit(EmulatorEvent("launch", [("app", .string(app))]))
            await push("com.webos.applicationManager/getForegroundAppInfo")
            return [("id", .string(app)), ("sessionId", "cGhvdG9u")]
        case "system.launcher/open":
            let target = payload["target"]?.stringValue ?? ""
            state.withLock { $0.app = "com.webos.app.browser" }
            emit(EmulatorEvent("open", [("url", .string(target))]))
            await push("com.webos.applicationManager/getForegroundAppInfo")
            return [("id", "com.webos.app.browser"), ("sessionId", "cGhvdG9u")]
        case "system.launcher/close":
            emit(EmulatorEvent("close_app", [("app", .string(payload["id"]?.stringValue ?? ""))]))
            return []
        case "com.webos.service.ime/insertText":
            emit(EmulatorEvent("text", [("text", .string(payload["text"]?.stringValue ?? ""))]))
            return []
        case "com.webos.service.ime/sendEnterKey":
            emit(EmulatorEvent("enter"))
            return []
        case "com.webos.service.ime/deleteCharacters":
            emit(EmulatorEvent("delete", [("count", .int(payload["count"]?.intValue ?? 0))]))
            return []
        case "com.webos.service.networkinput/getPointerInputSocket":
            let path = "/resources/" + ((try? SecureRandom.bytes(20)) ?? []).map { hexByte($0).lowercased() }.joined() + "/netinput.pointer.sock"
            client.state.withLock { $0.pointerPath = path }
            let port = (client.secure ? self.port : self.plainPort) ?? 0
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            return [("socketPath", .string("\(client.secure ? "wss" : "ws")://\(host):\(port)\(path)"))]
        case "com.webos.service.connectionmanager/getinfo":
            return [
                ("wiredInfo", .object([("macAddress", .string(configuration.mac.lowercased())), ("state", "connected")])),
                ("wifiInfo", .object([("macAddress", .string(configuration.wifiMAC.lowercased())), ("state", "disconnected")])),
            ]
        case "com.webos.service.update/getCurrentSWInformation":
            return [("product_name", "webOSTV 23"), ("model_name", "HE_DTV_W23O_AFABATAA"), ("major_ver", "23"), ("minor_ver", "20.56")]
        case "system.notifications/createToast":
            emit(EmulatorEvent("toast", [("message", .string(payload["message"]?.stringValue ?? ""))]))
            return [("toastId", "com.webos.service.apiadapter-1")]
        case "settings/setSystemSettings":
            return []
        case "com.webos.service.tvpower/power/turnOffScreen", "com.webos.service.tvpower/power/turnOnScreen":
            let on = uri.hasSuffix("OnScreen")
            // Only a TV that is on has a picture to switch.
            guard ["Active", "Screen Off", "Screen Saver"].contains(state.withLock({ $0.powerState })) else {
                throw ServiceError(message: "500 Application error")
            }
            emit(EmulatorEvent("screen", [("on", .bool(on))]))
            await setPowerState(on ? "Active" : "Screen Off")
            return []
        case "tv/switchInput":
            guard let input = Self.inputs.first(where: { $0.id == payload["inputId"]?.stringValue }) else {
                emit(EmulatorEvent("refused", [("uri", .string(uri)), ("reason", .string("no such input"))]))
                throw ServiceError(message: "500 Application error")
            }
            state.withLock { $0.app = input.app }
            emit(EmulatorEvent("input", [("input", .string(input.name)), ("id", .string(input.id))]))
            await push("com.webos.applicationManager/getForegroundAppInfo")
            return []
        case "tv/openChannel":
            let id = payload["channelId"]?.stringValue
            guard let n = (0..<configuration.channelCount).first(where: { Self.channel($0).id == id }) else {
                emit(EmulatorEvent("refused", [("uri", .string(uri)), ("reason", .string("no such channel"))]))
                throw ServiceError(message: "500 Application error")
            }
            state.withLock { $0.app = "com.webos.app.livetv" }
            emit(EmulatorEvent("channel", [("number", .string(Self.channel(n).number)), ("id", .string(Self.channel(n).id))]))
            await push("com.webos.applicationManager/getForegroundAppInfo")
            return []
        case "tv/channelUp", "tv/channelDown":
            emit(EmulatorEvent("tv", [("action", .string(String(uri.dropFirst(3))))]))
            return []
        case "media.controls/play", "media.controls/pause", "media.controls/stop":
            let action = String(uri.dropFirst("media.controls/".count))
            emit(EmulatorEvent("media", [("action", .string(action))]))
            if action != "stop" {
                state.withLock { $0.playState = action == "play" ? "playing" : "paused" }
                await push("com.webos.media/getForegroundAppInfo")
            }
            return []
        default:
            return nil
        }
    }
}
