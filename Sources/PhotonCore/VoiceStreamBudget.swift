/// The bounds on audio a client streams in (the web remote's microphone): at most
/// `maximum` of audio in all, and never faster than real time by more than `slack` (what
/// a page may have buffered while its connection opened). A stream over either bound is
/// ended — that stream only — so a client cannot make the daemon hold or relay more than a
/// spoken request's worth.
public struct VoiceStreamBudget: Sendable, Hashable {
    public enum Verdict: Sendable, Hashable {
        case accepted
        /// More audio than `maximum` in all.
        case tooLong
        /// Audio arriving faster than it could have been spoken.
        case tooFast
    }

    public let bytesPerSecond: Int
    public let maximum: Duration
    public let slack: Duration
    public private(set) var bytes = 0
    private var firstAudio: Duration?

    /// For 16-bit mono audio at `sampleRate`.
    public init(sampleRate: Int, maximum: Duration = .seconds(10), slack: Duration = .seconds(2)) {
        bytesPerSecond = sampleRate * 2
        self.maximum = maximum
        self.slack = slack
    }

    /// The audio's length so far.
    public var duration: Duration { .seconds(Double(bytes) / Double(max(1, bytesPerSecond))) }

    /// Counts `count` bytes that arrived `elapsed` after the stream opened.
    public mutating func accept(_ count: Int, at elapsed: Duration) -> Verdict {
        let first = firstAudio ?? elapsed
        firstAudio = first
        let total = bytes + count
        if Double(total) > Double(bytesPerSecond) * maximum.seconds { return .tooLong }
        if Double(total) > Double(bytesPerSecond) * (elapsed - first + slack).seconds { return .tooFast }
        bytes = total
        return .accepted
    }
}
