import Foundation
import PhotonCore
import PhotonTestSupport
import PhotonVoice
import Testing

/// Voice against real peers: espeak-ng speaks, PocketSphinx recognises, a user-space
/// PulseAudio null sink is the microphone, and the emulated TVs receive the result.
@Suite(.serialized) struct VoiceEndToEndTests {
    let e2e = AndroidTVEndToEndTests()

    /// The closed vocabulary: command words, catalog app names and the user's phrases.
    static let phrases = ["the expanse", "cat videos", "the great british bake off"]
    static let closed = [
        "open netflix", "open youtube", "launch prime video", "search for the expanse", "search cat videos", "channel one two",
        "one two three four", "the expanse", "cat videos", "open disney plus", "the great british bake off", "open spotify",
    ]
    /// Free text the grammar does not hold: only the general model can get it.
    static let free = ["breaking bad", "funny dog videos", "how to cook rice", "stranger things", "the weather tomorrow"]

    func photon(_ home: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> TestProcess {
        try TestProcess(try AndroidTVEndToEndTests.binary("photon"), arguments + ["--home", home.path], environment: environment)
    }

    func eventually(within limit: Duration = .seconds(10), _ condition: () -> Bool) async throws {
        let end = ContinuousClock.now + limit
        while !condition(), ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(20)) }
    }

    func phrasesFile(_ directory: URL) throws -> URL {
        let file = directory.appendingPathComponent("phrases.txt")
        try Self.phrases.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    func pairedRoku(_ name: String) async throws -> (EmulatorProcess, URL) {
        let roku = try await EmulatorProcess.start(["roku", "--port", "0"])
        let home = try await TestEnvironment.home(name)
        let pair = try photon(home, ["pair", "127.0.0.1:\(roku.port)", "--brand", "roku", "--name", "den"])
        pair.closeStandardInput()
        let status = await pair.waitForExit()
        guard status == 0 else { throw TestFailure("pairing the emulated Roku failed (\(status)): \(pair.standardError)") }
        return (roku, home)
    }

    /// Word accuracy of the recogniser on espeak-ng's speech, closed vocabulary (a gate:
    /// at least 90 %) and free text (a figure only), printed for docs/benchmarks.md.
    @Test func recognitionAccuracyOnTheClosedVocabularyAndOnFreeText() async throws {
        let directory = try await TestEnvironment.home("photon-voice-accuracy")
        let recognizer = try SpeechRecognizer(vocabulary: .standard(phrases: Self.phrases))
        var sureButWrong: [String] = []
        func accuracy(_ sentences: [String]) async throws -> (Double, [String]) {
            var total = 0.0
            var lines: [String] = []
            for sentence in sentences {
                let wav = try WAVFile.parse([UInt8](try Data(contentsOf: try await Speaker.say(sentence, in: directory))))
                let heard = try recognizer.recognize(wav.samples16Mono(at: SpeechRecognizer.sampleRate))
                let score = Recognition.wordAccuracy(heard: heard.text, reference: sentence)
                if heard.isConfident, heard.text != sentence { sureButWrong.append("\(sentence) → \(heard.text)") }
                total += score
                lines.append(
                    "\(sentence) → \(heard.text) [\(heard.model.rawValue) \(String(format: "%.2f", heard.confidence))\(heard.isConfident ? "" : ", unsure")]"
                )
            }
            return (total / Double(sentences.count), lines)
        }
        let (closed, closedLines) = try await accuracy(Self.closed)
        let (free, freeLines) = try await accuracy(Self.free)
        print(
            "voice accuracy: closed vocabulary \(String(format: "%.1f", closed * 100)) % of words; free text \(String(format: "%.1f", free * 100)) %")
        print((closedLines + freeLines).joined(separator: "\n"))
        #expect(closed >= 0.9, "closed-vocabulary word accuracy \(closed): \(closedLines)")
        // A wrong answer may be heard, but never as a sure one (which would be sent).
        #expect(sureButWrong.count <= 1, "sure but wrong: \(sureButWrong)")
        #expect(!sureButWrong.contains { s in Self.free.contains { s.hasPrefix($0 + " →") } }, "free text sent as sure: \(sureButWrong)")
    }

    /// Speech outside the grammar that the margin-only rule sent as sure, in the voices the
    /// calibration (`photon-bench --only voice-calibration`) caught it in: the newcomer's
    /// "purple elephant dancing" (a search for "amazon"), and free words forced onto a lone
    /// app name ("kodi"). None may be sure now; the right commands in the same voices still are.
    @Test func speechOutsideTheGrammarIsAskedAboutInOtherVoices() async throws {
        let directory = try await TestEnvironment.home("photon-voice-voices")
        let recognizer = try SpeechRecognizer(vocabulary: .standard(phrases: Self.phrases))
        func heard(_ sentence: String, _ voice: String, _ rate: Int) async throws -> Recognition {
            let file = try await Speaker.say(sentence, in: directory, voice: voice, wordsPerMinute: rate)
            return try recognizer.recognize(try WAVFile.parse([UInt8](try Data(contentsOf: file))).samples16Mono(at: SpeechRecognizer.sampleRate))
        }
        for (sentence, voice, rate) in [
            ("purple elephant dancing", "en-us+klatt", 130), ("purple elephant dancing", "en-us+klatt", 175),
            ("funny dog videos", "en-us-nyc", 175), ("show me something funny", "en-us-nyc", 175),
        ] {
            let recognition = try await heard(sentence, voice, rate)
            #expect(!recognition.isConfident, "\(sentence) (\(voice) \(rate)) sent as sure: \(recognition)")
        }
        for (sentence, voice, rate) in [("open netflix", "en-us-nyc", 175), ("search for the expanse", "en-us+klatt", 130)] {
            let recognition = try await heard(sentence, voice, rate)
            #expect(recognition.isConfident && recognition.text == sentence, "\(sentence) (\(voice) \(rate)): \(recognition)")
        }
    }

    /// Free text is never sent as if sure: an unsure guess without a terminal is refused.
    @Test func aWAVFileIsRecognisedAndSearchedOnRokuAndAGuessIsNotSent() async throws {
        let (roku, home) = try await pairedRoku("photon-voice-roku")
        defer { roku.process.terminate() }
        let phrases = try phrasesFile(home)
        let wav = try await Speaker.say("search for the expanse", in: home)

        let dry = try photon(home, ["voice", "den", wav.path, "--phrases", phrases.path, "--dry-run", "--json"])
        dry.closeStandardInput()
        #expect(await dry.waitForExit() == 0, "\(dry.standardError)")
        #expect(dry.standardOutput.contains(#""heard":"search for the expanse""#), "\(dry.standardOutput)")
        #expect(roku.events("search").isEmpty)

        let sent = try photon(home, ["voice", "den", wav.path, "--phrases", phrases.path])
        sent.closeStandardInput()
        #expect(await sent.waitForExit() == 0, "\(sent.standardError)")
        #expect(sent.standardError.contains("heard: search for the expanse"), "\(sent.standardError)")
        try await eventually { !roku.events("search").isEmpty }
        #expect(roku.events("search").last?["keyword"] as? String == "the expanse")

        let app = try photon(home, ["voice", "den", try await Speaker.say("open netflix", in: home).path])
        app.closeStandardInput()
        #expect(await app.waitForExit() == 0, "\(app.standardError)")
        try await eventually { !roku.events("launch").isEmpty }
        #expect(roku.events("launch").last?["app"] as? String == "12")

        let guess = try photon(home, ["voice", "den", try await Speaker.say("breaking bad", in: home).path])
        guess.closeStandardInput()
        let status = await guess.waitForExit()
        if status != 0 {
            #expect(status == 1, "\(guess.standardError)")
            #expect(guess.standardError.contains("nothing was sent"), "\(guess.standardError)")
        }
        #expect(roku.events("search").count == 1, "an unsure guess was searched: \(guess.standardError)")
    }

    @Test func theMicrophoneIsRecordedUntilSilenceAndTheWordsReachTheTV() async throws {
        let pulse = try await PulseAudioServer.start()
        defer { pulse.stop() }
        let (roku, home) = try await pairedRoku("photon-voice-mic")
        defer { roku.process.terminate() }
        let wav = try await Speaker.say("search cat videos", in: home)
        let voice = try photon(home, ["voice", "den", "--phrases", try phrasesFile(home).path], environment: pulse.clientEnvironment)
        try await voice.waitFor("microphone on")
        try await pulse.play(wav)
        #expect(await voice.waitForExit() == 0, "\(voice.standardError)")
        #expect(voice.standardError.contains("microphone off"))
        try await eventually { !roku.events("search").isEmpty }
        #expect(roku.events("search").last?["keyword"] as? String == "cat videos", "\(voice.standardError)")
    }

    /// Android TV gets the audio while it is spoken: its first chunk arrives well before
    /// the recording ends (emulator timestamps).
    @Test func androidTVHearsTheWordsWhileTheyAreSpoken() async throws {
        let pulse = try await PulseAudioServer.start()
        defer { pulse.stop() }
        let emulator = try await EmulatorProcess.androidTV()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-voice-atv")
        let pair = try await e2e.pair(emulator, home: home)
        #expect(await pair.waitForExit() == 0, "\(pair.standardError)")
        let wav = try await Speaker.say(
            "search for the expanse season one and then show me some cat videos with the great british bake off after that", in: home,
            wordsPerMinute: 140)
        let voice = try photon(home, ["voice", "living-room"], environment: pulse.clientEnvironment)
        try await voice.waitFor("microphone on")
        try await pulse.play(wav)
        #expect(await voice.waitForExit() == 0, "\(voice.standardError)")
        try await eventually { !emulator.events("voice").isEmpty }
        let chunks = emulator.events("voice_chunk")
        let first = try #require(chunks.first?["t"] as? Double)
        let end = try #require(emulator.events("voice").last?["t"] as? Double)
        #expect(chunks.count >= 3, "\(chunks)")
        #expect(end - first > 2.0, "the first chunk came \(end - first) s before the end: not streamed while speaking")
        print("android tv live voice: first chunk \(String(format: "%.2f", end - first)) s before the recording ended, \(chunks.count) chunks")
    }

    /// (A sound server refusing access is not produced here: a server of the same user
    /// lets its clients in by their credentials.)
    @Test func noMicrophoneAndASilentOneSendNothing() async throws {
        let (roku, home) = try await pairedRoku("photon-voice-errors")
        defer { roku.process.terminate() }
        let emptyALSA = home.appendingPathComponent("empty-alsa.conf")
        try "".write(to: emptyALSA, atomically: true, encoding: .utf8)

        let none = try photon(
            home, ["voice", "den"],
            environment: ["PULSE_SERVER": "unix:" + home.appendingPathComponent("no-such-socket").path, "ALSA_CONFIG_PATH": emptyALSA.path])
        none.closeStandardInput()
        #expect(await none.waitForExit() == 6, "\(none.standardError)")
        #expect(none.standardError.contains("no microphone"), "\(none.standardError)")
        // Photon's own words only: ALSA's complaints are kept off stderr (newcomer #16).
        #expect(!none.standardError.contains("ALSA lib"), "\(none.standardError)")

        let pulse = try await PulseAudioServer.start()
        defer { pulse.stop() }
        let silent = try photon(home, ["voice", "den"], environment: pulse.clientEnvironment)
        silent.closeStandardInput()
        #expect(await silent.waitForExit() == 3, "\(silent.standardError)")
        #expect(silent.standardError.contains("no speech was heard"), "\(silent.standardError)")
        #expect(roku.events("search").isEmpty && roku.events("launch").isEmpty && roku.events("key").isEmpty)
    }
}
