import PhotonCore

/// Android key codes (`KeyEvent.KEYCODE_*`, 0–304) as the remote protocol numbers them,
/// and the mapping of Photon's brand-neutral keys onto them.
public enum AndroidKeyCodes {
    /// Names without the `KEYCODE_` prefix, indexed by code.
    public static let names: [String] = [
        "UNKNOWN", "SOFT_LEFT", "SOFT_RIGHT", "HOME", "BACK", "CALL", "ENDCALL", "0",
        "1", "2", "3", "4", "5", "6", "7", "8",
        "9", "STAR", "POUND", "DPAD_UP", "DPAD_DOWN", "DPAD_LEFT", "DPAD_RIGHT", "DPAD_CENTER",
        "VOLUME_UP", "VOLUME_DOWN", "POWER", "CAMERA", "CLEAR", "A", "B", "C",
        "D", "E", "F", "G", "H", "I", "J", "K",
        "L", "M", "N", "O", "P", "Q", "R", "S",
        "T", "U", "V", "W", "X", "Y", "Z", "COMMA",
        "PERIOD", "ALT_LEFT", "ALT_RIGHT", "SHIFT_LEFT", "SHIFT_RIGHT", "TAB", "SPACE", "SYM",
        "EXPLORER", "ENVELOPE", "ENTER", "DEL", "GRAVE", "MINUS", "EQUALS", "LEFT_BRACKET",
        "RIGHT_BRACKET", "BACKSLASH", "SEMICOLON", "APOSTROPHE", "SLASH", "AT", "NUM", "HEADSETHOOK",
        "FOCUS", "PLUS", "MENU", "NOTIFICATION", "SEARCH", "MEDIA_PLAY_PAUSE", "MEDIA_STOP", "MEDIA_NEXT",
        "MEDIA_PREVIOUS", "MEDIA_REWIND", "MEDIA_FAST_FORWARD", "MUTE", "PAGE_UP", "PAGE_DOWN", "PICTSYMBOLS", "SWITCH_CHARSET",
        "BUTTON_A", "BUTTON_B", "BUTTON_C", "BUTTON_X", "BUTTON_Y", "BUTTON_Z", "BUTTON_L1", "BUTTON_R1",
        "BUTTON_L2", "BUTTON_R2", "BUTTON_THUMBL", "BUTTON_THUMBR", "BUTTON_START", "BUTTON_SELECT", "BUTTON_MODE", "ESCAPE",
        "FORWARD_DEL", "CTRL_LEFT", "CTRL_RIGHT", "CAPS_LOCK", "SCROLL_LOCK", "META_LEFT", "META_RIGHT", "FUNCTION",
        "SYSRQ", "BREAK", "MOVE_HOME", "MOVE_END", "INSERT", "FORWARD", "MEDIA_PLAY", "MEDIA_PAUSE",
        "MEDIA_CLOSE", "MEDIA_EJECT", "MEDIA_RECORD", "F1", "F2", "F3", "F4", "F5",
        "F6", "F7", "F8", "F9", "F10", "F11", "F12", "NUM_LOCK",
        "NUMPAD_0", "NUMPAD_1", "NUMPAD_2", "NUMPAD_3", "NUMPAD_4", "NUMPAD_5", "NUMPAD_6", "NUMPAD_7",
        "NUMPAD_8", "NUMPAD_9", "NUMPAD_DIVIDE", "NUMPAD_MULTIPLY", "NUMPAD_SUBTRACT", "NUMPAD_ADD", "NUMPAD_DOT", "NUMPAD_COMMA",
        "NUMPAD_ENTER", "NUMPAD_EQUALS", "NUMPAD_LEFT_PAREN", "NUMPAD_RIGHT_PAREN", "VOLUME_MUTE", "INFO", "CHANNEL_UP", "CHANNEL_DOWN",
        "ZOOM_IN", "ZOOM_OUT", "TV", "WINDOW", "GUIDE", "DVR", "BOOKMARK", "CAPTIONS",
        "SETTINGS", "TV_POWER", "TV_INPUT", "STB_POWER", "STB_INPUT", "AVR_POWER", "AVR_INPUT", "PROG_RED",
        "PROG_GREEN", "PROG_YELLOW", "PROG_BLUE", "APP_SWITCH", "BUTTON_1", "BUTTON_2", "BUTTON_3", "BUTTON_4",
        "BUTTON_5", "BUTTON_6", "BUTTON_7", "BUTTON_8", "BUTTON_9", "BUTTON_10", "BUTTON_11", "BUTTON_12",
        "BUTTON_13", "BUTTON_14", "BUTTON_15", "BUTTON_16", "LANGUAGE_SWITCH", "MANNER_MODE", "3D_MODE", "CONTACTS",
        "CALENDAR", "MUSIC", "CALCULATOR", "ZENKAKU_HANKAKU", "EISU", "MUHENKAN", "HENKAN", "KATAKANA_HIRAGANA",
        "YEN", "RO", "KANA", "ASSIST", "BRIGHTNESS_DOWN", "BRIGHTNESS_UP", "MEDIA_AUDIO_TRACK", "SLEEP",
        "WAKEUP", "PAIRING", "MEDIA_TOP_MENU", "11", "12", "LAST_CHANNEL", "TV_DATA_SERVICE", "VOICE_ASSIST",
        "TV_RADIO_SERVICE", "TV_TELETEXT", "TV_NUMBER_ENTRY", "TV_TERRESTRIAL_ANALOG", "TV_TERRESTRIAL_DIGITAL", "TV_SATELLITE", "TV_SATELLITE_BS",
        "TV_SATELLITE_CS",
        "TV_SATELLITE_SERVICE", "TV_NETWORK", "TV_ANTENNA_CABLE", "TV_INPUT_HDMI_1", "TV_INPUT_HDMI_2", "TV_INPUT_HDMI_3", "TV_INPUT_HDMI_4",
        "TV_INPUT_COMPOSITE_1",
        "TV_INPUT_COMPOSITE_2", "TV_INPUT_COMPONENT_1", "TV_INPUT_COMPONENT_2", "TV_INPUT_VGA_1", "TV_AUDIO_DESCRIPTION",
        "TV_AUDIO_DESCRIPTION_MIX_UP", "TV_AUDIO_DESCRIPTION_MIX_DOWN", "TV_ZOOM_MODE",
        "TV_CONTENTS_MENU", "TV_MEDIA_CONTEXT_MENU", "TV_TIMER_PROGRAMMING", "HELP", "NAVIGATE_PREVIOUS", "NAVIGATE_NEXT", "NAVIGATE_IN",
        "NAVIGATE_OUT",
        "STEM_PRIMARY", "STEM_1", "STEM_2", "STEM_3", "DPAD_UP_LEFT", "DPAD_DOWN_LEFT", "DPAD_UP_RIGHT", "DPAD_DOWN_RIGHT",
        "MEDIA_SKIP_FORWARD", "MEDIA_SKIP_BACKWARD", "MEDIA_STEP_FORWARD", "MEDIA_STEP_BACKWARD", "SOFT_SLEEP", "CUT", "COPY", "PASTE",
        "SYSTEM_NAVIGATION_UP", "SYSTEM_NAVIGATION_DOWN", "SYSTEM_NAVIGATION_LEFT", "SYSTEM_NAVIGATION_RIGHT", "ALL_APPS", "REFRESH", "THUMBS_UP",
        "THUMBS_DOWN",
        "PROFILE_SWITCH", "VIDEO_APP_1", "VIDEO_APP_2", "VIDEO_APP_3", "VIDEO_APP_4", "VIDEO_APP_5", "VIDEO_APP_6", "VIDEO_APP_7",
        "VIDEO_APP_8", "FEATURED_APP_1", "FEATURED_APP_2", "FEATURED_APP_3", "FEATURED_APP_4", "DEMO_APP_1", "DEMO_APP_2", "DEMO_APP_3",
        "DEMO_APP_4",
    ]

    private static let codesByName: [String: Int32] = Dictionary(
        uniqueKeysWithValues: names.enumerated().map { ("KEYCODE_" + $0.element, Int32($0.offset)) })

    /// `KEYCODE_HOME` for 3.
    public static func name(of code: Int32) -> String {
        code >= 0 && Int(code) < names.count ? "KEYCODE_" + names[Int(code)] : "KEYCODE_\(code)"
    }

    /// The code for a brand-neutral key (nil: this adapter has none).
    public static func code(for key: RemoteKey) -> Int32? {
        switch key {
        case .up: return 19
        case .down: return 20
        case .left: return 21
        case .right: return 22
        case .select: return 23
        case .back: return 4
        case .home: return 3
        case .menu: return 82
        case .volumeUp: return 24
        case .volumeDown: return 25
        case .mute: return 164
        case .power: return 26
        case .powerOn: return 224
        case .powerOff: return 223
        case .playPause: return 85
        case .play: return 126
        case .pause: return 127
        case .stop: return 86
        case .next: return 87
        case .previous: return 88
        case .rewind: return 89
        case .fastForward: return 90
        case .record: return 130
        case .channelUp: return 166
        case .channelDown: return 167
        case .digit0: return 7
        case .digit1: return 8
        case .digit2: return 9
        case .digit3: return 10
        case .digit4: return 11
        case .digit5: return 12
        case .digit6: return 13
        case .digit7: return 14
        case .digit8: return 15
        case .digit9: return 16
        case .input: return 178
        case .settings: return 176
        case .guide: return 172
        case .info: return 165
        case .captions: return 175
        case .search: return 84
        case .red: return 183
        case .green: return 184
        case .yellow: return 185
        case .blue: return 186
        }
    }

    /// Resolves what the user typed: a brand-neutral key, or with `raw` a
    /// `KEYCODE_*` name (prefix optional, any case) or a number 0–304.
    public static func resolve(_ input: KeyInput) throws -> Int32 {
        switch input {
        case .key(let key):
            guard let code = code(for: key) else {
                throw PhotonError.unsupported("Android TV has no key for '\(key.rawValue)'", hint: "see `photon keys --brand androidtv`")
            }
            return code
        case .raw(let text):
            let upper = text.uppercased()
            if let number = Int32(upper), number >= 0, Int(number) < names.count { return number }
            if let code = codesByName[upper] ?? codesByName["KEYCODE_" + upper] { return code }
            throw PhotonError(
                .usage, "unknown Android key code '\(Redaction.sanitize(text))'",
                hint: "use a KEYCODE_* name or a number from 0 to 304 (see `photon keys --brand androidtv`)")
        }
    }

    /// The brand-neutral table for `photon keys`.
    public static var keyTable: [KeyMapping] {
        RemoteKey.allCases.compactMap { key in code(for: key).map { KeyMapping(key: key, code: name(of: $0)) } }
    }
}
