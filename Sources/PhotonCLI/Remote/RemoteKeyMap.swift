import PhotonCore

/// What a key of the keyboard remote does.
enum RemoteAction: Sendable, Equatable {
    case send(RemoteCommand)
    /// Opens the text line (`/`).
    case textLine
    /// Opens the app pick list (`a`).
    case appList
    case help
    case quit
}

/// The keyboard remote's default key map — the common ground of samsungctl, roku-cli and
/// androidtvremote2's demo — and what each entry needs from the TV, so keys it lacks are
/// shown as unavailable instead of failing silently.
enum RemoteKeyMap {
    struct Entry: Sendable {
        let keys: String
        let label: String
        let action: RemoteAction
    }

    /// The rows of the key map, in the order the help shows them.
    static let entries: [Entry] = [
        Entry(keys: "arrows", label: "D-pad", action: .send(.key(.key(.up), .press))),
        Entry(keys: "Enter", label: "select", action: .send(.key(.key(.select), .press))),
        Entry(keys: "Backspace Esc", label: "back", action: .send(.key(.key(.back), .press))),
        Entry(keys: "h Home", label: "home", action: .send(.key(.key(.home), .press))),
        Entry(keys: "+ -", label: "volume", action: .send(.volume(.up))),
        Entry(keys: "m", label: "mute", action: .send(.volume(.mute))),
        Entry(keys: "Space", label: "play/pause", action: .send(.key(.key(.playPause), .press))),
        Entry(keys: "p", label: "power", action: .send(.key(.key(.power), .press))),
        Entry(keys: "0-9", label: "digits", action: .send(.key(.key(.digit0), .press))),
        Entry(keys: "/", label: "type text", action: .textLine),
        Entry(keys: "a", label: "apps", action: .appList),
        Entry(keys: "?", label: "help", action: .help),
        Entry(keys: "q", label: "quit", action: .quit),
    ]

    /// The action of one key, or nil for keys the map does not use.
    static func action(for input: TerminalInput) -> RemoteAction? {
        func key(_ k: RemoteKey) -> RemoteAction { .send(.key(.key(k), .press)) }
        switch input {
        case .up: return key(.up)
        case .down: return key(.down)
        case .left: return key(.left)
        case .right: return key(.right)
        case .enter: return key(.select)
        case .backspace, .escape: return key(.back)
        case .home: return key(.home)
        case .interrupt: return .quit
        case .character(let c):
            switch c {
            case "h", "H": return key(.home)
            case "+", "=": return .send(.volume(.up))
            case "-", "_": return .send(.volume(.down))
            case "m", "M": return .send(.volume(.mute))
            case " ": return key(.playPause)
            case "p", "P": return key(.power)
            case "/": return .textLine
            case "a", "A": return .appList
            case "?": return .help
            case "q", "Q": return .quit
            default:
                if let digit = c.wholeNumberValue, c.isASCII, let k = RemoteKey(rawValue: String(digit)) { return key(k) }
                return nil
            }
        case .end, .tab, .unknown: return nil
        }
    }

    /// Why `action` cannot work on a TV with these keys and capabilities, or nil when it can.
    static func unavailability(of action: RemoteAction, keys: Set<RemoteKey>, capabilities: Capabilities) -> String? {
        switch action {
        case .send(.key(.key(let key), _)):
            if key == .up || key == .down || key == .left || key == .right {
                return [RemoteKey.up, .down, .left, .right].allSatisfy(keys.contains) ? nil : "this TV has no D-pad keys"
            }
            if key.rawValue.count == 1, key.rawValue.first?.isNumber == true {
                return keys.contains(key) ? nil : "this TV has no digit keys"
            }
            return keys.contains(key) ? nil : "this TV has no '\(key.rawValue)' key"
        case .send(.volume):
            return capabilities.contains(.keys) ? nil : "this TV takes no volume commands"
        case .textLine:
            return capabilities.contains(.text) ? nil : "this TV takes no text"
        case .appList:
            return capabilities.contains(.appList) ? nil : "this TV cannot list its apps"
        default:
            return nil
        }
    }
}
