import Foundation

/// Decides when a live recording ends, from the audio alone: after 1.5 s of silence that
/// follows speech, at the 10 s limit, or early when nobody has spoken for 5 s. It also
/// gives the level a meter shows. No I/O, no clock: time is counted in samples, so the same
/// audio always ends at the same place and tests need no sleeps.
///
/// Speech is three 20 ms frames in a row louder than both a fixed floor (-42 dBFS, quieter
/// than any voice at a normal distance from a laptop microphone) and the room's own noise
/// plus 10 dB. The first 200 ms measure the room; the estimate then follows the quietest
/// frames and rises only slowly, so a fan or a hum raises the bar instead of counting as
/// speech.
public struct SpeechEndpointer: Sendable {
    /// The limits of one recording.
    public struct Limits: Sendable, Hashable {
        /// Silence after speech that ends the recording.
        public var silenceAfterSpeech: Duration
        /// The longest recording.
        public var maximum: Duration
        /// How long to wait for the first word before giving up.
        public var waitForSpeech: Duration
        public init(silenceAfterSpeech: Duration = .milliseconds(1500), maximum: Duration = .seconds(10), waitForSpeech: Duration = .seconds(5)) {
            self.silenceAfterSpeech = silenceAfterSpeech
            self.maximum = maximum
            self.waitForSpeech = waitForSpeech
        }
    }

    /// Why a recording ended.
    public enum Ending: String, Sendable, Hashable {
        /// Speech, then `silenceAfterSpeech` of quiet.
        case silence
        /// The maximum length was reached (speech was heard).
        case maximum
        /// Nobody spoke within `waitForSpeech` (or the whole recording).
        case noSpeech = "no_speech"
        /// The person stopped it (Enter).
        case stopped
    }

    /// Where the recording stands after some audio.
    public enum Verdict: Sendable, Hashable {
        case waitingForSpeech
        case speaking
        case ended(Ending)

        public var isEnded: Bool {
            if case .ended = self { return true }
            return false
        }
    }

    public let sampleRate: Int
    public let limits: Limits
    /// The loudest frame of the last audio given, in dBFS (-100 for digital silence).
    public private(set) var level: Double = -100
    /// Whether speech has been heard.
    public private(set) var heardSpeech = false
    /// Samples consumed so far.
    public private(set) var samplesSeen = 0
    /// The verdict after the last audio given.
    public private(set) var verdict: Verdict = .waitingForSpeech

    /// Frames shorter than this are held until complete.
    private let frameLength: Int
    private var pending: [Int16] = []
    private var noiseFloor: Double?
    private var speechFrames = 0
    private var calibrated = 0
    /// Frames (200 ms) that measure the room's noise before speech is looked for.
    static let calibrationFrames = 10
    private var quietSamples = 0

    public static let speechFloor = -42.0
    /// Consecutive loud frames (60 ms) it takes to count as speech, so a click does not.
    static let framesToStartSpeech = 3

    public init(sampleRate: Int, limits: Limits = Limits()) {
        precondition(sampleRate >= 1000, "an audio rate in Hz")
        self.sampleRate = sampleRate
        self.limits = limits
        frameLength = sampleRate / 50
    }

    /// The recording's length so far.
    public var elapsed: Duration { .milliseconds(Int64(samplesSeen) * 1000 / Int64(sampleRate)) }

    /// What is left of the maximum length.
    public var remaining: Duration { max(.zero, limits.maximum - elapsed) }

    /// Consumes samples and returns the verdict. Once ended, more audio changes nothing.
    @discardableResult
    public mutating func consume(_ samples: [Int16]) -> Verdict {
        if case .ended = verdict { return verdict }
        pending += samples
        var loudest = -100.0
        var start = 0
        while pending.count - start >= frameLength {
            let frameLevel = Self.level(of: pending[start..<start + frameLength])
            start += frameLength
            loudest = max(loudest, frameLevel)
            consumeFrame(level: frameLevel)
            if case .ended = verdict { break }
        }
        pending.removeFirst(start)
        if start > 0 { level = loudest }
        return verdict
    }

    private mutating func consumeFrame(level frameLevel: Double) {
        samplesSeen += frameLength
        calibrated += 1
        let floor = noiseFloor ?? frameLevel
        if calibrated <= Self.calibrationFrames {
            // The first 200 ms (before anyone reacts to "speak now") measure the room.
            noiseFloor = min(floor, frameLevel)
            verdict = .waitingForSpeech
            return
        }
        // The floor drops at once to a quieter frame and rises 0.1 dB a frame (5 dB/s) at
        // most: the gaps between syllables pull it back down, a new fan lifts it slowly.
        noiseFloor = min(frameLevel, floor + 0.1)
        let threshold = max(Self.speechFloor, floor + 10)
        if frameLevel > threshold {
            speechFrames += 1
            quietSamples = 0
            if speechFrames >= Self.framesToStartSpeech { heardSpeech = true }
        } else {
            speechFrames = 0
            quietSamples += frameLength
        }
        let elapsed = self.elapsed
        if heardSpeech {
            if quietSamples >= samples(in: limits.silenceAfterSpeech) {
                verdict = .ended(.silence)
            } else if elapsed >= limits.maximum {
                verdict = .ended(.maximum)
            } else {
                verdict = .speaking
            }
        } else if elapsed >= limits.waitForSpeech || elapsed >= limits.maximum {
            verdict = .ended(.noSpeech)
        } else {
            verdict = .waitingForSpeech
        }
    }

    private func samples(in duration: Duration) -> Int { Int(duration.seconds * Double(sampleRate)) }

    /// The RMS level of samples in dBFS (full-scale square wave is 0; silence -100).
    public static func level(of samples: ArraySlice<Int16>) -> Double {
        guard !samples.isEmpty else { return -100 }
        var sum = 0.0
        for s in samples {
            let v = Double(s) / 32768
            sum += v * v
        }
        let rms = (sum / Double(samples.count)).squareRoot()
        return rms > 0 ? max(-100, 20 * log10(rms)) : -100
    }

    /// A meter of `width` cells for `level` (-60 dBFS empty, -10 full).
    public static func meter(level: Double, width: Int = 20) -> String {
        let fraction = min(1, max(0, (level + 60) / 50))
        let filled = Int((fraction * Double(width)).rounded())
        return String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    }
}
