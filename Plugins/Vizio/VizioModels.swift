import PhotonCore

/// Vizio SmartCast answers, read liberally: key names in any case (firmware differs),
/// unknown keys ignored, every field checked before use. Every field came from the network.
public enum VizioJSON {
    /// The value under `key`, whatever its case.
    public static func field(_ value: JSONValue?, _ key: String) -> JSONValue? {
        guard case .object(let pairs)? = value else { return nil }
        let lower = key.lowercased()
        return pairs.first { $0.0.lowercased() == lower }?.1
    }

    /// A string or a number, as text (Vizio sends both for the same field).
    public static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let s)?: return s
        case .int(let i)?: return String(i)
        case .double(let d)? where d.isFinite && d == d.rounded() && abs(d) < 1e15: return String(Int(d))
        default: return nil
        }
    }

    /// An integer from a number or a numeric string.
    public static func integer(_ value: JSONValue?) -> Int? {
        if let i = value?.intValue { return i }
        if let s = value?.stringValue, let i = Int(s) { return i }
        return nil
    }
}

/// What every SmartCast answer carries: `STATUS.RESULT` (`SUCCESS`, `INVALID_PARAMETER`,
/// `CHALLENGE_INCORRECT`, `BLOCKED`, `URI_NOT_FOUND`…) and its detail.
public struct VizioStatus: Sendable, Equatable {
    public var result: String
    public var detail: String?

    public var isSuccess: Bool { result.lowercased() == "success" }

    /// Reads an answer body: the JSON object and its status.
    public static func read(_ body: [UInt8], what: String) throws -> (JSONValue, VizioStatus) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(body, maximumDepth: 16)
        } catch {
            throw PhotonError(.protocolViolation, "the Vizio TV's answer to \(what) is not JSON")
        }
        guard let status = VizioJSON.field(value, "status"), let result = VizioJSON.text(VizioJSON.field(status, "result")),
            !result.isEmpty, result.utf8.count <= 64
        else { throw PhotonError(.protocolViolation, "the Vizio TV's answer to \(what) has no STATUS.RESULT") }
        let detail = VizioJSON.text(VizioJSON.field(status, "detail")).map { Redaction.sanitize($0, limit: 120) }
        return (value, VizioStatus(result: Redaction.sanitize(result, limit: 64), detail: detail))
    }

    /// The error a status other than success means.
    public func failure(what: String) -> PhotonError {
        let said = result + (detail.map { ": \($0)" } ?? "")
        switch result.lowercased() {
        case "uri_not_found": return PhotonError.unsupported("the Vizio TV has no \(what) (\(said))", hint: "its firmware lacks this call")
        case "invalid_parameter": return PhotonError(.usage, "the Vizio TV refused the values of \(what) (\(said))")
        case "challenge_incorrect":
            return PhotonError(.pairingRefused, "the Vizio TV refused the PIN (\(said))", hint: "pair again and type the PIN the TV shows now")
        case "blocked":
            return PhotonError(
                .pairingRefused, "the Vizio TV blocks pairing (\(said)): a pairing was left unfinished",
                hint: "restart the TV (unplug it for a minute), then pair again")
        case "requires_pairing", "auth_failed", "unauthorized":
            return PhotonError(
                .authenticationRefused, "the Vizio TV no longer accepts this pairing (\(said))",
                hint: "pair again: photon pair HOST --brand vizio --replace")
        case "hashval_error", "value_mismatch":
            return PhotonError(.protocolViolation, "the Vizio TV's setting changed meanwhile (\(said)); nothing was changed", hint: "try again")
        default: return PhotonError(.protocolViolation, "the Vizio TV failed \(what) (\(said))")
        }
    }
}

/// Vizio's key codes (`CODESET`, `CODE`) for Photon's keys: pyvizio's table and the number
/// keys of Vizio's own remote apps (code set 0, ASCII digits).
public enum VizioKeys {
    public static let table: [RemoteKey: (codeset: Int, code: Int)] = {
        var table: [RemoteKey: (codeset: Int, code: Int)] = [
            .up: (3, 8), .down: (3, 0), .left: (3, 1), .right: (3, 7), .select: (3, 2), .back: (4, 0), .home: (4, 15), .menu: (4, 8),
            .info: (4, 6), .captions: (4, 4), .volumeUp: (5, 1), .volumeDown: (5, 0), .mute: (5, 4), .channelUp: (8, 1), .channelDown: (8, 0),
            .power: (11, 2), .powerOn: (11, 1), .powerOff: (11, 0), .play: (2, 3), .pause: (2, 2), .fastForward: (2, 0), .rewind: (2, 1),
            .input: (7, 1),
        ]
        let digits: [RemoteKey] = [.digit0, .digit1, .digit2, .digit3, .digit4, .digit5, .digit6, .digit7, .digit8, .digit9]
        for (n, key) in digits.enumerated() { table[key] = (0, 48 + n) }
        return table
    }()

    /// The code as the key table and the emulator name it: `CODESET:CODE`.
    public static func name(_ code: (codeset: Int, code: Int)) -> String { "\(code.codeset):\(code.code)" }

    public static var keyTable: [KeyMapping] {
        RemoteKey.allCases.compactMap { key in table[key].map { KeyMapping(key: key, code: name($0)) } }
    }

    /// The code for a key: a Photon key, or `--raw CODESET:CODE`; `unsupported`/`usage`
    /// with nothing sent.
    public static func code(for input: KeyInput) throws -> (codeset: Int, code: Int) {
        switch input {
        case .key(let key):
            guard let code = table[key] else {
                throw PhotonError.unsupported("Vizio TVs have no '\(key.rawValue)' key", hint: "see `photon keys --brand vizio`")
            }
            return code
        case .raw(let raw):
            let parts = raw.split(separator: ":")
            guard parts.count == 2, let codeset = Int(parts[0]), let code = Int(parts[1]), (0...255).contains(codeset), (0...255).contains(code)
            else {
                throw PhotonError(.usage, "'\(Redaction.sanitize(raw))' is not a Vizio key code", hint: "give CODESET:CODE, e.g. 4:3 (SmartCast)")
            }
            return (codeset, code)
        }
    }
}

/// A SmartCast setting item (`ITEMS[n]`): its name, value and HASHVAL, which a change must
/// quote (a stale one is refused).
public struct VizioItem: Sendable, Equatable {
    public var cname: String
    public var name: String?
    public var value: JSONValue?
    public var hashval: Int?
    public var elements: [String]

    /// The items of an answer.
    public static func items(_ answer: JSONValue) -> [VizioItem] {
        guard let list = VizioJSON.field(answer, "items")?.arrayValue else { return [] }
        return list.prefix(256).compactMap { item in
            guard let cname = VizioJSON.text(VizioJSON.field(item, "cname")), !cname.isEmpty, cname.utf8.count <= 64 else { return nil }
            let elements = (VizioJSON.field(item, "elements")?.arrayValue ?? []).prefix(64).compactMap { VizioJSON.text($0) }
                .filter(VizioReadings.isName)
            return VizioItem(
                cname: cname.lowercased(), name: VizioJSON.text(VizioJSON.field(item, "name")).map { Redaction.sanitize($0, limit: 64) },
                value: VizioJSON.field(item, "value"), hashval: VizioJSON.integer(VizioJSON.field(item, "hashval")), elements: elements)
        }
    }
}

/// What the session reads from the TV's answers.
public enum VizioReadings {
    /// A name the TV may be sent back (an input's, a picture mode's): printable, bounded,
    /// no quotes or markup.
    public static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F && $0 != "\"" && $0 != "\\" }
    }

    /// `/state/device/power_mode`: `ITEMS[0].VALUE` 1 is on, 0 standby.
    public static func power(_ answer: JSONValue) throws -> PowerState {
        guard let item = VizioItem.items(answer).first, let value = VizioJSON.integer(item.value) else {
            throw PhotonError(.protocolViolation, "the Vizio TV's power mode has no value")
        }
        return value == 1 ? .on : .standby
    }

    /// The model from `/state/device/deviceinfo` (`ITEMS[0].VALUE.MODEL_NAME`, or under `SYSTEM_INFO`).
    public static func model(_ answer: JSONValue) -> String? {
        let value = VizioItem.items(answer).first?.value ?? VizioJSON.field(VizioJSON.field(answer, "items")?.arrayValue?.first, "value")
        let model =
            VizioJSON.text(VizioJSON.field(value, "model_name"))
            ?? VizioJSON.text(VizioJSON.field(VizioJSON.field(value, "system_info"), "model_name"))
        return model.map { Redaction.sanitize($0, limit: 64) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A serial number or ESN item's value: letters and digits only.
    public static func serial(_ answer: JSONValue) -> String? {
        guard let value = VizioItem.items(answer).first.flatMap({ VizioJSON.text($0.value) }), !value.isEmpty, value.utf8.count <= 64,
            value.utf8.allSatisfy(\.isASCIIAlphanumeric)
        else { return nil }
        return value
    }

    /// `…/devices/name_input`: each input's name (`HDMI-1`, what a switch sends) and the label
    /// the user gave it; `current` marks the one shown.
    public static func inputs(_ answer: JSONValue, current: String?) -> [TVInput] {
        VizioItem.items(answer).filter { $0.cname != "current_input" }.compactMap { item in
            guard let name = item.name, isName(name) else { return nil }
            let label = VizioJSON.text(VizioJSON.field(item.value, "name")) ?? VizioJSON.text(item.value) ?? name
            let cleaned = Redaction.sanitize(label, limit: 64)
            return TVInput(
                id: name, label: cleaned.isEmpty ? name : cleaned, standard: standardInput(item.cname, name: name),
                active: current.map { $0.lowercased() == name.lowercased() })
        }
    }

    /// The standard input a Vizio input is (`hdmi2` / `HDMI-2`, `tv`, `comp`, `av`).
    public static func standardInput(_ cname: String, name: String) -> InputName? {
        let compact = (cname + " " + name).lowercased().filter { $0.isLetter || $0.isNumber || $0 == " " }
        for word in compact.split(separator: " ") {
            if word.hasPrefix("hdmi"), let n = Int(word.dropFirst(4)), (1...4).contains(n) { return .hdmi(n) }
            if word == "tv" || word == "tuner" { return .tuner }
            if word == "comp" || word == "component" { return .component }
            if word == "av" || word == "composite" { return .composite }
        }
        return nil
    }

    /// `/menu_native/dynamic/tv_settings/audio/volume`: the level, 0–100.
    public static func volume(_ answer: JSONValue, muted: Bool) throws -> VolumeState {
        guard let level = VizioItem.items(answer).first.flatMap({ VizioJSON.integer($0.value) }), (0...100).contains(level) else {
            throw PhotonError(.protocolViolation, "the Vizio TV's volume has no level from 0 to 100")
        }
        return VolumeState(level: level, maximum: 100, muted: muted)
    }

    /// `/app/current`: the app in front as `NAME_SPACE:APP_ID[:MESSAGE]`, nil for none.
    public static func currentApp(_ answer: JSONValue) -> String? {
        let value = VizioJSON.field(VizioJSON.field(answer, "item"), "value")
        guard let space = VizioJSON.integer(VizioJSON.field(value, "name_space")), let id = VizioJSON.text(VizioJSON.field(value, "app_id")),
            (0...99).contains(space), !id.isEmpty, id.utf8.count <= 32, id.utf8.allSatisfy(\.isASCIIAlphanumeric)
        else { return nil }
        return "\(space):\(id)"
    }
}

/// An app as Vizio launches it: its name space, id and message. Photon writes it
/// `NAME_SPACE:APP_ID` or `NAME_SPACE:APP_ID:MESSAGE` (name spaces 2 and 4 are one).
public struct VizioApp: Sendable, Equatable {
    public var nameSpace: Int
    public var appID: String
    public var message: String?

    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let space = Int(parts[0]), (0...99).contains(space), !parts[1].isEmpty, parts[1].utf8.count <= 32,
            parts[1].utf8.allSatisfy(\.isASCIIAlphanumeric)
        else {
            throw PhotonError(
                .usage, "'\(Redaction.sanitize(text))' is not a Vizio app",
                hint: "give NAME_SPACE:APP_ID (3:1 is Netflix) or a catalog name: photon launch TV netflix")
        }
        nameSpace = space
        appID = String(parts[1])
        if parts.count == 3 {
            let message = String(parts[2])
            guard message.utf8.count <= 1024, message.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                throw PhotonError(.usage, "a Vizio app's message is printable text of at most 1024 bytes")
            }
            self.message = message
        }
    }

    public var json: JSONValue {
        .object([("NAME_SPACE", .int(nameSpace)), ("APP_ID", .string(appID)), ("MESSAGE", message.map { .string($0) } ?? .null)])
    }
}
