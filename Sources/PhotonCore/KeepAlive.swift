/// Notices a TV that went away without a goodbye: a network that disappears sends no FIN,
/// so a long-lived message stream pings a peer that has been quiet, and a peer that does
/// not answer is gone. Shared by every brand whose session lives on a WebSocket.
public enum KeepAlive {
    /// Pings `channel` after `interval` without a frame from the peer, and returns `true`
    /// once a ping gets nothing back within `interval` more (the peer is gone). Returns
    /// `false` when cancelled or when `isClosed` says the session ended. A receive loop must
    /// be running on the channel, so that answers show as `lastActivity`.
    public static func watch(
        _ channel: any MessageStream, interval: Duration, label: String, log: PhotonLog, isClosed: @Sendable () -> Bool
    ) async -> Bool {
        let opened = ContinuousClock.now
        var wait = interval
        while !Task.isCancelled {
            try? await Task.sleep(for: wait)
            guard !Task.isCancelled, !isClosed() else { return false }
            let last = channel.lastActivity ?? opened
            let idle = ContinuousClock.now - last
            if idle < interval {
                wait = interval - idle
                continue
            }
            log.debug("\(label): nothing from the TV for \(Int(idle.seconds * 1000)) ms; pinging it")
            try? await channel.sendPing()
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled, !isClosed() else { return false }
            if let now = channel.lastActivity, now > last {
                wait = interval
                continue
            }
            return true
        }
        return false
    }

    /// The error a session ends with when its TV stopped answering pings.
    public static func silentPeer(after interval: Duration) -> PhotonError {
        PhotonError(
            .timeout, "the TV stopped answering (no reply to a ping in \(Int(interval.seconds * 1000)) ms)",
            hint: "check that the TV is on and on the network; photon reconnects when it is back")
    }
}
