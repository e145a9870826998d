import Foundation
import PhotonCore
import PhotonVoice

/// The "sure or ask" rule measured over every English voice of espeak-ng (each with its
/// own formant set and with the Klatt one) at two speaking rates, in and out of the grammar:
/// how often a wrong answer would be sent as sure (the error that matters: a script sends
/// it), and how often a right one is asked about. Run with `photon-bench --only
/// voice-calibration`; `--sweep` prints both rates for the pairs of thresholds (margin over
/// the general model, deficit to the phone loop) that no other pair beats on both, which is
/// how `SpeechRecognizer.marginThreshold` and `phoneLoopThreshold` were chosen.
enum VoiceCalibration {
    /// espeak-ng's English voices (its MBROLA voices need MBROLA and are left out).
    static let voices = ["en-us", "en-gb", "en-gb-scotland", "en-gb-x-gbclan", "en-gb-x-rp", "en-gb-x-gbcwmd", "en-029", "en-us-nyc"]
    static let variants = ["", "+klatt"]
    static let rates = [130, 175]
    /// Outside the grammar: titles, and the nonsense that was once sent as a search.
    static let free = VoiceBench.free + ["purple elephant dancing", "the weather in paris", "show me something funny"]

    struct Sample {
        var voice: String
        var reference: String
        var inGrammar: Bool
        var grammar: String
        var general: String
        var margin: Double
        var phoneLoopDeficit: Double
    }

    struct Outcome {
        var closedRight = 0
        var closedSureWrong = 0
        var closedAsked = 0
        var closedAskedRight = 0
        var freeSure = 0
        var closed = 0
        var free = 0
        /// Wrong answers sent as sure, over every utterance.
        var falseSure: Double { Double(closedSureWrong + freeSure) / Double(max(1, closed + free)) }
        /// Grammar phrases heard right but asked about, over grammar phrases heard right.
        var askedWhenRight: Double { Double(closedAskedRight) / Double(max(1, closedRight + closedAskedRight)) }
    }

    static func collect() throws -> [Sample] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("photon-voice-calibration-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let recognizer = try SpeechRecognizer(vocabulary: .standard(phrases: VoiceBench.phrases))
        var samples: [Sample] = []
        for voice in voices {
            for variant in variants {
                for rate in rates {
                    for (sentence, inGrammar) in VoiceBench.closed.map({ ($0, true) }) + free.map({ ($0, false) }) {
                        let audio = try VoiceBench.speak(sentence, in: directory, voice: voice + variant, rate: rate)
                        let heard = try recognizer.recognize(audio)
                        samples.append(
                            Sample(
                                voice: "\(voice)\(variant) \(rate)", reference: sentence, inGrammar: inGrammar, grammar: heard.grammarText,
                                general: heard.generalText, margin: heard.margin, phoneLoopDeficit: heard.phoneLoopDeficit))
                    }
                }
            }
        }
        return samples
    }

    static func outcome(_ samples: [Sample], margin: Double, phoneLoop: Double) -> Outcome {
        var o = Outcome()
        for s in samples {
            let heard = SpeechRecognizer.decide(
                grammar: s.grammar, general: s.general, margin: s.margin, phoneLoopDeficit: s.phoneLoopDeficit, marginThreshold: margin,
                phoneLoopThreshold: phoneLoop)
            if s.inGrammar {
                o.closed += 1
                let right = sameRequest(heard.text, s.reference) || sameRequest(s.grammar, s.reference)
                if heard.isConfident {
                    if sameRequest(heard.text, s.reference) { o.closedRight += 1 } else { o.closedSureWrong += 1 }
                } else {
                    o.closedAsked += 1
                    if right { o.closedAskedRight += 1 }
                }
            } else {
                o.free += 1
                if heard.isConfident && heard.text != s.reference { o.freeSure += 1 }
            }
        }
        return o
    }

    /// Whether two transcripts ask for the same thing ("open disney" and "open disney plus"
    /// launch the same app): what the user would see done, which is what counts.
    static func sameRequest(_ a: String, _ b: String) -> Bool {
        func key(_ text: String) -> String {
            switch VoiceRequest(heard: text) {
            case .open(let app): return "open " + (AppCatalog.entry(named: app)?.name ?? app)
            case .search(let words): return "search " + words
            case .channel(let number): return "channel \(number)"
            case .words(let words): return "words " + words
            }
        }
        return key(a) == key(b)
    }

    static func run(sweep: Bool) throws -> [String] {
        let samples = try collect()
        var lines: [String] = []
        if sweep {
            // Every pair of thresholds; printed are those no other pair beats on both rates.
            var results: [(margin: Double, loop: Double, outcome: Outcome)] = []
            for margin in stride(from: 0.0, through: 20.0, by: 1.0) {
                for loop in stride(from: -4.0, through: 6.0, by: 1.0) {
                    results.append((margin, loop, outcome(samples, margin: margin, phoneLoop: loop)))
                }
                results.append((margin, .infinity, outcome(samples, margin: margin, phoneLoop: .infinity)))
            }
            results.sort { ($0.outcome.falseSure, $0.outcome.askedWhenRight) < ($1.outcome.falseSure, $1.outcome.askedWhenRight) }
            lines.append("margin  phone loop  false-sure  asked-when-right  (closed sure-wrong / free sure)")
            var bestAsked = Double.infinity
            for result in results where result.outcome.askedWhenRight < bestAsked {
                bestAsked = result.outcome.askedWhenRight
                let o = result.outcome
                lines.append(
                    String(
                        format: "%5.1f   %6.1f      %5.1f %%     %5.1f %%           %d / %d", result.margin, result.loop, o.falseSure * 100,
                        o.askedWhenRight * 100, o.closedSureWrong, o.freeSure))
            }
            for s in samples {
                lines.append(
                    "\(s.voice) | \(s.reference) | \(s.inGrammar ? "in" : "out") | g=\(s.grammar) | l=\(s.general) | \(String(format: "%.1f", s.margin)) | \(String(format: "%.1f", s.phoneLoopDeficit))"
                )
            }
        }
        let o = outcome(samples, margin: SpeechRecognizer.marginThreshold, phoneLoop: SpeechRecognizer.phoneLoopThreshold)
        let voicesText =
            "\(voices.count) espeak-ng English voices × \(variants.count) formant sets × rates \(rates.map(String.init).joined(separator: "/"))"
        lines += [
            "| Voice: wrong answers sent as sure (\(voicesText); \(o.closed) grammar + \(o.free) free utterances) | \(VoiceBench.percent(o.falseSure)) (\(o.closedSureWrong) + \(o.freeSure)) | — | — |",
            "| Voice: right answers asked about instead of sent (same utterances) | \(VoiceBench.percent(o.askedWhenRight)) | — | — |",
        ]
        return lines
    }
}
