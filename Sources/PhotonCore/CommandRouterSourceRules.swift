/// What each less-trusted source may send: the broker's allowances, `photon follow`'s
/// power-and-input rule, HomeKit's and the gestures'. `admit` applies them per envelope.
extension CommandRouter {
    /// What anyone who can publish on the broker may send: no brand key codes and no links
    /// unless the site allows them, no hold past the gesture limit.
    func admitFromBroker(_ command: RemoteCommand) throws {
        switch command {
        case .key(.raw, _), .longPress(.raw, _):
            guard policy.brokerAllows.contains(.rawKeys) else { throw RouterRejection.brokerForbidden("send raw key codes", allowance: "raw") }
        case .launch(let target) where Self.isLink(target):
            guard policy.brokerAllows.contains(.links) else { throw RouterRejection.brokerForbidden("open links (only app ids)", allowance: "links") }
        default: break
        }
        if case .longPress(_, let ms) = command, Double(ms) > policy.gestureHoldLimit * 1000 {
            throw RouterRejection.brokerForbidden("hold a key for more than \(policy.gestureHoldLimit) s", allowance: nil)
        }
    }

    /// A launch target with a scheme (`https://…`, `vnd.youtube://…`, `intent:…`), not an
    /// app id (`12`, `111299001912`, `youtube.leanback.v4`, `12?contentId=…`).
    static func isLink(_ target: String) -> Bool {
        guard let colon = target.firstIndex(of: ":") else { return false }
        let scheme = target[..<colon]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
            || target.contains("://")
    }

    /// Gestures may only navigate, play and change volume.
    /// What `photon follow` may send: power keys, a wake, the picture, art mode, an input.
    static func followMaySend(_ command: RemoteCommand) -> Bool {
        switch command {
        case .key(.key(let key), .press): return [.power, .powerOn, .powerOff].contains(key)
        case .wake, .screen, .input, .art(.mode): return true
        default: return false
        }
    }

    /// What a HomeKit controller may send: power (and the wake before it), an input, an app
    /// by id (no link), navigation, media and volume keys pressed (never held), volume.
    public static func homekitMaySend(_ command: RemoteCommand) -> Bool {
        let allowed: Set<RemoteKey> = [
            .power, .powerOn, .powerOff, .up, .down, .left, .right, .select, .back, .home, .menu, .settings, .info, .playPause, .play,
            .pause, .stop, .next, .previous, .rewind, .fastForward, .volumeUp, .volumeDown, .mute, .guide, .input, .captions, .channelUp,
            .channelDown,
        ]
        switch command {
        case .key(.key(let key), .press): return allowed.contains(key)
        case .wake, .input, .volume, .setVolume: return true
        case .launch(let target): return !isLink(target)
        default: return false
        }
    }

    static func gestureMaySend(_ command: RemoteCommand) -> Bool {
        let allowed: Set<RemoteKey> = [
            .up, .down, .left, .right, .select, .back, .home, .playPause, .play, .pause, .next, .previous, .rewind, .fastForward,
            .volumeUp, .volumeDown, .mute,
        ]
        switch command {
        case .key(.key(let key), _), .longPress(.key(let key), _): return allowed.contains(key)
        case .volume: return true
        default: return false
        }
    }
}
