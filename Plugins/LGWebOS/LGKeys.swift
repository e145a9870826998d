import PhotonCore

/// LG pointer-socket button names for the brand-neutral keys. Power goes through
/// `system/turnOff` (a toggle on real sets, so it is sent only when the TV reports itself
/// on) and play/pause through PLAY or PAUSE by the player's state: the session handles
/// those.
public enum LGKeys {
    static let table: [RemoteKey: String] = [
        .up: "UP", .down: "DOWN", .left: "LEFT", .right: "RIGHT", .select: "ENTER", .back: "BACK", .home: "HOME", .menu: "MENU",
        .volumeUp: "VOLUMEUP", .volumeDown: "VOLUMEDOWN", .mute: "MUTE", .play: "PLAY", .pause: "PAUSE", .stop: "STOP",
        .rewind: "REWIND", .fastForward: "FASTFORWARD", .record: "RECORD", .channelUp: "CHANNELUP", .channelDown: "CHANNELDOWN",
        .digit0: "0", .digit1: "1", .digit2: "2", .digit3: "3", .digit4: "4", .digit5: "5", .digit6: "6", .digit7: "7",
        .digit8: "8", .digit9: "9", .input: "INPUT_HUB", .settings: "QMENU", .guide: "GUIDE", .info: "INFO", .captions: "CC",
        .red: "RED", .green: "GREEN", .yellow: "YELLOW", .blue: "BLUE",
    ]

    /// Keys the session sends another way, as `photon keys` shows them.
    static let special: [RemoteKey: String] = [
        .power: "system/turnOff (when on)", .powerOff: "system/turnOff", .powerOn: "Wake-on-LAN", .playPause: "PLAY or PAUSE",
    ]

    /// Service-menu buttons: never sent, even with --raw.
    static let forbidden: Set<String> = ["IN_START", "IN_STOP", "EZ_ADJUST", "POWERONLY", "FACTORY", "SERVICE"]

    public static var keyTable: [KeyMapping] {
        RemoteKey.allCases.compactMap { key in (table[key] ?? special[key]).map { KeyMapping(key: key, code: $0) } }
    }

    /// The button for a key the pointer socket takes.
    public static func button(for input: KeyInput) throws -> String {
        switch input {
        case .key(let key):
            guard let name = table[key] else {
                throw PhotonError.unsupported(
                    "LG TVs have no '\(key.rawValue)' button", hint: "see `photon keys --brand lg`, or send a button name with --raw")
            }
            return name
        case .raw(let text):
            let name = text.uppercased()
            guard LGPointer.isButtonName(name) else {
                throw PhotonError(
                    .usage, "'\(Redaction.sanitize(text, limit: 40))' is not an LG button name",
                    hint: "names look like NETFLIX, 3D_MODE, ASPECT_RATIO")
            }
            guard !forbidden.contains(name) else {
                throw PhotonError(.unsupported, "\(name) opens the TV's service menu; Photon never sends it")
            }
            return name
        }
    }
}
