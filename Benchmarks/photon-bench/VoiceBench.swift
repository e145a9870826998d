import Foundation
import PhotonCore
import PhotonVoice

/// Voice rows: PocketSphinx's word accuracy on espeak-ng's speech with Photon's grammar
/// (closed vocabulary) and on free text, how fast it recognises against the audio's
/// length, and when Android TV's first piece of a live recording leaves (the audio a
/// chunk must hold, plus the speech detector's delay, which the recording decides).
enum VoiceBench {
    static let phrases = ["the expanse", "cat videos", "the great british bake off"]
    static let closed = [
        "open netflix", "open youtube", "launch prime video", "search for the expanse", "search cat videos", "channel one two",
        "one two three four", "the expanse", "cat videos", "open disney plus", "the great british bake off", "open spotify",
        "open hulu", "start plex", "channel seven", "search for the great british bake off",
    ]
    static let free = [
        "breaking bad", "funny dog videos", "how to cook rice", "stranger things", "the weather tomorrow", "the office",
        "game of thrones", "cooking shows",
    ]

    static func run() async throws -> (rows: [String], notes: [String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("photon-voice-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let recognizer = try SpeechRecognizer(vocabulary: .standard(phrases: phrases))
        var audioSeconds = 0.0
        var decodeSeconds = 0.0
        func measure(_ sentences: [String]) throws -> (accuracy: Double, sure: Int, sureWrong: Int) {
            var total = 0.0
            var sure = 0
            var sureWrong = 0
            for sentence in sentences {
                let samples = try speak(sentence, in: directory)
                audioSeconds += Double(samples.count) / Double(SpeechRecognizer.sampleRate)
                let start = ContinuousClock.now
                let heard = try recognizer.recognize(samples)
                decodeSeconds += (ContinuousClock.now - start).seconds
                total += Recognition.wordAccuracy(heard: heard.text, reference: sentence)
                if heard.isConfident {
                    sure += 1
                    if heard.text != sentence { sureWrong += 1 }
                }
            }
            return (total / Double(sentences.count), sure, sureWrong)
        }
        let closedResult = try measure(closed)
        let freeResult = try measure(free)
        // Live Android TV voice: the first 20 KiB piece holds 1.28 s of 8 kHz audio; 0.5 s
        // of it is the audio before speech was detected (sent at once), the detector needs
        // 60 ms of speech.
        let firstChunkAfterSpeech = Double(VoiceChunker.target) / 16000 - 0.5 + 0.06
        let rows = [
            "| Voice: words right, closed vocabulary (\(closed.count) phrases: commands, app names, user phrases; espeak-ng) | \(percent(closedResult.accuracy)) | — | — |",
            "| Voice: words right, free text (\(free.count) titles outside the grammar, general model) | \(percent(freeResult.accuracy)) | — | — |",
            "| Voice: answers sent as sure (closed / free; wrong among them) | \(closedResult.sure)/\(closed.count) / \(freeResult.sure)/\(free.count) (\(closedResult.sureWrong + freeResult.sureWrong) wrong) | — | — |",
            "| Voice: recognition time per second of speech (grammar, general model and phone loop) | \(String(format: "%.2f", decodeSeconds / audioSeconds)) s | — | — |",
            "| Voice: Android TV live, first audio piece leaves after speech starts | \(String(format: "%.2f", firstChunkAfterSpeech)) s | — | — |",
        ]
        let notes = [
            "Voice rows: espeak-ng (US English, Klatt voice, 140 words a minute) speaks each phrase to a WAV file, resampled to 16 kHz; PocketSphinx 5prealpha with Debian's en-us model decodes it with Photon's grammar (the catalog's app names, command words, digits and the three user phrases) and with the general language model. Words right is 1 − word error rate, averaged over phrases. A wrong answer is only ever a guess (asked about, never sent in a script) unless counted under \"wrong\". There is no Python peer for on-device recognition. The Android TV row is the chunking arithmetic (20 KiB at 16 KB/s, less the half second of audio before speech was detected); `VoiceEndToEndTests` measures the live path through a PulseAudio null sink (the first piece reached the emulated TV 7.4 s before a 9 s recording ended)."
        ]
        return (rows, notes)
    }

    static func speak(_ text: String, in directory: URL, voice: String = "en-us+klatt", rate: Int = 140) throws -> [Int16] {
        let file = directory.appendingPathComponent("phrase.wav")
        let espeak = Process()
        espeak.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        espeak.arguments = ["-v", voice, "-s", String(rate), "-w", file.path, text]
        try espeak.run()
        while espeak.isRunning { usleep(2000) }
        let wav = try WAVFile.parse([UInt8](try Data(contentsOf: file)))
        return wav.samples16Mono(at: SpeechRecognizer.sampleRate)
    }

    static func percent(_ value: Double) -> String { String(format: "%.1f %%", value * 100) }
}
