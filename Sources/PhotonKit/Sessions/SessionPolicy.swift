import PhotonCore

/// How the session service holds a TV's session.
public enum SessionPolicy: Sendable {
    /// Opened when a remote connects, closed when the last one leaves; a lost session
    /// ends its remotes' event streams (the CLI's one-shot commands, a Swift program).
    case oneShot
    /// Kept open while the process runs and reopened in the background when the TV
    /// goes away (the daemon): commands fail at once during an outage, never queued.
    case keepWarm(ReconnectBackoff)

    var keepsWarm: Bool {
        if case .keepWarm = self { return true }
        return false
    }
}

/// How a TV's session is doing.
public enum ConnectionState: String, Sendable {
    /// Not connected: nobody has used this TV yet, or (one-shot) its session ended.
    case idle
    /// A connection is being opened.
    case connecting
    /// The session is open and takes commands.
    case connected
    /// The TV went away; the session service is reconnecting in the background.
    case reconnecting
    /// The TV refused us (pairing revoked, certificate changed): retrying cannot help.
    case failed
    /// The TV was forgotten or the process is stopping.
    case closed
}

/// The wait between background reconnect attempts: quick at first (a TV restarting
/// comes back in seconds), then slower so a sleeping TV is not hammered.
public struct ReconnectBackoff: Sendable {
    /// The wait before the first reconnection attempt.
    public var first: Duration = .milliseconds(250)
    /// The longest wait between two attempts.
    public var maximum: Duration = .seconds(30)
    /// ±this fraction of jitter, so many TVs that dropped together do not reconnect in
    /// lockstep (0 in tests that count attempts against a moved clock).
    public var jitter = 0.1
    /// The default back-off: 250 ms, doubling, at most 30 s.
    public init() {}

    /// The delay before attempt `failures` (1-based).
    public func delay(afterFailures failures: Int) -> Duration {
        let base = first * Int(1 << min(max(failures - 1, 0), 16))
        let capped = min(base, maximum)
        guard jitter > 0 else { return capped }
        return capped * Double.random(in: (1 - jitter)...(1 + jitter))
    }
}

/// What a TV's session tells the ones watching it: the connection's state (with the
/// error that caused it) and the TV's own events, typed — never a wire format.
public enum TVUpdate: Sendable, Equatable {
    /// The connection moved to a state, with the error that moved it there, if any.
    case connection(ConnectionState, PhotonError?)
    /// Something the TV reported (power, app, volume…) or the session's end.
    case event(TVEvent)
}

extension TVEvent {
    /// The kind of state this event reports (`power`, `volume`, `app`, `playback`,
    /// `device`), which a later event of the same kind replaces; nil for `disconnected`.
    public var stateKey: String? {
        switch self {
        case .power: return "power"
        case .powerState: return "power-state"
        case .volume: return "volume"
        case .currentApp: return "app"
        case .playback: return "playback"
        case .deviceInfo: return "device"
        case .setting(let name, _): return "setting:\(name)"
        case .disconnected: return nil
        }
    }
}
