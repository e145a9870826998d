import Foundation
import PhotonCore

/// One recording from the microphone, held in memory only: it opens the device, reads
/// 20 ms blocks on a thread of its own, and ends on its own after 1.5 s of silence that
/// follows speech, at 10 s, or when nobody speaks (`SpeechEndpointer`), or at `stop()`
/// (Enter). The device is closed the moment the recording ends, so the microphone is
/// open exactly while the recording runs.
public final class MicrophoneRecording: Sendable {
    /// A block of audio with where the recording stood after it.
    public struct Block: Sendable {
        public var samples: [Int16]
        public var verdict: SpeechEndpointer.Verdict
        /// The block's level in dBFS, and the time left, for a meter.
        public var level: Double
        public var remaining: Duration
    }

    /// What was opened, for the "recording from …" line.
    public let deviceName: String
    public let sampleRate: Int
    /// The blocks as they are recorded; finishes when the recording ends.
    public let blocks: AsyncThrowingStream<Block, any Error>
    private let stopRequested = Locked(false)

    /// Opens the default microphone at `sampleRate` and starts recording. Throws before
    /// anything is recorded when there is no microphone or no permission.
    public static func start(sampleRate: Int, limits: SpeechEndpointer.Limits = .init()) throws -> MicrophoneRecording {
        let capture = try Microphone.open(rate: sampleRate)
        return MicrophoneRecording(capture: capture, sampleRate: sampleRate, limits: limits)
    }

    init(capture: any AudioCapture, sampleRate: Int, limits: SpeechEndpointer.Limits) {
        deviceName = capture.name
        self.sampleRate = sampleRate
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Block.self, bufferingPolicy: .unbounded)
        blocks = stream
        let stop = stopRequested
        let thread = Thread {
            var endpointer = SpeechEndpointer(sampleRate: sampleRate, limits: limits)
            let blockLength = sampleRate / 50
            defer { capture.close() }
            do {
                while true {
                    let samples = try capture.read(blockLength)
                    var verdict = endpointer.consume(samples)
                    if stop.withLock({ $0 }), !verdict.isEnded { verdict = .ended(endpointer.heardSpeech ? .stopped : .noSpeech) }
                    continuation.yield(Block(samples: samples, verdict: verdict, level: endpointer.level, remaining: endpointer.remaining))
                    if verdict.isEnded { break }
                }
                capture.close()
                continuation.finish()
            } catch {
                capture.close()
                continuation.finish(throwing: error)
            }
        }
        thread.name = "photon-microphone"
        thread.start()
    }

    /// Ends the recording after the block being read (Enter was pressed).
    public func stop() { stopRequested.withLock { $0 = true } }
}
