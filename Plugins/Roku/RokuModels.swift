import PhotonCore

/// `GET /query/device-info`, as typed values. Every field came from the network.
public struct RokuDeviceInfo: Sendable, Equatable {
    public var serial: String
    public var name: String
    public var model: String?
    public var vendor: String
    public var powerMode: String?
    public var mac: String?
    public var ecpSettingMode: String?
    public var isTV: Bool
    public var supportsWakeOnWLAN: Bool

    public var isOn: Bool { powerMode == "PowerOn" }

    /// `power-mode` as a power state: PowerOn is on; Headless (playing with the display
    /// off) is screen-off; DisplayOff and Ready (fast start) are standby.
    public var powerState: PowerState? {
        switch powerMode {
        case "PowerOn": return .on
        case "Headless": return .screenOff
        case "DisplayOff", "Ready": return .standby
        default: return nil
        }
    }

    /// The photon id of this device: stable, from its serial number.
    public var deviceID: String { "roku-" + serial.lowercased() }

    public static func parse(_ body: [UInt8]) throws -> RokuDeviceInfo {
        let root = try XMLTree.parse(body)
        guard root.name == "device-info" else { throw PhotonError(.protocolViolation, "the answer to device-info is not a <device-info>") }
        func text(_ name: String, limit: Int = 128) -> String? {
            root.value(name).map { Redaction.sanitize($0, limit: limit) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let serial = root.value("serial-number"), !serial.isEmpty, serial.utf8.count <= 64,
            serial.utf8.allSatisfy(\.isASCIIAlphanumeric)
        else { throw PhotonError(.protocolViolation, "the Roku's device-info has no usable serial number") }
        let vendor = text("vendor-name") ?? "Roku"
        let name =
            text("user-device-name") ?? text("friendly-device-name") ?? text("default-device-name")
            ?? [vendor, text("model-name") ?? ""].joined(separator: " ").trimmingSpaces
        let ethernet = root.value("network-type") == "ethernet"
        let mac =
            (ethernet ? root.value("ethernet-mac") : root.value("wifi-mac")).flatMap(MACAddress.normalized)
            ?? root.value("ethernet-mac").flatMap(MACAddress.normalized) ?? root.value("wifi-mac").flatMap(MACAddress.normalized)
        return RokuDeviceInfo(
            serial: serial, name: name, model: text("model-name"), vendor: vendor, powerMode: text("power-mode", limit: 32), mac: mac,
            ecpSettingMode: text("ecp-setting-mode", limit: 32), isTV: root.value("is-tv") == "true",
            supportsWakeOnWLAN: root.value("supports-wake-on-wlan") == "true")
    }
}

/// An app on the Roku (`/query/apps`, `/query/active-app`).
public struct RokuApp: Sendable, Equatable {
    public var id: String?
    public var name: String

    /// The app in the foreground; the home screen has no id.
    public static func active(_ body: [UInt8]) throws -> RokuApp? {
        let root = try XMLTree.parse(body)
        guard root.name == "active-app" else { throw PhotonError(.protocolViolation, "the answer to active-app is not an <active-app>") }
        return root[child: "app"].map {
            RokuApp(id: $0.attributes["id"].map { Redaction.sanitize($0, limit: 64) }, name: Redaction.sanitize($0.text, limit: 128))
        }
    }

    public static func list(_ body: [UInt8]) throws -> [RokuApp] {
        let root = try XMLTree.parse(body)
        guard root.name == "apps" else { throw PhotonError(.protocolViolation, "the answer to apps is not an <apps>") }
        return root.all("app").map {
            RokuApp(id: $0.attributes["id"].map { Redaction.sanitize($0, limit: 64) }, name: Redaction.sanitize($0.text, limit: 128))
        }
    }
}

/// `GET /query/media-player` and `GET /query/tv-active-channel`, as a `PlaybackState`.
public enum RokuPlayback {
    /// `<player state="play"><position>139051 ms</position>…</player>`.
    public static func mediaPlayer(_ body: [UInt8]) throws -> PlaybackState {
        let root = try XMLTree.parse(body)
        guard root.name == "player" else { throw PhotonError(.protocolViolation, "the answer to media-player is not a <player>") }
        let state = Redaction.sanitize(root.attributes["state"] ?? "unknown", limit: 32)
        return PlaybackState(state: state, positionMilliseconds: root.value("position").flatMap(milliseconds))
    }

    /// `<tv-channel><channel><number>1.1</number><name>…</name>…</channel></tv-channel>`.
    public static func activeChannel(_ body: [UInt8]) throws -> PlaybackState {
        let root = try XMLTree.parse(body)
        guard root.name == "tv-channel" else { throw PhotonError(.protocolViolation, "the answer to tv-active-channel is not a <tv-channel>") }
        let channel = root[child: "channel"]
        let label = [channel?.value("number"), channel?.value("name")].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return PlaybackState(state: "live", channel: label.isEmpty ? nil : Redaction.sanitize(label, limit: 64))
    }

    /// `139051 ms` → 139051 (digits only, bounded).
    static func milliseconds(_ text: String) -> Int? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 12 else { return nil }
        return Int(digits)
    }
}

/// ECP key names and the literal-text encoding.
public enum RokuKeys {
    public static let table: [RemoteKey: String] = [
        .home: "Home", .back: "Back", .up: "Up", .down: "Down", .left: "Left", .right: "Right", .select: "Select",
        .info: "Info", .rewind: "Rev", .fastForward: "Fwd", .playPause: "Play", .search: "Search",
        .volumeUp: "VolumeUp", .volumeDown: "VolumeDown", .mute: "VolumeMute",
        .power: "Power", .powerOn: "PowerOn", .powerOff: "PowerOff", .channelUp: "ChannelUp", .channelDown: "ChannelDown",
    ]

    public static var keyTable: [KeyMapping] {
        RemoteKey.allCases.compactMap { key in table[key].map { KeyMapping(key: key, code: $0) } }
    }

    /// The ECP name for a key, or `unsupported`/`usage` with nothing sent.
    public static func resolve(_ input: KeyInput) throws -> String {
        switch input {
        case .key(let key):
            guard let code = table[key] else {
                throw PhotonError.unsupported("Roku has no '\(key.rawValue)' key", hint: "see `photon keys --brand roku`")
            }
            return code
        case .raw(let raw):
            guard !raw.isEmpty, raw.utf8.count <= 32, raw.utf8.allSatisfy(\.isASCIIAlphanumeric)
            else {
                throw PhotonError(
                    .usage, "'\(Redaction.sanitize(raw))' is not an ECP key name", hint: "ECP names look like InputHDMI1 or InstantReplay")
            }
            return raw
        }
    }

    /// `Lit_<character>` for each character, UTF-8 percent-encoded (only ASCII letters and
    /// digits go as they are; a space is `%20`).
    public static func literals(_ text: String) -> [String] {
        text.map { "Lit_" + percentEncoded(String($0), strict: true) }
    }
}

/// What a Roku's "Control by mobile apps" setting does to commands, as errors a user can act on.
enum RokuAccess {
    static let settingPath = "on the Roku: Settings > System > Advanced system settings > Control by mobile apps > Network access, set to Enabled"

    static func refusal(status: Int, what: String) -> PhotonError {
        let mode = status == 401 ? "Disabled" : "Limited"
        return PhotonError(
            .authenticationRefused, "the Roku refused \(what) (HTTP \(status)): its \"Control by mobile apps\" network access is \(mode)",
            hint: settingPath)
    }

    /// A remark for probe and pair when the reported mode will refuse commands.
    static func remark(_ mode: String?) -> String? {
        guard let mode, mode == "limited" || mode == "disabled" else { return nil }
        return "\"Control by mobile apps\" is \(mode): keys and launches will be refused until you set it to Enabled (\(settingPath))"
    }
}
