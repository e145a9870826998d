/// The brand-neutral key set. Adapters map each key to their own code (`select` →
/// a brand's `KEYCODE_DPAD_CENTER` or `KEY_ENTER`); a key an adapter
/// cannot map is an `unsupported` error, never a silent no-op. Raw values are the
/// lower-case kebab-case names of the command-line contract.
public enum RemoteKey: String, Sendable, CaseIterable, Codable, Hashable {
    case up, down, left, right, select, back, home, menu
    case volumeUp = "volume-up"
    case volumeDown = "volume-down"
    case mute
    case power
    case powerOn = "power-on"
    case powerOff = "power-off"
    case playPause = "play-pause"
    case play, pause, stop, next, previous, rewind
    case fastForward = "fast-forward"
    case record
    case channelUp = "channel-up"
    case channelDown = "channel-down"
    case digit0 = "0"
    case digit1 = "1"
    case digit2 = "2"
    case digit3 = "3"
    case digit4 = "4"
    case digit5 = "5"
    case digit6 = "6"
    case digit7 = "7"
    case digit8 = "8"
    case digit9 = "9"
    case input, settings, guide, info, captions, search
    case red, green, yellow, blue

    /// Looks a key up by its contract name, case-insensitively, also accepting
    /// underscores and camel case (`volume_up`, `volumeUp`).
    public init?(name: String) {
        // All capitals (VOLUME_UP) is not camel case: just lower it.
        let hasLower = name.unicodeScalars.contains { $0 >= "a" && $0 <= "z" }
        let source = hasLower ? name : name.lowercased()
        var normalized = ""
        for scalar in source.unicodeScalars {
            if scalar == "_" || scalar == " " {
                normalized.append("-")
            } else if scalar >= "A", scalar <= "Z", !normalized.isEmpty, normalized.last != "-" {
                normalized.append("-")
                normalized.append(Character(scalar).lowercased())
            } else {
                normalized.append(Character(scalar).lowercased())
            }
        }
        self.init(rawValue: normalized)
    }

    /// Keys a gesture-like source may never send (see the command router policy).
    public var isPowerOrSettings: Bool {
        switch self {
        case .power, .powerOn, .powerOff, .settings, .input: return true
        default: return false
        }
    }
}

/// A key as the user asked for it: a brand-neutral key or a brand's own code passed
/// through unchanged (`KEYCODE_TV_INPUT`, `KEY_SOURCE`, or a number).
public enum KeyInput: Sendable, Hashable, CustomStringConvertible {
    case key(RemoteKey)
    case raw(String)

    public var description: String {
        switch self {
        case .key(let key): return key.rawValue
        case .raw(let code): return code
        }
    }
}

/// How a key is pressed: a short press, or the start and end of a long press.
public enum KeyAction: String, Sendable, Codable, Hashable {
    case press
    case holdStart = "hold-start"
    case holdEnd = "hold-end"
}
