import Foundation
import PhotonCore
import PhotonWire

/// The daemon's JSON-lines protocol, shared by the server and its clients so both
/// sides encode commands, events and errors the same way (docs/daemon.md).
public enum ServiceProtocol {
    /// Bumped when a change would break existing clients.
    public static let version = DaemonWire.version

    // MARK: commands

    /// Reads a command object: `{"key":"home"}`, `{"key":"select","hold":1000}`,
    /// `{"key":"home","action":"hold-start"}`, `{"raw":"KEYCODE_TV_INPUT"}`,
    /// `{"text":"…"}`, `{"launch":"…"}`, `{"input":"hdmi2"}`, `{"notify":"…"}`, `{"screen":"off"}`,
    /// `{"volume":"up|down|mute"}`, `{"voice":{"text":"open netflix","to":"search"}}` (words
    /// already recognised).
    public static func command(from json: JSONValue) throws -> RemoteCommand {
        guard json.isObject else { throw usage("\"command\" must be an object such as {\"key\":\"home\"}") }
        if let name = json["key"]?.stringValue ?? json["raw"]?.stringValue {
            let input: KeyInput
            if json["raw"] != nil {
                guard !name.isEmpty, name.utf8.count <= 64 else { throw usage("\"raw\" takes a brand key code of 1 to 64 bytes") }
                input = .raw(name)
            } else {
                guard let key = RemoteKey(name: name) else {
                    throw PhotonError(.usage, "unknown key '\(Redaction.sanitize(name))'", hint: "see `photon keys`")
                }
                input = .key(key)
            }
            if let hold = json["hold"] {
                guard let ms = hold.intValue, (1...60_000).contains(ms) else { throw usage("\"hold\" takes milliseconds from 1 to 60000") }
                return .longPress(input, milliseconds: ms)
            }
            let actionName = json["action"]?.stringValue ?? KeyAction.press.rawValue
            guard let action = KeyAction(rawValue: actionName) else {
                throw usage("\"action\" takes press, hold-start or hold-end, not '\(Redaction.sanitize(actionName))'")
            }
            return .key(input, action)
        }
        if let text = json["text"]?.stringValue {
            guard text.utf8.count <= 4096 else { throw usage("\"text\" is limited to 4096 bytes") }
            return .text(text)
        }
        if let app = json["launch"]?.stringValue {
            guard !app.isEmpty, app.utf8.count <= 2048 else { throw usage("\"launch\" takes an app id or link of 1 to 2048 bytes") }
            return .launch(app)
        }
        if let keyword = json["search"]?.stringValue {
            guard !keyword.isEmpty, keyword.utf8.count <= 512 else { throw usage("\"search\" takes 1 to 512 bytes") }
            return .search(keyword)
        }
        if let input = json["input"]?.stringValue { return .input(try InputName(parsing: input)) }
        if let channel = json["channel"]?.stringValue { return .channel(try ChannelNumber(parsing: channel)) }
        if let message = json["notify"]?.stringValue {
            try RemoteCommand.checkNotification(message)
            return .notify(message)
        }
        if let screen = json["screen"]?.stringValue {
            guard ["on", "off"].contains(screen) else { throw usage("\"screen\" is \"on\" or \"off\"") }
            return .screen(on: screen == "on")
        }
        if let volume = json["volume"] {
            if let level = volume.intValue {
                guard (0...100).contains(level) else { throw usage("\"volume\" takes a level from 0 to 100") }
                return .setVolume(level)
            }
            guard let change = volume.stringValue.flatMap(VolumeChange.init(rawValue:)) else {
                throw usage("\"volume\" takes up, down, mute or a level from 0 to 100")
            }
            return .volume(change)
        }
        if let voice = json["voice"] {
            // Recognised words (the door recognised them, or a person typed them): audio
            // does not fit a request line.
            guard let words = voice["text"]?.stringValue else {
                throw PhotonError.unsupported(
                    "audio is not sent through the daemon; send the recognised words as {\"voice\":{\"text\":\"…\"}}",
                    hint: "`photon voice TV` records and recognises on this machine")
            }
            guard !words.isEmpty, words.utf8.count <= 512 else { throw usage("\"voice\".\"text\" takes 1 to 512 bytes") }
            let targetName = voice["to"]?.stringValue ?? VoiceRequest.Target.search.rawValue
            guard let target = VoiceRequest.Target(rawValue: targetName) else { throw usage("\"voice\".\"to\" is \"search\" or \"text\"") }
            return .spoken(words, to: target)
        }
        throw usage("the command needs one of key, raw, text, launch, search, input, channel, notify, screen, volume or voice")
    }

    /// The JSON form of a command (what `command(from:)` reads back).
    public static func json(_ command: RemoteCommand) throws -> JSONValue {
        func key(_ input: KeyInput, action: String? = nil, hold: Int? = nil) -> JSONValue {
            switch input {
            case .key(let key): return DaemonWire.Command.key(key.rawValue, action: action, holdMilliseconds: hold)
            case .raw(let code): return DaemonWire.Command.key(code, raw: true, action: action, holdMilliseconds: hold)
            }
        }
        switch command {
        case .key(let input, .press): return key(input)
        case .key(let input, let action): return key(input, action: action.rawValue)
        case .longPress(let input, let ms): return key(input, hold: ms)
        case .text(let text): return DaemonWire.Command.text(text)
        case .launch(let app): return DaemonWire.Command.launch(app)
        case .volume(let change): return DaemonWire.Command.volume(change.rawValue)
        case .setVolume(let level): return DaemonWire.Command.volume(level: level)
        case .search(let keyword): return DaemonWire.Command.search(keyword)
        case .input(let name): return DaemonWire.Command.input(name.description)
        case .notify(let message): return DaemonWire.Command.notify(message)
        case .screen(let on): return DaemonWire.Command.screen(on: on)
        case .channel(let number): return DaemonWire.Command.channel(number.description)
        case .spoken(let words, let target):
            return .object([("voice", .object([("text", .string(words)), ("to", .string(target.rawValue))]))])
        case .voice, .liveVoice:
            throw PhotonError.unsupported("audio is not sent through the daemon", hint: "`photon voice` connects directly")
        case .wake:
            throw PhotonError(.usage, "a wake is its own request (`wake`), not a command", hint: "see docs/daemon.md")
        }
    }

    // MARK: lists

    /// One entry of an `items` answer: `{"id":…,"name":…}`, with `kind` and `active` for
    /// inputs, `number` for channels.
    public static func json(_ item: TVListItem) -> JSONValue {
        var fields: [(String, JSONValue)] = [("id", .string(item.id)), ("name", .string(item.name))]
        if let kind = item.kind { fields.append(("kind", .string(kind))) }
        if let number = item.number { fields.append(("number", .string(number))) }
        if let active = item.active { fields.append(("active", .bool(active))) }
        return .object(fields)
    }

    /// Reads back what `json(_: TVListItem)` wrote; nil for an entry without an id.
    public static func item(from json: JSONValue) -> TVListItem? {
        guard let id = json["id"]?.stringValue else { return nil }
        return TVListItem(
            id: id, name: json["name"]?.stringValue ?? id, kind: json["kind"]?.stringValue, number: json["number"]?.stringValue,
            active: json["active"]?.boolValue)
    }

    // MARK: macros

    /// A macro step's result: `{"step":1,"text":"key home","ok":true,"ms":12}`, with
    /// `error` when it failed.
    public static func json(_ result: MacroStepResult) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("step", .int(result.index)), ("text", .string(result.text)), ("ok", .bool(result.ok)), ("ms", .int(result.milliseconds)),
        ]
        if let error = result.error { fields.append(("error", json(error))) }
        return .object(fields)
    }

    /// Reads back what `json(_: MacroStepResult)` wrote.
    public static func stepResult(from json: JSONValue) -> MacroStepResult? {
        guard let index = json["step"]?.intValue, let text = json["text"]?.stringValue, let ok = json["ok"]?.boolValue else { return nil }
        return MacroStepResult(index: index, text: text, error: ok ? nil : error(from: json["error"]), milliseconds: json["ms"]?.intValue ?? 0)
    }

    // MARK: events

    /// The fields that describe a TV event, as `photon status --json` prints them.
    public static func fields(_ event: TVEvent) -> [(String, JSONValue)] {
        switch event {
        case .power(let on): return [("power", .string(on ? "on" : "off"))]
        case .powerState(let state, let reason): return [("power_state", .string(state.rawValue)), ("power_reason", .optional(reason))]
        case .volume(let v):
            return [("volume", .object([("level", .int(v.level)), ("max", .int(v.maximum)), ("muted", .bool(v.muted))]))]
        case .currentApp(let app): return [("app", .string(app))]
        case .playback(let p):
            return [
                (
                    "playback",
                    .object([
                        ("state", .string(p.state)), ("position", p.positionMilliseconds.map { .int($0) } ?? .null),
                        ("channel", .optional(p.channel)),
                    ])
                )
            ]
        case .deviceInfo(let model, let vendor, let version):
            return [("device", .object([("model", .optional(model)), ("vendor", .optional(vendor)), ("version", .optional(version))]))]
        case .disconnected(let reason): return [("disconnected", .optional(reason?.message))]
        }
    }

    /// The event's name on the wire (`power`, `volume`, `app`, `device`, `disconnected`):
    /// its first field, and the `event` of its notification.
    public static func name(of event: TVEvent) -> String { fields(event)[0].0 }

    /// The notification subscribers of `tv` get: `{"event":"power","tv":ID,"power":"on"}`.
    public static func notification(_ event: TVEvent, tv: String) -> JSONValue {
        .object([("event", .string(name(of: event))), ("tv", .string(tv))] + fields(event))
    }

    /// The line a subscriber of `tv` gets for an update: a notification for an event,
    /// `{"event":"connection","tv":ID,"state":"reconnecting","error":{…}}` for the connection.
    public static func line(_ update: TVUpdate, tv: String) -> JSONValue {
        switch update {
        case .event(let event): return notification(event, tv: tv)
        case .connection(let state, let error):
            var fields: [(String, JSONValue)] = [("event", "connection"), ("tv", .string(tv)), ("state", .string(state.rawValue))]
            if let error { fields.append(("error", json(error))) }
            return .object(fields)
        }
    }

    /// Reads back a line written by `line(_:tv:)`; nil for anything else.
    public static func update(from line: JSONValue) -> TVUpdate? {
        if line["event"]?.stringValue == "connection" {
            guard let state = line["state"]?.stringValue.flatMap(ConnectionState.init(rawValue:)) else { return nil }
            return .connection(state, line["error"].map { error(from: $0) })
        }
        if line["event"]?.stringValue == "disconnected" {
            return .event(.disconnected(reason: line["disconnected"]?.stringValue.map { PhotonError(.connectionClosed, $0) }))
        }
        return event(from: line).map { .event($0) }
    }

    /// What `list` and `status` answer for a TV.
    public static func json(_ snapshot: TVSnapshot) -> JSONValue {
        let device = snapshot.device
        var fields: [(String, JSONValue)] = [
            ("id", .string(device.id)), ("nickname", .string(device.nickname)), ("brand", .string(device.brand)),
            ("host", .string(device.host)), ("port", .int(Int(device.port))), ("connection", .string(snapshot.state.rawValue)),
        ]
        if let capabilities = snapshot.capabilities { fields.append(("capabilities", .array(capabilities.sortedNames.map { .string($0) }))) }
        if let error = snapshot.error { fields.append(("error", json(error))) }
        for event in snapshot.events { fields += self.fields(event) }
        return .object(fields)
    }

    /// Reads back an event written by `fields(_:)`.
    public static func event(from json: JSONValue) -> TVEvent? {
        if let power = json["power"]?.stringValue { return .power(isOn: power == "on") }
        if let state = json["power_state"]?.stringValue.flatMap(PowerState.init(rawValue:)) {
            return .powerState(state, reason: json["power_reason"]?.stringValue)
        }
        if let volume = json["volume"], let level = volume["level"]?.intValue, let maximum = volume["max"]?.intValue {
            return .volume(VolumeState(level: level, maximum: maximum, muted: volume["muted"]?.boolValue ?? false))
        }
        if let app = json["app"]?.stringValue { return .currentApp(app) }
        if let playback = json["playback"], let state = playback["state"]?.stringValue {
            return .playback(
                PlaybackState(state: state, positionMilliseconds: playback["position"]?.intValue, channel: playback["channel"]?.stringValue))
        }
        if let device = json["device"] {
            return .deviceInfo(model: device["model"]?.stringValue, vendor: device["vendor"]?.stringValue, version: device["version"]?.stringValue)
        }
        return nil
    }

    // MARK: errors

    /// An error as the wire carries it: code, message, hint and exit code.
    public static func json(_ error: PhotonError) -> JSONValue {
        .object([
            ("code", .string(error.code.rawValue)), ("message", .string(Redaction.redact(error.message))),
            ("hint", .optional(error.hint.map(Redaction.redact))), ("exitCode", .int(Int(error.exitCode))),
        ])
    }

    /// An error answer: `{"id":…,"ok":false,"error":{…}}` (no `id` when the request had none).
    public static func failure(_ error: PhotonError, id: JSONValue? = nil) -> JSONValue {
        .object((id.map { [("id", $0)] } ?? []) + [("ok", false), ("error", json(error))])
    }

    /// The error an answer carries, or a protocol error when it carries none that can be read.
    public static func error(from json: JSONValue?) -> PhotonError {
        let code = json?["code"]?.stringValue.flatMap(PhotonError.Code.init(rawValue:)) ?? .internal
        return PhotonError(code, json?["message"]?.stringValue ?? "the daemon reported an error", hint: json?["hint"]?.stringValue)
    }

    /// A request the daemon cannot take as written, with a pointer to the API's documentation.
    public static func usage(_ message: String) -> PhotonError { PhotonError(.usage, message, hint: "see docs/daemon.md") }
}
