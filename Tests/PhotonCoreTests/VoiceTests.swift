import Foundation
import PhotonCore
import Testing

/// The pure parts of voice: when a recording ends, how a stream is cut for Android TV,
/// what heard words mean, the grammar the recogniser gets, and WAV files.
@Suite struct SpeechEndpointerTests {
    static let rate = 16000

    /// `seconds` of a 300 Hz tone at `level` dBFS (RMS), or of silence.
    static func tone(_ seconds: Double, level: Double?) -> [Int16] {
        let count = Int(seconds * Double(rate))
        guard let level else { return [Int16](repeating: 0, count: count) }
        let amplitude = pow(10, level / 20) * 32767 * 2.0.squareRoot()
        return (0..<count).map { Int16(max(-32767, min(32767, amplitude * sin(2 * .pi * 300 * Double($0) / Double(rate))))) }
    }

    @Test func speechThenSilenceEndsAfterOneAndAHalfSeconds() {
        var endpointer = SpeechEndpointer(sampleRate: Self.rate)
        #expect(endpointer.consume(Self.tone(0.5, level: nil)) == .waitingForSpeech)
        #expect(endpointer.consume(Self.tone(1.0, level: -20)) == .speaking)
        #expect(endpointer.heardSpeech)
        #expect(endpointer.consume(Self.tone(1.4, level: nil)) == .speaking)
        #expect(endpointer.consume(Self.tone(0.2, level: nil)) == .ended(.silence))
        // Ended is final.
        #expect(endpointer.consume(Self.tone(1.0, level: -10)) == .ended(.silence))
        #expect(abs(endpointer.elapsed.seconds - 3.0) < 0.05)
    }

    @Test func nobodySpeakingEndsAtFiveSecondsWithNoSpeech() {
        var endpointer = SpeechEndpointer(sampleRate: Self.rate)
        for _ in 0..<49 { #expect(endpointer.consume(Self.tone(0.1, level: nil)) == .waitingForSpeech) }
        #expect(endpointer.consume(Self.tone(0.1, level: nil)) == .ended(.noSpeech))
    }

    /// Syllables: 200 ms of voice, 100 ms between.
    static func speech(_ seconds: Double, level: Double) -> [Int16] {
        var out: [Int16] = []
        while Double(out.count) < seconds * Double(rate) { out += tone(0.2, level: level) + tone(0.1, level: nil) }
        return Array(out.prefix(Int(seconds * Double(rate))))
    }

    @Test func talkingOnStopsAtTheMaximum() {
        var endpointer = SpeechEndpointer(sampleRate: Self.rate)
        _ = endpointer.consume(Self.tone(0.3, level: nil))
        #expect(endpointer.consume(Self.speech(9.6, level: -25)) == .speaking)
        #expect(endpointer.remaining.seconds < 0.2)
        #expect(endpointer.consume(Self.speech(0.2, level: -25)) == .ended(.maximum))
    }

    /// A voice from the first frame is the room's level during calibration; the words that
    /// follow their own pauses still count.
    @Test func speechRightAwayIsHeardOnceItPauses() {
        var endpointer = SpeechEndpointer(sampleRate: Self.rate)
        #expect(endpointer.consume(Self.speech(1.0, level: -20)) == .speaking)
    }

    /// A steady hum louder than the fixed floor is the room, not speech: the bar rises
    /// with it, and a voice above it still counts.
    @Test func aSteadyHumIsNotSpeechButAVoiceAboveItIs() {
        var endpointer = SpeechEndpointer(sampleRate: Self.rate)
        #expect(endpointer.consume(Self.tone(2, level: -35)) == .waitingForSpeech)
        #expect(!endpointer.heardSpeech)
        #expect(endpointer.consume(Self.tone(0.5, level: -15)) == .speaking)
    }

    /// A click (one loud frame) is not speech.
    @Test func aClickIsNotSpeech() {
        var endpointer = SpeechEndpointer(sampleRate: Self.rate)
        _ = endpointer.consume(Self.tone(0.3, level: nil))
        _ = endpointer.consume(Self.tone(0.02, level: -10))
        _ = endpointer.consume(Self.tone(0.3, level: nil))
        #expect(!endpointer.heardSpeech)
    }

    @Test func oddBlockSizesGiveTheSameResult() {
        let audio = Self.tone(0.3, level: nil) + Self.tone(0.8, level: -20) + Self.tone(1.6, level: nil)
        var whole = SpeechEndpointer(sampleRate: Self.rate)
        var pieces = SpeechEndpointer(sampleRate: Self.rate)
        let wholeVerdict = whole.consume(audio)
        var pieceVerdict = SpeechEndpointer.Verdict.waitingForSpeech
        var offset = 0
        while offset < audio.count {
            let end = min(offset + 137, audio.count)
            pieceVerdict = pieces.consume(Array(audio[offset..<end]))
            offset = end
        }
        #expect(wholeVerdict == .ended(.silence))
        #expect(pieceVerdict == wholeVerdict)
        #expect(pieces.elapsed == whole.elapsed)
    }

    @Test func levelsAndMeter() {
        #expect(SpeechEndpointer.level(of: [Int16](repeating: 0, count: 320)[...]) == -100)
        let loud = SpeechEndpointer.level(of: Self.tone(0.02, level: -20)[...])
        #expect(abs(loud + 20) < 0.5)
        #expect(SpeechEndpointer.meter(level: -100, width: 10) == "----------")
        #expect(SpeechEndpointer.meter(level: 0, width: 10) == "##########")
        #expect(SpeechEndpointer.meter(level: -35, width: 10) == "#####-----")
    }
}

@Suite struct VoiceChunkerTests {
    /// A live stream in uneven blocks is cut exactly as the whole recording would be.
    @Test func liveBlocksGiveTheSameChunksAsTheWhole() {
        let pcm = (0..<70_001).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var chunker = VoiceChunker()
        var live: [[UInt8]] = []
        var offset = 0
        var step = 1
        while offset < pcm.count {
            let end = min(offset + step, pcm.count)
            live += chunker.append(Array(pcm[offset..<end]))
            offset = end
            step = step * 3 % 5003 + 1
        }
        live += chunker.finish()
        #expect(live == VoiceChunker.chunks(of: pcm))
        #expect(live.map(\.count) == [20480, 20480, 20480, 8561])
        #expect(live.joined().elementsEqual(pcm))
    }

    @Test func aShortTailIsPaddedAndNothingLeftIsNoChunk() {
        var chunker = VoiceChunker()
        #expect(chunker.append([UInt8](repeating: 7, count: 20480)).count == 1)
        #expect(chunker.finish().isEmpty)
        #expect(VoiceChunker.chunks(of: [1, 2, 3]) == [[1, 2, 3] + [UInt8](repeating: 0, count: 8189)])
        #expect(VoiceChunker.chunks(of: []).isEmpty)
    }
}

@Suite struct VoiceRequestTests {
    @Test func commandWordsAreRead() {
        #expect(VoiceRequest(heard: "open Netflix") == .open(app: "netflix"))
        #expect(VoiceRequest(heard: "launch prime video") == .open(app: "prime video"))
        #expect(VoiceRequest(heard: "search for the expanse") == .search("the expanse"))
        #expect(VoiceRequest(heard: "search cat videos") == .search("cat videos"))
        #expect(VoiceRequest(heard: "find the expanse") == .search("the expanse"))
        #expect(VoiceRequest(heard: "channel one two") == .channel(try! ChannelNumber(parsing: "12")))
        #expect(VoiceRequest(heard: "one two three four") == .words("1234"))
        #expect(VoiceRequest(heard: "The Expanse!") == .words("the expanse"))
        // A command word alone is just a word.
        #expect(VoiceRequest(heard: "open") == .words("open"))
        #expect(VoiceRequest(heard: "search") == .words("search"))
        #expect(VoiceRequest(heard: "channel four k") == .words("channel four k"))
        #expect(VoiceRequest(heard: "") == .words(""))
    }

    @Test func requestsBecomeCommandsForWhatTheTVCanDo() {
        let apps = [TVApp(id: "12", name: "Netflix"), TVApp(id: "837", name: "YouTube")]
        #expect(VoiceRequest.open(app: "youtube").commands(target: .search, canSearch: true, installed: apps) == [.launch("837")])
        #expect(VoiceRequest.open(app: "prime video").commands(target: .search, canSearch: true) == [.launch("prime video")])
        #expect(VoiceRequest.words("cat videos").commands(target: .search, canSearch: true) == [.search("cat videos")])
        #expect(VoiceRequest.words("cat videos").commands(target: .search, canSearch: false) == [.text("cat videos")])
        #expect(VoiceRequest.search("cat videos").commands(target: .text, canSearch: true) == [.text("cat videos")])
        #expect(VoiceRequest.channel(try! ChannelNumber(parsing: "5")).commands(target: .search, canSearch: true).count == 1)
    }
}

@Suite struct VoiceVocabularyTests {
    @Test func normalizingKeepsWordsAndSpellsDigits() {
        #expect(VoiceVocabulary.normalize("Disney+") == "disney plus")
        #expect(VoiceVocabulary.normalize("AT&T TV") == "at and t tv")
        #expect(VoiceVocabulary.normalize("Grey's Anatomy: S2") == "grey's anatomy s two")
        #expect(VoiceVocabulary.normalize("  'quoted'  ") == "quoted")
        #expect(VoiceVocabulary.normalize("Café 21") == "caf two one")
    }

    @Test func phrasesFilesSkipBlanksAndComments() {
        #expect(VoiceVocabulary.phrases(inFile: "# mine\nthe expanse\n\n  cat videos  \n") == ["the expanse", "cat videos"])
    }

    @Test func theGrammarHoldsAppsPhrasesAndCommandsAndLeavesOutUnknownWords() {
        let vocabulary = VoiceVocabulary.standard(phrases: ["The Expanse", "zxqv show"])
        let known: Set<String> = ["netflix", "youtube", "the", "expanse", "prime", "video"]
        let (jsgf, skipped) = vocabulary.grammar(knows: { known.contains($0) })
        #expect(jsgf.hasPrefix("#JSGF V1.0;"))
        #expect(jsgf.contains("<app> = ") && jsgf.contains("netflix") && jsgf.contains("prime video"))
        #expect(jsgf.contains("| the expanse"))
        #expect(!jsgf.contains("zxqv"))
        #expect(skipped.contains("zxqv show"))
        #expect(jsgf.contains("<open> = (open | launch | start) <app>;"))
        #expect(jsgf.contains("<channel> = channel <digit>+;"))
    }

    @Test func anEmptyVocabularyStillMakesAValidGrammar() {
        let (jsgf, _) = VoiceVocabulary().grammar(knows: { _ in true })
        #expect(jsgf.contains("<app> = <VOID>;"))
    }
}

@Suite struct WAVFileTests {
    @Test func encodeThenParseRoundTrips() throws {
        let samples: [Int16] = [0, 1000, -1000, 32767, -32768, 42]
        let wav = try WAVFile.parse(WAVFile.encode(samples: samples, sampleRate: 16000))
        #expect(wav.sampleRate == 16000 && wav.channels == 1)
        // Full scale comes back one step short: samples are scaled by 32767 on the way out.
        #expect(wav.samples16Mono(at: 16000) == [0, 1000, -1000, 32766, -32767, 42])
    }

    @Test func resamplingHalvesTheCount() throws {
        let wav = try WAVFile.parse(WAVFile.encode(samples: [Int16](repeating: 100, count: 1600), sampleRate: 16000))
        #expect(wav.samples16Mono(at: 8000).count == 800)
    }

    @Test func malformedFilesAreUsageErrors() {
        for bytes: [UInt8] in [
            [], Array("RIFF".utf8), Array("RIFF\0\0\0\0WAVEdata\u{4}\0\0\0abcd".utf8), Array("RIFF\0\0\0\0WAVEfmt \u{FF}\u{FF}\u{FF}\u{7F}".utf8),
        ] {
            #expect(throws: PhotonError.self) { try WAVFile.parse(bytes) }
        }
    }
}

@Suite struct ResamplerTests {
    /// A chirp-like test signal with energy across the band.
    static func signal(_ count: Int) -> [Float] {
        (0..<count).map { i -> Float in
            let t = Double(i)
            let low: Double = 0.5 * sin(t * 0.05)
            let sweep: Double = 0.3 * sin(t * t * 0.0001)
            let high: Double = 0.1 * sin(t * 2.9)
            return Float(low + sweep + high)
        }
    }

    @Test(arguments: [[16000, 8000], [48000, 16000], [44100, 16000], [8000, 16000], [22050, 16000], [16000, 16000]])
    func streamingGivesExactlyTheWholeConversion(rates: [Int]) {
        let rates = (rates[0], rates[1])
        let input = Self.signal(20000)
        let whole = Resampler.resample(input, from: rates.0, to: rates.1)
        // Blocks of odd sizes, as a page's buffers arrive.
        var streaming = Resampler(from: rates.0, to: rates.1)
        var out: [Float] = []
        var index = 0
        var size = 1
        while index < input.count {
            let end = min(input.count, index + size)
            out += streaming.push(Array(input[index..<end]))
            index = end
            size = size * 3 % 4093 + 7
        }
        out += streaming.finish()
        #expect(out.count == whole.count)
        #expect(out == whole)
    }

    @Test func outputArrivesWhileTheInputStreams() {
        var streaming = Resampler(from: 16000, to: 8000)
        let first = streaming.push(Self.signal(4096))
        // All but the filter's reach at the end is out before the next block comes.
        #expect(first.count > 1900 && first.count <= 2048, "\(first.count)")
        #expect(streaming.finish().count + first.count == 2048)
    }

    @Test func floatsAndSamplesRoundTrip() {
        let samples: [Int16] = [0, 1, -1, 12345, -12345, 32767, -32768]
        let back = PCM16.samples(PCM16.floats(samples))
        for (a, b) in zip(samples, back) { #expect(abs(Int(a) - Int(b)) <= 1) }
        #expect(PCM16.samples([2.0, -2.0]) == [32767, -32768])
    }
}

@Suite struct VoiceStreamBudgetTests {
    @Test func realTimeAudioIsAcceptedUpToTheMaximum() {
        var budget = VoiceStreamBudget(sampleRate: 16000, maximum: .seconds(10), slack: .seconds(2))
        // 8 KiB (0.256 s) every 0.256 s, starting 0.3 s after the stream opened.
        var at = Duration.milliseconds(300)
        var accepted = 0
        while budget.accept(8192, at: at) == .accepted {
            accepted += 1
            at += .milliseconds(256)
        }
        #expect(accepted == 39)  // 39 × 0.256 s = 9.98 s; the 40th would pass 10 s
        #expect(budget.accept(8192, at: at) == .tooLong)
        #expect(budget.duration >= .seconds(9.9))
    }

    @Test func aBufferedStartIsAllowedButFasterThanSpeechIsNot() {
        var budget = VoiceStreamBudget(sampleRate: 16000, maximum: .seconds(10), slack: .seconds(2))
        // 1.9 s buffered while the socket opened: within the slack.
        #expect(budget.accept(60800, at: .seconds(1)) == .accepted)
        // Another 0.5 s of audio 0.1 s later: 2.4 s of audio 0.1 s after the first byte.
        #expect(budget.accept(16000, at: .milliseconds(1100)) == .tooFast)
        // Refused audio is not counted.
        #expect(budget.bytes == 60800)
        #expect(budget.accept(16000, at: .milliseconds(1500)) == .accepted)
    }
}
