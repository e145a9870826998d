/// A session's event stream and its one ending. Every adapter's session reports events
/// until it ends, and then — exactly once, whether the TV dropped it or the caller closed
/// it — `.disconnected` with the reason, and the end of the stream. This keeps that
/// bookkeeping (an ended flag checked before each command, the first ending winning) in
/// one place.
public final class SessionEvents: Sendable {
    public let stream: AsyncStream<TVEvent>
    private let continuation: AsyncStream<TVEvent>.Continuation
    private let ended = Locked(false)
    private let reason = Locked<PhotonError?>(nil)

    /// Keeps the newest `buffer` events for a slow reader.
    public init(buffer: Int = 64) {
        (stream, continuation) = AsyncStream.makeStream(of: TVEvent.self, bufferingPolicy: .bufferingNewest(buffer))
    }

    public func yield(_ event: TVEvent) { continuation.yield(event) }

    public var isEnded: Bool { ended.withLock { $0 } }

    /// Why the session ended, when the TV ended it (nil while open and after a clean close).
    public var endReason: PhotonError? { reason.withLock { $0 } }

    /// Throws `connectionClosed` (naming `what`) once the session has ended.
    public func checkOpen(_ what: String) throws {
        if isEnded { throw PhotonError(.connectionClosed, "the session to \(what) is closed") }
    }

    /// Reports `.disconnected(reason)` and ends the stream; only the first call does.
    /// Returns whether it was the first.
    @discardableResult
    public func end(_ reason: PhotonError?) -> Bool {
        let first = ended.withLock { e -> Bool in
            defer { e = true }
            return !e
        }
        guard first else { return false }
        self.reason.withLock { $0 = reason }
        continuation.yield(.disconnected(reason: reason))
        continuation.finish()
        return true
    }
}
