import PhotonCore

/// Samsung `KEY_*` codes for the brand-neutral keys (protocol notes §5.1).
public enum SamsungKeys {
    static let table: [RemoteKey: String] = [
        .up: "KEY_UP", .down: "KEY_DOWN", .left: "KEY_LEFT", .right: "KEY_RIGHT", .select: "KEY_ENTER",
        .back: "KEY_RETURN", .home: "KEY_HOME", .menu: "KEY_MENU", .volumeUp: "KEY_VOLUP", .volumeDown: "KEY_VOLDOWN",
        .mute: "KEY_MUTE", .power: "KEY_POWER", .playPause: "KEY_PLAY_BACK", .play: "KEY_PLAY", .pause: "KEY_PAUSE",
        .stop: "KEY_STOP", .rewind: "KEY_REWIND", .fastForward: "KEY_FF", .record: "KEY_REC", .channelUp: "KEY_CHUP",
        .channelDown: "KEY_CHDOWN", .previous: "KEY_PRECH", .digit0: "KEY_0", .digit1: "KEY_1", .digit2: "KEY_2",
        .digit3: "KEY_3", .digit4: "KEY_4", .digit5: "KEY_5", .digit6: "KEY_6", .digit7: "KEY_7", .digit8: "KEY_8",
        .digit9: "KEY_9", .input: "KEY_SOURCE", .settings: "KEY_MENU", .guide: "KEY_GUIDE", .info: "KEY_INFO",
        .captions: "KEY_CAPTION", .search: "KEY_SEARCH", .red: "KEY_RED", .green: "KEY_GREEN", .yellow: "KEY_YELLOW",
        .blue: "KEY_BLUE",
    ]

    /// Service-menu and factory keys are never sent, even with --raw.
    static let forbidden: Set<String> = ["KEY_FACTORY", "KEY_SVC", "KEY_SERVICE"]

    public static var keyTable: [KeyMapping] {
        RemoteKey.allCases.compactMap { key in table[key].map { KeyMapping(key: key, code: $0) } }
    }

    public static func resolve(_ input: KeyInput) throws -> String {
        switch input {
        case .key(let key):
            guard let code = table[key] else {
                throw PhotonError.unsupported(
                    "Samsung TVs have no '\(key.rawValue)' key",
                    hint: key == .powerOn || key == .powerOff
                        ? "Tizen ignores KEY_POWERON/OFF: use `power` (sent only when the state calls for it), and Wake-on-LAN to switch on"
                        : "see `photon keys --brand samsung`, or send a KEY_* code with --raw")
            }
            return code
        case .raw(let text):
            let code = text.uppercased().hasPrefix("KEY_") ? text.uppercased() : "KEY_" + text.uppercased()
            guard code.count <= 40, code.dropFirst(4).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                throw PhotonError(.usage, "'\(Redaction.sanitize(text))' is not a Samsung key code", hint: "codes look like KEY_HDMI1")
            }
            guard !forbidden.contains(code) && !code.hasPrefix("KEY_AUTO_ARC") else {
                throw PhotonError(.unsupported, "\(code) opens the TV's service menu; Photon never sends it")
            }
            return code
        }
    }
}
