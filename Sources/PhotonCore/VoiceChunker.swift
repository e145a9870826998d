/// Cuts a voice stream into the chunks Android TV's voice input takes while the words are
/// still being spoken: 20 KiB as soon as that much is there (1.28 s at 8 kHz), and at the
/// end whatever is left, padded with silence to 8 KiB (the smallest chunk the TV's
/// assistant handles). The seeds' remote sent the same sizes.
public struct VoiceChunker: Sendable {
    public static let target = 20 * 1024
    public static let minimum = 8 * 1024

    private var buffer: [UInt8] = []
    /// Bytes taken so far.
    public private(set) var received = 0

    public init() {}

    /// Takes more PCM; returns the full chunks it completes (possibly none).
    public mutating func append(_ bytes: [UInt8]) -> [[UInt8]] {
        received += bytes.count
        buffer += bytes
        var chunks: [[UInt8]] = []
        while buffer.count >= Self.target {
            chunks.append(Array(buffer.prefix(Self.target)))
            buffer.removeFirst(Self.target)
        }
        return chunks
    }

    /// The last chunk (padded to the minimum), or nothing when no audio is left over.
    public mutating func finish() -> [[UInt8]] {
        guard !buffer.isEmpty else { return [] }
        var last = buffer
        buffer = []
        if last.count < Self.minimum { last += [UInt8](repeating: 0, count: Self.minimum - last.count) }
        return [last]
    }

    /// A whole recording in chunks, as a live one would have been sent.
    public static func chunks(of pcm: [UInt8]) -> [[UInt8]] {
        var chunker = VoiceChunker()
        return chunker.append(pcm) + chunker.finish()
    }
}

/// Audio that is still being recorded: 16-bit little-endian mono PCM at `sampleRate`,
/// handed over in blocks as the microphone gives them. A voice command carries it so the
/// TV can hear the words while they are spoken; one consumer reads it once. Two of them
/// are the same command only when they are the same recording.
public final class LiveAudio: Sendable, Hashable {
    public let sampleRate: Int
    public let blocks: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation

    public init(sampleRate: Int) {
        self.sampleRate = sampleRate
        (blocks, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
    }

    /// Adds a block (the recorder calls this).
    public func append(_ pcm: [UInt8]) { continuation.yield(pcm) }
    /// The recording ended.
    public func finish() { continuation.finish() }

    public static func == (a: LiveAudio, b: LiveAudio) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
