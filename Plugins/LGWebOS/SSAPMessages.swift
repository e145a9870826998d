import PhotonCore

/// One frame from an LG TV's main SSAP socket, read strictly: JSON, an object, a `type`
/// from the allowlist. Everything in it came from the network.
public struct SSAPMessage: Sendable, Equatable {
    /// The frame types Photon acts on; any other type is dropped unread.
    public enum Kind: String, Sendable {
        case hello, response, registered, error
    }

    public var kind: Kind
    /// The request id echoed (a number or a string on the wire; kept as text).
    public var id: String?
    /// The `error` text of an error frame (`401 insufficient permissions`).
    public var error: String?
    /// The payload object (an empty object when absent).
    public var payload: JSONValue

    /// The largest frame accepted on the main socket. Channel lists are the largest
    /// replies (a few thousand channels with names and logos run to 1–2 MiB); 4 MiB leaves
    /// room and still bounds what a hostile TV can make us buffer.
    public static let maximumSize = 4 << 20
    /// The largest frame accepted on the pointer socket: the TV sends nothing there.
    public static let maximumPointerSize = 8 << 10

    public init(kind: Kind, id: String? = nil, error: String? = nil, payload: JSONValue = .object([])) {
        self.kind = kind
        self.id = id
        self.error = error
        self.payload = payload
    }

    /// Parses one text frame. Returns nil for a well-formed frame of a type not on the
    /// allowlist (the caller drops it); throws `protocolViolation` for anything else.
    public static func parse(_ text: String) throws -> SSAPMessage? {
        let json: JSONValue
        do {
            json = try JSONValue.parse(Array(text.utf8), maximumDepth: 64)
        } catch let error as JSONParseError {
            throw PhotonError(.protocolViolation, "the TV sent a frame that is not JSON (\(error.reason))")
        }
        guard json.isObject else { throw PhotonError(.protocolViolation, "the TV sent a JSON frame that is not an object") }
        guard let typeName = json["type"]?.stringValue else {
            throw PhotonError(.protocolViolation, "the TV sent a frame without a type")
        }
        guard let kind = Kind(rawValue: typeName) else { return nil }
        var id: String?
        switch json["id"] {
        case .string(let text)?: id = text
        case .int(let number)?: id = String(number)
        case nil, .null?: id = nil
        default: throw PhotonError(.protocolViolation, "the TV sent a frame whose id is neither a number nor a string")
        }
        let payload = json["payload"] ?? .object([])
        guard payload.isObject else { throw PhotonError(.protocolViolation, "the TV sent a \(typeName) whose payload is not an object") }
        return SSAPMessage(kind: kind, id: id, error: json["error"]?.stringValue, payload: payload)
    }

    /// The failure this reply reports, or nil when it succeeded: an error frame, or a
    /// payload with `returnValue: false` (with `errorText`).
    public var failure: String? {
        if kind == .error { return error ?? payload["errorText"]?.stringValue ?? "error" }
        if payload["returnValue"]?.boolValue == false {
            return payload["errorText"]?.stringValue ?? payload["errorCode"].map { "error \($0.encoded)" } ?? "the request failed"
        }
        return nil
    }
}

/// The frames Photon sends on the main socket.
public enum SSAPRequest {
    /// `hello`, with the empty payload newer firmware requires.
    public static let hello = #"{"id":"hello","type":"hello","payload":{}}"#

    /// A request, subscription or unsubscription: `uri` is without `ssap://`.
    public static func message(id: Int, type: String = "request", uri: String, payload: JSONValue = .object([])) -> String {
        JSONValue.object([("id", .int(id)), ("type", .string(type)), ("uri", .string("ssap://" + uri)), ("payload", payload)]).encoded
    }

    /// The register frame: PROMPT pairing with an unsigned manifest (no `signed` block, no
    /// `signatures`), so firmware that blacklists the signature every client copied has
    /// nothing to refuse. The client key is sent when one is stored.
    public static func register(id: String, clientKey: String?) -> String {
        let manifest = JSONValue.object([
            ("manifestVersion", 1), ("appVersion", "1.1"),
            ("permissions", .array(LGPermissions.requested.map { .string($0) })),
        ])
        return JSONValue.object([
            ("type", "register"), ("id", .string(id)),
            (
                "payload",
                .object([
                    ("forcePairing", false), ("pairingType", "PROMPT"), ("client-key", .optional(clientKey)), ("manifest", manifest),
                ])
            ),
        ]).encoded
    }
}

/// The permissions Photon asks for: the unsigned list current clients send, which keeps
/// `CONTROL_INPUT_TEXT` and `CONTROL_MOUSE_AND_KEYBOARD` (without them the pointer socket
/// is refused). `READ_UPDATE_INFO` and `WRITE_SETTINGS` are signed-tier: TVs do not grant
/// them to an unsigned manifest, and Photon uses neither.
public enum LGPermissions {
    public static let requested = [
        "APP_TO_APP", "CLOSE", "CONTROL_AUDIO", "CONTROL_DISPLAY", "CONTROL_INPUT_JOYSTICK", "CONTROL_INPUT_MEDIA_PLAYBACK",
        "CONTROL_INPUT_MEDIA_RECORDING", "CONTROL_INPUT_TEXT", "CONTROL_INPUT_TV", "CONTROL_MOUSE_AND_KEYBOARD", "CONTROL_POWER",
        "CONTROL_TV_SCREEN", "LAUNCH", "LAUNCH_WEBAPP", "READ_APP_STATUS", "READ_COUNTRY_INFO", "READ_CURRENT_CHANNEL",
        "READ_INPUT_DEVICE_LIST", "READ_INSTALLED_APPS", "READ_LGE_SDX", "READ_LGE_TV_INPUT_EVENTS", "READ_NETWORK_STATE",
        "READ_NOTIFICATIONS", "READ_POWER_STATE", "READ_RUNNING_APPS", "READ_SETTINGS", "READ_TV_CHANNEL_LIST", "READ_TV_CURRENT_TIME",
        "READ_UPDATE_INFO", "SEARCH", "TEST_OPEN", "TEST_PROTECTED", "TEST_SECURE", "UPDATE_FROM_REMOTE_APP",
        "WRITE_NOTIFICATION_ALERT", "WRITE_NOTIFICATION_TOAST", "WRITE_SETTINGS",
    ]
    /// Granted only to a signed manifest.
    public static let signedOnly: Set<String> = ["READ_UPDATE_INFO", "WRITE_SETTINGS"]
}

/// The TV's answer to `hello`: what `photon probe` shows and pairing checks.
public struct LGHello: Sendable, Equatable {
    public var deviceUUID: String?
    public var osName: String?
    /// `deviceOSReleaseVersion` (`deviceOSVersion` is always 4.1.0).
    public var osRelease: String?
    public var pairingTypes: [String]
    public var protocolVersion: Int?

    public init(payload: JSONValue) {
        deviceUUID = payload["deviceUUID"]?.stringValue.map { Redaction.sanitize($0, limit: 80) }
        osName = payload["deviceOS"]?.stringValue.map { Redaction.sanitize($0, limit: 32) }
        osRelease = payload["deviceOSReleaseVersion"]?.stringValue.map { Redaction.sanitize($0, limit: 32) }
        pairingTypes = (payload["pairingTypes"]?.arrayValue ?? []).compactMap(\.stringValue).prefix(16).map { Redaction.sanitize($0, limit: 32) }
        protocolVersion = payload["protocolVersion"]?.intValue
    }
}

/// What the TV's replies and subscription updates say about its state, read defensively.
public enum LGState {
    /// `getPowerState`: Active, Screen Off and Screen Saver are on; Active Standby,
    /// Suspend and Power Off (or no state) are off.
    /// A TV still `Active` but `processing` a switch-off ("Request Active Standby",
    /// "Request Power Off", "Request Suspend") is not on: it is going.
    public static func isOn(_ payload: JSONValue) -> Bool? {
        powerState(payload).map { $0.state == .on || $0.state == .screenOff }
    }

    /// The power state and the TV's words for it. Active is on (Screen Saver too, with
    /// that reason), Screen Off is screen-off, Active Standby is standby, Suspend and Power
    /// Off are off; a switch-off in progress is the state it is going to. There is no
    /// known value for pixel refresh: it reads as whatever the TV reports.
    public static func powerState(_ payload: JSONValue) -> (state: PowerState, reason: String?)? {
        guard let state = payload["state"]?.stringValue else { return nil }
        let processing = payload["processing"]?.stringValue.map { Redaction.sanitize($0, limit: 64) }
        if let processing, processing.hasPrefix("Request") {
            if processing.contains("Standby") { return (.standby, processing) }
            if processing.contains("Power Off") || processing.contains("Suspend") { return (.off, processing) }
        }
        switch state {
        case "Active": return (.on, processing)
        case "Screen Saver": return (.on, "Screen Saver")
        case "Screen Off": return (.screenOff, "Screen Off")
        case "Active Standby": return (.standby, "Active Standby")
        case "Suspend", "Power Off": return (.off, state)
        default: return (.on, Redaction.sanitize(state, limit: 64))
        }
    }

    /// `getVolume` in both shapes: `{"volumeStatus":{"volume","muteStatus","maxVolume"}}`
    /// and the legacy flat `{"volume","muted"}`; also `getStatus` (`mute`). An external
    /// audio device reports -1: no level is known then.
    public static func volume(_ payload: JSONValue) -> VolumeState? {
        let status = payload["volumeStatus"].flatMap { $0.isObject ? $0 : nil } ?? payload
        guard let level = status["volume"]?.intValue, level >= 0, level <= 1000 else { return nil }
        let maximum = status["maxVolume"]?.intValue.flatMap { $0 > 0 && $0 <= 1000 ? $0 : nil } ?? 100
        let muted = status["muteStatus"]?.boolValue ?? status["muted"]?.boolValue ?? status["mute"]?.boolValue ?? false
        return VolumeState(level: min(level, maximum), maximum: maximum, muted: muted)
    }

    /// `getForegroundAppInfo`: the app id, or nil when none is reported.
    public static func foregroundApp(_ payload: JSONValue) -> String? {
        guard let app = payload["appId"]?.stringValue, !app.isEmpty else { return nil }
        return Redaction.sanitize(app, limit: 128)
    }

    /// A change to the launch points: the whole list, or one app added, updated or removed.
    public enum LaunchPointChange: Sendable, Equatable {
        case list([TVApp])
        case added(TVApp)
        case removed(String)
    }

    /// `listLaunchPoints` (first reply or later update).
    public static func launchPoints(_ payload: JSONValue) -> LaunchPointChange? {
        if let items = payload["launchPoints"]?.arrayValue {
            return .list(items.prefix(2000).compactMap(app))
        }
        guard let change = payload["change"]?.stringValue, let id = payload["id"]?.stringValue, !id.isEmpty else { return nil }
        if change == "removed" { return .removed(Redaction.sanitize(id, limit: 128)) }
        return app(payload).map { .added($0) }
    }

    static func app(_ item: JSONValue) -> TVApp? {
        guard let id = item["id"]?.stringValue, !id.isEmpty else { return nil }
        return TVApp(id: Redaction.sanitize(id, limit: 128), name: Redaction.sanitize(item["title"]?.stringValue ?? id, limit: 64))
    }

    /// `com.webos.media/getForegroundAppInfo`: the first player's state (`playing`,
    /// `paused`…).
    public static func playback(_ payload: JSONValue) -> PlaybackState? {
        guard let first = payload["foregroundAppInfo"]?.arrayValue?.first, let state = first["playState"]?.stringValue, !state.isEmpty else {
            return nil
        }
        return PlaybackState(state: Redaction.sanitize(state, limit: 32))
    }

    /// `connectionmanager/getinfo`: the wired and Wi-Fi MACs, checked.
    public static func macs(_ payload: JSONValue) -> [String] {
        [payload["wiredInfo"]?["macAddress"], payload["wifiInfo"]?["macAddress"]].compactMap { value in
            value?.stringValue.flatMap { MACAddress.normalized($0) }
        }.filter { $0 != "00:00:00:00:00:00" }
    }

    /// The path of the pointer socket from `getPointerInputSocket`'s `socketPath`
    /// (`wss://HOST:3001/resources/<hex>/netinput.pointer.sock`), with its scheme and
    /// port. The host in it is ignored: the socket is opened to the TV already connected,
    /// never to an address the TV names.
    public static func pointerSocket(_ payload: JSONValue) throws -> (secure: Bool, port: UInt16?, path: String) {
        guard let url = payload["socketPath"]?.stringValue, url.utf8.count <= 1024 else {
            throw PhotonError(.protocolViolation, "the TV's pointer socket reply has no socketPath")
        }
        let secure: Bool
        let rest: Substring
        if url.hasPrefix("wss://") {
            secure = true
            rest = url.dropFirst(6)
        } else if url.hasPrefix("ws://") {
            secure = false
            rest = url.dropFirst(5)
        } else {
            throw PhotonError(.protocolViolation, "the TV's pointer socket is not a WebSocket URL")
        }
        guard let slash = rest.firstIndex(of: "/") else { throw PhotonError(.protocolViolation, "the TV's pointer socket URL has no path") }
        let authority = rest[..<slash]
        let path = String(rest[slash...])
        guard path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw PhotonError(.protocolViolation, "the TV's pointer socket path has characters a URL cannot hold")
        }
        var port: UInt16?
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let number = UInt16(authority[authority.index(after: colon)...]), number > 0 else {
                throw PhotonError(.protocolViolation, "the TV's pointer socket URL has an invalid port")
            }
            port = number
        }
        return (secure, port, path)
    }
}

/// The pointer socket's frames: `key:value` lines, LF only, ended by a blank line.
public enum LGPointer {
    /// A button press. `name` must be a button name (capitals, digits, `_`): anything else
    /// could inject lines into the frame.
    public static func button(_ name: String) throws -> String {
        guard isButtonName(name) else {
            throw PhotonError(
                .usage, "'\(Redaction.sanitize(name, limit: 40))' is not an LG button name", hint: "button names are like HOME, ENTER, 3D_MODE")
        }
        return "type:button\nname:\(name)\n\n"
    }

    public static func isButtonName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 32
            && name.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// Parses one pointer frame (for the emulated TV): its fields, or nil when malformed.
    public static func parse(_ frame: String) -> [String: String]? {
        guard frame.hasSuffix("\n\n"), frame.utf8.count <= SSAPMessage.maximumPointerSize else { return nil }
        var fields: [String: String] = [:]
        for line in frame.dropLast(2).split(separator: "\n", omittingEmptySubsequences: false) {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            fields[String(line[..<colon])] = String(line[line.index(after: colon)...])
        }
        return fields["type"] == nil ? nil : fields
    }
}
