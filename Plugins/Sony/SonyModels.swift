import PhotonCore

/// Sony's key names (the IRCC table a Bravia gives in `system/getRemoteControllerInfo`) for
/// Photon's keys. The wire carries each name's IRCC code, which the session reads from the
/// TV itself: codes differ between models, names do not.
public enum SonyKeys {
    public static let table: [RemoteKey: String] = [
        .up: "Up", .down: "Down", .left: "Left", .right: "Right", .select: "Confirm", .back: "Return", .home: "Home",
        .menu: "Options", .volumeUp: "VolumeUp", .volumeDown: "VolumeDown", .mute: "Mute", .power: "TvPower",
        .powerOn: "WakeUp", .powerOff: "PowerOff", .play: "Play", .pause: "Pause", .stop: "Stop", .next: "Next",
        .previous: "Prev", .rewind: "Rewind", .fastForward: "Forward", .record: "Rec", .channelUp: "ChannelUp",
        .channelDown: "ChannelDown", .digit0: "Num0", .digit1: "Num1", .digit2: "Num2", .digit3: "Num3", .digit4: "Num4",
        .digit5: "Num5", .digit6: "Num6", .digit7: "Num7", .digit8: "Num8", .digit9: "Num9", .input: "Input",
        .guide: "GGuide", .info: "Display", .captions: "ClosedCaption", .red: "Red", .green: "Green", .yellow: "Yellow",
        .blue: "Blue",
    ]

    public static var keyTable: [KeyMapping] {
        RemoteKey.allCases.compactMap { key in table[key].map { KeyMapping(key: key, code: $0) } }
    }

    /// The name to look up in the TV's table, or `unsupported`/`usage` with nothing sent.
    public static func name(for input: KeyInput) throws -> String {
        switch input {
        case .key(let key):
            guard let name = table[key] else {
                throw PhotonError.unsupported("Sony TVs have no '\(key.rawValue)' key", hint: "see `photon keys --brand sony`")
            }
            return name
        case .raw(let raw):
            guard !raw.isEmpty, raw.utf8.count <= 48, raw.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == 95 || $0 == 42 }) else {
                throw PhotonError(
                    .usage, "'\(Redaction.sanitize(raw))' is not a Sony key name",
                    hint: "names look like Netflix, PicOff or Teletext: `photon keys TV --raw`")
            }
            return raw
        }
    }

    /// The TV's key table from a `getRemoteControllerInfo` result (`[{…}, [{name, value}…]]`):
    /// each name with its IRCC code (base64, checked so nothing can escape the SOAP body).
    public static func parseTable(_ result: [JSONValue]) throws -> [String: String] {
        guard result.count >= 2, let rows = result[1].arrayValue else {
            throw PhotonError(.protocolViolation, "the TV's remote controller info has no key list")
        }
        var table: [String: String] = [:]
        for row in rows.prefix(512) {
            guard let name = row["name"]?.stringValue, let code = row["value"]?.stringValue, !name.isEmpty, name.utf8.count <= 48,
                isIRCCCode(code)
            else { continue }
            table[name] = code
        }
        guard !table.isEmpty else { throw PhotonError(.protocolViolation, "the TV's remote controller info lists no usable key") }
        return table
    }

    /// An IRCC code as Sony writes them: base64 of a few bytes (`AAAAAQAAAAEAAABgAw==`).
    public static func isIRCCCode(_ code: String) -> Bool {
        !code.isEmpty && code.utf8.count <= 64
            && code.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == 43 || $0 == 47 || $0 == 61 }
    }

    /// The SOAP envelope that sends one IRCC code, as Sony's own apps send it.
    public static func envelope(code: String) -> String {
        "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\" s:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\"><s:Body><u:X_SendIRCC xmlns:u=\"urn:schemas-sony-com:service:IRCC:1\"><IRCCCode>\(code)</IRCCCode></u:X_SendIRCC></s:Body></s:Envelope>"
    }
}

/// `system/getSystemInformation`, as typed values. Every field came from the network.
public struct SonySystemInformation: Sendable, Equatable {
    public var serial: String
    public var model: String?
    public var name: String
    public var mac: String?
    public var generation: String?

    /// The photon id of this TV: from its serial number, or its MAC when it reports none.
    public var deviceID: String { "sony-" + serial.lowercased() }

    public static func parse(_ result: [JSONValue]) throws -> SonySystemInformation {
        guard let info = result.first, case .object = info else {
            throw PhotonError(.protocolViolation, "the TV's system information is not an object")
        }
        func text(_ key: String, limit: Int = 64) -> String? {
            info[key]?.stringValue.map { Redaction.sanitize($0, limit: limit) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        let mac = info["macAddr"]?.stringValue.flatMap(MACAddress.normalized)
        var serial = info["serial"]?.stringValue ?? ""
        if serial.isEmpty, let mac { serial = mac.filter { $0 != ":" } }
        guard !serial.isEmpty, serial.utf8.count <= 64, serial.utf8.allSatisfy(\.isASCIIAlphanumeric) else {
            throw PhotonError(.protocolViolation, "the TV's system information has no usable serial number or MAC address")
        }
        let model = text("model")
        let name = text("name").map { "Sony \($0)" } ?? "Sony \(model ?? "Bravia")"
        return SonySystemInformation(serial: serial, model: model, name: name, mac: mac, generation: text("generation", limit: 16))
    }
}

/// Reads the answers the session polls and lists. Every field came from the network.
public enum SonyReadings {
    /// `system/getPowerStatus`: `active` is on, `standby` is network standby.
    public static func power(_ result: [JSONValue]) throws -> PowerState {
        switch result.first?["status"]?.stringValue {
        case "active": return .on
        case "standby": return .standby
        default: throw PhotonError(.protocolViolation, "the TV's power status is neither active nor standby")
        }
    }

    /// `audio/getVolumeInformation`: the speaker's volume (or the first output's).
    public static func volume(_ result: [JSONValue]) throws -> VolumeState {
        guard let outputs = result.first?.arrayValue, !outputs.isEmpty else {
            throw PhotonError(.protocolViolation, "the TV's volume information lists no output")
        }
        let output = outputs.first { $0["target"]?.stringValue == "speaker" } ?? outputs[0]
        let maximum = output["maxVolume"]?.intValue ?? 100
        guard let level = output["volume"]?.intValue, (0...1000).contains(level), (1...1000).contains(maximum)
        else { throw PhotonError(.protocolViolation, "the TV's volume information has no usable level") }
        return VolumeState(level: min(level, maximum), maximum: maximum, muted: output["mute"]?.boolValue ?? false)
    }

    /// `avContent/getCurrentExternalInputsStatus`: each input's uri, its label (the user's,
    /// else the TV's title) and whether it is the one shown.
    public static func inputs(_ result: [JSONValue]) throws -> [TVInput] {
        guard let items = result.first?.arrayValue else { throw PhotonError(.protocolViolation, "the TV's input list is not a list") }
        return items.prefix(64).compactMap { item in
            guard let uri = item["uri"]?.stringValue, isPlayableURI(uri) else { return nil }
            let title = item["title"]?.stringValue.map { Redaction.sanitize($0, limit: 64) } ?? uri
            let label = item["label"]?.stringValue.map { Redaction.sanitize($0, limit: 64) } ?? ""
            return TVInput(
                id: uri, label: label.isEmpty ? title : label, standard: standardInput(uri),
                active: item["status"]?.stringValue.map { $0 == "true" })
        }
    }

    /// The standard input a Sony input uri is (`extInput:hdmi?port=2` is hdmi2).
    public static func standardInput(_ uri: String) -> InputName? {
        let parts = uri.split(separator: "?", maxSplits: 1)
        let port = parts.count == 2 ? parts[1].split(separator: "&").first { $0.hasPrefix("port=") }.flatMap { Int($0.dropFirst(5)) } : nil
        switch parts.first {
        case "extInput:hdmi": return port.flatMap { (1...4).contains($0) ? .hdmi($0) : nil }
        case "extInput:composite": return .composite
        case "extInput:component": return .component
        default: return nil
        }
    }

    /// `appControl/getApplicationList`: each app's uri and title.
    public static func apps(_ result: [JSONValue]) throws -> [TVApp] {
        guard let items = result.first?.arrayValue else { throw PhotonError(.protocolViolation, "the TV's app list is not a list") }
        return items.prefix(512).compactMap { item in
            guard let uri = item["uri"]?.stringValue, isPlayableURI(uri), let title = item["title"]?.stringValue else { return nil }
            return TVApp(id: uri, name: Redaction.sanitize(title, limit: 64))
        }
    }

    /// `audio/getSoundSettings {"target": "outputTerminal"}`: the output in use and the
    /// ones the TV offers.
    public static func soundOutputs(_ result: [JSONValue]) throws -> (current: String?, candidates: [String]) {
        guard let setting = result.first?.arrayValue?.first(where: { $0["target"]?.stringValue == "outputTerminal" }) else {
            throw PhotonError(.protocolViolation, "the TV's sound settings have no output terminal")
        }
        let current = setting["currentValue"]?.stringValue.flatMap { isSettingValue($0) ? $0 : nil }
        let candidates = (setting["candidate"]?.arrayValue ?? []).prefix(16).compactMap { $0["value"]?.stringValue }.filter(isSettingValue)
        return (current, candidates)
    }

    /// Sony's sound output values and Photon's standard names for them.
    public static let soundNames: [(value: String, standard: String)] = [
        ("speaker", "speaker"), ("audioSystem", "arc"), ("headphone", "headphone"),
    ]

    public static func standardSoundName(_ value: String) -> String { soundNames.first { $0.value == value }?.standard ?? value }
    public static func soundValue(for output: String) -> String { soundNames.first { $0.standard == output.lowercased() }?.value ?? output }

    /// A uri the TV may be sent back (an input's, an app's, a source's): printable ASCII
    /// without quotes or markup, bounded.
    public static func isPlayableURI(_ uri: String) -> Bool {
        !uri.isEmpty && uri.utf8.count <= 512 && uri.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 34 && $0 != 60 && $0 != 62 && $0 != 92 }
    }

    public static func isSettingValue(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 64 && value.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == 95 || $0 == 45 }
    }
}

/// The TV's answer to one JSON-RPC call: its `result` array, or its error code and message.
public enum SonyAnswer: Sendable {
    case result([JSONValue])
    case error(code: Int, message: String)

    /// Reads `{"result": [...]}` or `{"error": [code, "message"]}`; anything else is a
    /// protocol violation.
    public static func parse(_ body: [UInt8], what: String) throws -> SonyAnswer {
        let value: JSONValue
        do {
            value = try JSONValue.parse(body, maximumDepth: 12)
        } catch {
            throw PhotonError(.protocolViolation, "the Sony TV's answer to \(what) is not JSON")
        }
        if let result = value["result"]?.arrayValue { return .result(result) }
        if let error = value["error"]?.arrayValue, let code = error.first?.intValue {
            let message = error.dropFirst().first?.stringValue.map { Redaction.sanitize($0, limit: 120) } ?? ""
            return .error(code: code, message: message)
        }
        throw PhotonError(.protocolViolation, "the Sony TV's answer to \(what) has neither a result nor an error")
    }
}
