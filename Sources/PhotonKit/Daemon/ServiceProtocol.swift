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
    public static func command(from json: JSONValue) throws -> RemoteCommand { try RemoteCommand(wire: json) }

    /// The JSON form of a command (what `command(from:)` reads back).
    public static func json(_ command: RemoteCommand) throws -> JSONValue { try command.wire() }

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
        case .setting(let name, let value): return [(name, .string(value))]
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
        // A setting the catalog says the TV reports (`sound`), by its command's name.
        for entry in CommandCatalog.entries where entry.reportsState {
            if let value = json[entry.name]?.stringValue { return .setting(name: entry.name, value: value) }
        }
        if let device = json["device"] {
            return .deviceInfo(model: device["model"]?.stringValue, vendor: device["vendor"]?.stringValue, version: device["version"]?.stringValue)
        }
        return nil
    }

    // MARK: errors

    /// An error as the wire carries it: code, message, hint and exit code.
    public static func json(_ error: PhotonError) -> JSONValue {
        .object(
            [
                ("code", .string(error.code.rawValue)), ("message", .string(Redaction.redact(error.message))),
                ("hint", .optional(error.hint.map(Redaction.redact))), ("exitCode", .int(Int(error.exitCode))),
            ] + (error.reason.map { [("reason", .string($0.rawValue))] } ?? []))
    }

    /// An error answer: `{"id":…,"ok":false,"error":{…}}` (no `id` when the request had none).
    public static func failure(_ error: PhotonError, id: JSONValue? = nil) -> JSONValue {
        .object((id.map { [("id", $0)] } ?? []) + [("ok", false), ("error", json(error))])
    }

    /// The error an answer carries, or a protocol error when it carries none that can be read.
    public static func error(from json: JSONValue?) -> PhotonError {
        let code = json?["code"]?.stringValue.flatMap(PhotonError.Code.init(rawValue:)) ?? .internal
        return PhotonError(
            code, json?["message"]?.stringValue ?? "the daemon reported an error", hint: json?["hint"]?.stringValue,
            reason: json?["reason"]?.stringValue.flatMap(PhotonError.Reason.init(rawValue:)))
    }

    /// A request the daemon cannot take as written, with a pointer to the API's
    /// documentation that holds for every door that reaches it.
    public static func usage(_ message: String) -> PhotonError {
        PhotonError(.usage, message, hint: "see Photon's API reference (docs/daemon.md, docs/http-api.md)")
    }
}
