import Foundation
import PhotonCore
import PhotonCrypto

/// The key every JointSpace client shares with Philips TVs (published in ha-philipsjs and
/// pylips): the first 16 bytes decrypt the `*_encrypted` fields of `system`, and the whole
/// key signs the PIN at pairing. It is public; it proves nothing about who asks.
public enum PhilipsSharedKey {
    public static let bytes: [UInt8] = Array(
        Data(base64Encoded: "ZmVay1EQVFOaZhwQ4Kv81ypLAZNczV9sG4KkseXWn1NEk6cXmPKO/MCa9sryslvLCFMnNe4Z4CPXzToowvhHvA==") ?? Data())

    /// base64(HMAC-SHA1(key, timestamp ‖ pin)): `auth_signature` of `pair/grant`.
    public static func signature(timestamp: String, pin: String) -> String {
        Data(HMAC.sha1(key: bytes, Array((timestamp + pin).utf8))).base64EncodedString()
    }

    /// A `*_encrypted` field: base64(IV ‖ AES-128-CBC(PKCS#7)). Throws on anything else.
    public static func decrypt(_ field: String) throws -> String {
        guard field.utf8.count <= 1024, let raw = Data(base64Encoded: field, options: .ignoreUnknownCharacters), raw.count >= 32 else {
            throw PhotonError(.protocolViolation, "an encrypted field of the Philips TV's system answer is not base64 of IV and data")
        }
        let bytes = [UInt8](raw)
        let plain = try AESCBC.decrypt(Array(bytes[16...]), key: Array(Self.bytes.prefix(16)), iv: Array(bytes[..<16]))
        guard let text = String(validating: plain, as: UTF8.self) else {
            throw PhotonError(.protocolViolation, "an encrypted field of the Philips TV's system answer is not text")
        }
        return text
    }

    /// Encrypts `text` as the TV does (for the emulated TV and tests).
    public static func encrypt(_ text: String) throws -> String {
        let iv = try SecureRandom.bytes(16)
        return Data(iv + (try AESCBC.encrypt(Array(text.utf8), key: Array(bytes.prefix(16)), iv: iv))).base64EncodedString()
    }
}

/// What `GET /6/system` says, with the encrypted fields decrypted: who the TV is and how it
/// pairs. Every field came from the network and is checked before use.
public struct PhilipsSystem: Sendable, Equatable {
    public var name: String?
    public var model: String?
    public var serial: String?
    public var deviceID: String?
    public var softwareVersion: String?
    public var apiMajor: Int?
    public var pairingType: String?
    public var securedTransport: Bool
    public var osType: String?
    public var notifyChange: Bool
    /// `featuring` as the TV sent it: a pairing request quotes it back.
    public var featuring: JSONValue?
    public var jsonFeatures: [String: [String]]

    /// Reads a `system` answer; an answer that is not a JSON object throws.
    public static func parse(_ answer: JSONValue) throws -> PhilipsSystem {
        guard case .object = answer else { throw PhotonError(.protocolViolation, "the Philips TV's system answer is not a JSON object") }
        func text(_ key: String) -> String? {
            if let plain = answer[key]?.stringValue { return plain }
            return answer[key + "_encrypted"]?.stringValue.flatMap { try? PhilipsSharedKey.decrypt($0) }
        }
        let featuring = answer["featuring"]
        let systemFeatures = featuring?["systemfeatures"]
        var features: [String: [String]] = [:]
        if case .object(let pairs)? = featuring?["jsonfeatures"] {
            for (name, list) in pairs.prefix(64) {
                features[name] = (list.arrayValue ?? []).prefix(64).compactMap(\.stringValue).map { Redaction.sanitize($0, limit: 64) }
            }
        }
        let secured = systemFeatures?["secured_transport"]
        return PhilipsSystem(
            name: text("name").map { Redaction.sanitize($0, limit: 64) }, model: text("model").map { Redaction.sanitize($0, limit: 64) },
            serial: text("serialnumber").flatMap(Self.identifier), deviceID: text("deviceid").flatMap(Self.identifier),
            softwareVersion: text("softwareversion").map { Redaction.sanitize($0, limit: 64) },
            apiMajor: answer["api_version"]?["Major"]?.intValue,
            pairingType: systemFeatures?["pairing_type"]?.stringValue.map { Redaction.sanitize($0, limit: 40) },
            securedTransport: secured?.boolValue == true || secured?.stringValue == "true",
            osType: (answer["os_type"] ?? systemFeatures?["os_type"])?.stringValue.map { Redaction.sanitize($0, limit: 40) },
            notifyChange: answer["notifyChange"]?.stringValue != nil, featuring: featuring, jsonFeatures: features)
    }

    /// A serial or device id: letters, digits, `-` and `_`, at most 64.
    static func identifier(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64, trimmed.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == 45 || $0 == 95 })
        else { return nil }
        return trimmed
    }

    public func supports(_ group: String, _ feature: String) -> Bool { jsonFeatures[group]?.contains(feature) == true }

    /// Throws `unsupported` for a TV Photon cannot pair with: only Android TVs (Digest
    /// pairing over HTTPS) are supported.
    public func checkPairable() throws {
        guard pairingType == "digest_auth_pairing" else {
            throw PhotonError.unsupported(
                "this Philips TV pairs with '\(pairingType ?? "none")', not a PIN: Photon supports Philips Android TVs (JointSpace 6 with digest_auth_pairing)",
                hint: "older Philips (Saphi/Linux) TVs have no pairing and no encryption; they are not supported")
        }
    }
}

/// JointSpace answers: JSON, sometimes slightly broken (`{,`, `,}`, `,,`), or an empty or
/// `Ok` body for a write.
public enum PhilipsJSON {
    /// Parses an answer body; an empty or known non-JSON body is an empty object.
    public static func parse(_ body: [UInt8], what: String) throws -> JSONValue {
        let text = String(decoding: body.prefix(512 * 1024), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty || text == "Ok" || text == "}" || text.hasPrefix("<html>") || text == "Context Service not started" {
            return .object([])
        }
        if let value = try? JSONValue.parse(Array(text.utf8), maximumDepth: 16) { return value }
        var repaired = text.replacingOccurrences(of: "{,", with: "{").replacingOccurrences(of: ",}", with: "}")
        while repaired.contains(",,") { repaired = repaired.replacingOccurrences(of: ",,", with: ",") }
        guard let value = try? JSONValue.parse(Array(repaired.utf8), maximumDepth: 16) else {
            throw PhotonError(.protocolViolation, "the Philips TV's answer to \(what) is not JSON")
        }
        return value
    }
}

/// JointSpace key names for Photon's keys (`POST input/key {"key": NAME}`).
public enum PhilipsKeys {
    public static let table: [RemoteKey: String] = {
        var table: [RemoteKey: String] = [
            .up: "CursorUp", .down: "CursorDown", .left: "CursorLeft", .right: "CursorRight", .select: "Confirm", .back: "Back",
            .home: "Home", .menu: "Options", .info: "Info", .volumeUp: "VolumeUp", .volumeDown: "VolumeDown", .mute: "Mute",
            .power: "Standby", .playPause: "PlayPause", .play: "Play", .pause: "Pause", .stop: "Stop", .next: "Next",
            .previous: "Previous", .rewind: "Rewind", .fastForward: "FastForward", .record: "Record", .channelUp: "ChannelStepUp",
            .channelDown: "ChannelStepDown", .input: "Source", .settings: "Adjust", .guide: "WatchTV", .captions: "Subtitle",
            .search: "Find", .red: "RedColour", .green: "GreenColour", .yellow: "YellowColour", .blue: "BlueColour",
        ]
        let digits: [RemoteKey] = [.digit0, .digit1, .digit2, .digit3, .digit4, .digit5, .digit6, .digit7, .digit8, .digit9]
        for (n, key) in digits.enumerated() { table[key] = "Digit\(n)" }
        return table
    }()

    public static var keyTable: [KeyMapping] {
        RemoteKey.allCases.compactMap { key in table[key].map { KeyMapping(key: key, code: $0) } }
            + [KeyMapping(key: .powerOn, code: "powerstate:On"), KeyMapping(key: .powerOff, code: "powerstate:Standby")]
    }

    /// The key name for a Photon key or `--raw NAME`; `unsupported`/`usage` with nothing sent.
    public static func name(for input: KeyInput) throws -> String {
        switch input {
        case .key(let key):
            guard let name = table[key] else {
                throw PhotonError.unsupported("Philips TVs have no '\(key.rawValue)' key", hint: "see `photon keys --brand philips`")
            }
            return name
        case .raw(let raw):
            guard !raw.isEmpty, raw.utf8.count <= 32, raw.utf8.allSatisfy(\.isASCIIAlphanumeric) else {
                throw PhotonError(.usage, "'\(Redaction.sanitize(raw))' is not a JointSpace key name", hint: "give a name such as CursorUp or Online")
            }
            return raw
        }
    }
}

/// What the session reads from JointSpace answers.
public enum PhilipsReadings {
    /// `powerstate`: `On` is on; `Standby`, `StandbyKeep` and the rest are standby.
    public static func power(_ answer: JSONValue) throws -> PowerState {
        guard let state = answer["powerstate"]?.stringValue else {
            throw PhotonError(.protocolViolation, "the Philips TV's power state has no powerstate")
        }
        return state.lowercased() == "on" ? .on : .standby
    }

    /// `audio/volume`: `current`, `min`, `max`, `muted`.
    public static func volume(_ answer: JSONValue) throws -> VolumeState {
        guard let current = answer["current"]?.intValue, let maximum = answer["max"]?.intValue, (1...1000).contains(maximum),
            (0...maximum).contains(current)
        else { throw PhotonError(.protocolViolation, "the Philips TV's volume has no level within its range") }
        return VolumeState(level: current, maximum: maximum, muted: answer["muted"]?.boolValue ?? false)
    }

    /// `applications`: each app's id (`CLASS-PACKAGE`), label and launch intent.
    public static func applications(_ answer: JSONValue) -> [PhilipsApp] {
        (answer["applications"]?.arrayValue ?? []).prefix(512).compactMap { app in
            guard let id = app["id"]?.stringValue, isName(id, limit: 256), let intent = app["intent"],
                let package = intent["component"]?["packageName"]?.stringValue,
                isName(package, limit: 128)
            else { return nil }
            let label = app["label"]?.stringValue.map { Redaction.sanitize($0, limit: 64) } ?? package
            return PhilipsApp(id: id, label: label.isEmpty ? package : label, package: package, intent: intent)
        }
    }

    /// The package of the activity in front (`activities/current`), nil for none.
    public static func currentPackage(_ answer: JSONValue) -> String? {
        answer["component"]?["packageName"]?.stringValue.flatMap { isName($0, limit: 128) ? $0 : nil }
    }

    /// `channeldb/tv/channelLists/all`: each channel's ccid, preset number and name.
    public static func channels(_ answer: JSONValue) -> [TVChannel] {
        (answer["Channel"]?.arrayValue ?? []).prefix(5000).compactMap { channel in
            guard let ccid = channel["ccid"]?.intValue, let preset = channel["preset"]?.stringValue ?? channel["preset"]?.intValue.map(String.init),
                isName(preset, limit: 12)
            else { return nil }
            return TVChannel(id: String(ccid), number: preset, name: channel["name"]?.stringValue.map { Redaction.sanitize($0, limit: 64) } ?? "")
        }
    }

    /// Text the TV may be sent back: printable, bounded, no quotes or backslashes.
    public static func isName(_ text: String, limit: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= limit && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }
    }
}

/// An app a Philips TV lists: its id (`CLASS-PACKAGE`), label, package and the intent that
/// launches it, quoted back as the TV gave it.
public struct PhilipsApp: Sendable, Equatable {
    public var id: String
    public var label: String
    public var package: String
    public var intent: JSONValue
}

/// Sources on Philips Android TVs: intents for the TV tuner and the HDMI passthrough inputs
/// (HW5–HW8 are HDMI 1–4), as the TV's own app selects them.
public enum PhilipsSources {
    public static let passthrough = "content://android.media.tv/passthrough/"
    public static let channel = "content://android.media.tv/channel"

    /// Each input: its uri (what a switch sends), label and standard name.
    public static let inputs: [TVInput] =
        [TVInput(id: channel, label: "Watch TV", standard: .tuner)]
        + (1...4).map { n in
            TVInput(id: passthrough + "com.mediatek.tvinput%2F.hdmi.HDMIInputService%2FHW\(n + 4)", label: "HDMI \(n)", standard: .hdmi(n))
        }

    /// The intent that shows `uri`.
    public static func intent(_ uri: String) -> JSONValue {
        .object([
            ("extras", .object([("uri", .string(uri))])), ("action", .string("org.droidtv.playtv.SELECTURI")),
            (
                "component",
                .object([("packageName", .string("org.droidtv.playtv")), ("className", .string("org.droidtv.playtv.PlayTvActivity"))])
            ),
        ])
    }
}
