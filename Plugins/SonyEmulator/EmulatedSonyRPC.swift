import Foundation
import PhotonCore
import PhotonEmulatorSupport
import Sony

/// The emulated Bravia's JSON-RPC methods: what each call answers and how it changes the TV.
extension EmulatedSony {
    struct RPCError: Error {
        var code: Int
        var message: String
        static let illegalState = RPCError(code: 7, message: "Illegal State")
        static let notPowerOn = RPCError(code: 40005, message: "not power-on")
        static func argument(_ what: String) -> RPCError { RPCError(code: 3, message: "Illegal Argument: \(what)") }
    }

    /// One JSON-RPC method: its result array, or its error.
    func rpc(_ service: String, _ method: String, _ p: JSONValue) -> Result<[JSONValue], RPCError> {
        let c = configuration
        let standby = state.withLock { $0.standby }
        let whenOn: Set<String> = [
            "setActiveApp", "setPlayContent", "setTextForm", "setAudioVolume", "setAudioMute", "getVolumeInformation", "setSoundSettings",
        ]
        if standby && whenOn.contains(method) { return .failure(.notPowerOn) }
        switch (service, method) {
        case ("system", "getInterfaceInformation"):
            return .success([
                .object([
                    ("productCategory", "tv"), ("productName", "BRAVIA"), ("modelName", .string(c.model)), ("serverName", ""),
                    ("interfaceVersion", "5.0.1"),
                ])
            ])
        case ("system", "getSystemInformation"):
            return .success([
                .object([
                    ("product", "TV"), ("region", "XEU"), ("language", "eng"), ("model", .string(c.model)), ("serial", .string(c.serial)),
                    ("macAddr", .string(c.mac)), ("name", .string(c.name)), ("generation", "5.2.0"), ("area", "DEU"), ("cid", "photon-emulated"),
                ])
            ])
        case ("system", "getRemoteControllerInfo"):
            return .success([
                .object([("bundled", .bool(true)), ("type", "IR_REMOTE_BUNDLE_TYPE_AEP_N")]),
                .array(Self.keyCodes.map { .object([("name", .string($0.name)), ("value", .string($0.code))]) }),
            ])
        case ("system", "getPowerStatus"): return .success([.object([("status", .string(standby ? "standby" : "active"))])])
        case ("system", "setPowerStatus"):
            guard let on = p["status"]?.boolValue else { return .failure(.argument("status")) }
            state.withLock { $0.standby = !on }
            emit(EmulatorEvent("power", [("power", .string(on ? "on" : "standby"))]))
            return .success([])
        case ("system", "getWolMode"): return .success([.object([("enabled", .bool(true))])])
        case ("audio", "getVolumeInformation"):
            let (volume, muted) = state.withLock { ($0.volume, $0.muted) }
            return .success([
                .array([
                    .object([
                        ("target", "speaker"), ("volume", .int(volume)), ("mute", .bool(muted)), ("maxVolume", .int(100)), ("minVolume", .int(0)),
                    ])
                ])
            ])
        case ("audio", "setAudioVolume"):
            guard let text = p["volume"]?.stringValue, let number = Int(text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
                return .failure(.argument("volume"))
            }
            let level = state.withLock { s -> Int in
                s.volume = max(0, min(100, text.hasPrefix("+") || text.hasPrefix("-") ? s.volume + number : number))
                return s.volume
            }
            emit(EmulatorEvent("volume", [("level", .int(level))]))
            return .success([.int(0)])
        case ("audio", "setAudioMute"):
            guard let mute = p["status"]?.boolValue else { return .failure(.argument("status")) }
            state.withLock { $0.muted = mute }
            emit(EmulatorEvent("mute", [("muted", .bool(mute))]))
            return .success([.int(0)])
        case ("audio", "getSoundSettings"):
            let sound = state.withLock { $0.sound }
            return .success([
                .array([
                    .object([
                        ("target", "outputTerminal"), ("currentValue", .string(sound)),
                        ("candidate", .array(Self.soundOutputs.map { .object([("value", .string($0)), ("isAvailable", .bool(true))]) })),
                    ])
                ])
            ])
        case ("audio", "setSoundSettings"):
            guard let value = p["settings"]?.arrayValue?.first?["value"]?.stringValue, Self.soundOutputs.contains(value) else {
                return .failure(.argument("settings"))
            }
            state.withLock { $0.sound = value }
            emit(EmulatorEvent("sound", [("output", .string(value))]))
            return .success([])
        case ("video", "getPictureQualitySettings"):
            let picture = state.withLock { $0.picture }
            let target = p["target"]?.stringValue ?? ""
            guard target.isEmpty || target == "pictureMode" else { return .success([.array([])]) }
            return .success([
                .array([
                    .object([
                        ("target", "pictureMode"), ("currentValue", .string(picture)),
                        ("candidate", .array(Self.pictureModes.map { .object([("value", .string($0))]) })),
                    ])
                ])
            ])
        case ("video", "setPictureQualitySettings"):
            guard let setting = p["settings"]?.arrayValue?.first, setting["target"]?.stringValue == "pictureMode",
                let value = setting["value"]?.stringValue, Self.pictureModes.contains(value)
            else { return .failure(.argument("settings")) }
            state.withLock { $0.picture = value }
            emit(EmulatorEvent("picture", [("mode", .string(value))]))
            return .success([])
        case ("avContent", "getCurrentExternalInputsStatus"):
            let current = state.withLock { $0.app == nil ? $0.input : "" }
            return .success([
                .array(
                    Self.inputs.map {
                        .object([
                            ("uri", .string($0.uri)), ("title", .string($0.title)), ("connection", .bool(true)), ("label", .string($0.label)),
                            ("icon", "meta:hdmi"), ("status", .string($0.uri == current ? "true" : "false")),
                        ])
                    })
            ])
        case ("avContent", "getSourceList"):
            guard p["scheme"]?.stringValue == "tv" else { return .success([.array([])]) }
            return .success([.array([.object([("source", "tv:dvbt")])])])
        case ("avContent", "getContentCount"):
            guard p["source"]?.stringValue == "tv:dvbt" else { return .success([.object([("count", .int(0))])]) }
            return .success([.object([("count", .int(Self.channels.count))])])
        case ("avContent", "getContentList"):
            guard p["source"]?.stringValue == "tv:dvbt", let start = p["stIdx"]?.intValue, let count = p["cnt"]?.intValue, start >= 0,
                (1...50).contains(count)
            else { return .failure(.argument("stIdx/cnt")) }
            let page = Self.channels.dropFirst(start).prefix(count).enumerated().map { offset, channel in
                JSONValue.object([
                    ("uri", .string(channel.uri)), ("title", .string(channel.title)), ("index", .int(start + offset)),
                    ("dispNum", .string(channel.number)), ("programMediaType", "tv"),
                ])
            }
            return .success([.array(page)])
        case ("avContent", "setPlayContent"):
            guard let uri = p["uri"]?.stringValue else { return .failure(.argument("uri")) }
            if let channel = Self.channels.first(where: { $0.uri == uri }) {
                state.withLock { s in
                    s.input = "tv:dvbt"
                    s.app = nil
                }
                emit(EmulatorEvent("channel", [("number", .string(String(Int(channel.number) ?? 0))), ("uri", .string(uri))]))
                return .success([])
            }
            let standard = uri.hasPrefix("tv:") ? "tv" : Self.inputs.first { $0.uri == uri }?.standard
            guard let standard else { return .failure(RPCError(code: 41001, message: "not found: \(uri)")) }
            state.withLock { s in
                s.input = uri
                s.app = nil
            }
            emit(EmulatorEvent("input", [("input", .string(standard)), ("uri", .string(uri))]))
            return .success([])
        case ("avContent", "getPlayingContentInfo"):
            let (input, app) = state.withLock { ($0.input, $0.app) }
            guard app == nil, let shown = Self.inputs.first(where: { $0.uri == input }) else { return .failure(.illegalState) }
            return .success([.object([("uri", .string(shown.uri)), ("source", "extInput:hdmi"), ("title", .string(shown.title))])])
        case ("appControl", "getApplicationList"):
            return .success([.array(Self.apps.map { .object([("title", .string($0.title)), ("uri", .string($0.uri)), ("icon", "")]) })])
        case ("appControl", "setActiveApp"):
            guard let uri = p["uri"]?.stringValue, Self.apps.contains(where: { $0.uri == uri }) else {
                return .failure(RPCError(code: 41400, message: "app not found"))
            }
            state.withLock { $0.app = uri }
            emit(EmulatorEvent("launch", [("app", .string(uri))]))
            return .success([])
        case ("appControl", "setTextForm"):
            guard let text = p.stringValue ?? p["text"]?.stringValue else { return .failure(.argument("text")) }
            emit(EmulatorEvent("text", [("text", .string(text))]))
            return .success([])
        default:
            return .failure(RPCError(code: 12, message: "No Such Method"))
        }
    }
}
