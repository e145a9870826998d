import CAudioCapture
import Foundation
import PhotonCore

/// What the recogniser made of a recording.
public struct Recognition: Sendable, Hashable {
    /// Which model produced the words.
    public enum Model: String, Sendable, Hashable {
        /// The closed grammar of commands, app names and the user's phrases.
        case grammar
        /// PocketSphinx's general English model (anything, and often wrong).
        case general
    }
    /// The words heard (lowercase), empty when nothing was recognised.
    public var text: String
    public var model: Model
    /// How sure the decoder is, 0–1: how much better the grammar's words fit the audio than
    /// the general model's (0.5 is where they count as sure).
    public var confidence: Double
    /// Whether the words may be sent without asking: the grammar matched with confidence,
    /// or both models heard the same words.
    public var isConfident: Bool
    /// What each decoding heard, and how much better the grammar's path fit the audio than
    /// the general model's, per 10 ms frame (the calibration reads these).
    public var grammarText = ""
    public var generalText = ""
    public var margin = 0.0
    /// How far the grammar's path falls short of a free loop of phones, per 10 ms frame:
    /// the loop fits any speech, so words outside the grammar leave a wide gap.
    public var phoneLoopDeficit = 0.0

    /// The share of `reference`'s words a `heard` transcript got right: 1 − word error rate
    /// (substitutions, deletions and insertions each one error), at least 0. How the tests
    /// and the benchmark score recognition.
    public static func wordAccuracy(heard: String, reference: String) -> Double {
        let a = reference.lowercased().split(separator: " ")
        let b = heard.lowercased().split(separator: " ")
        guard !a.isEmpty else { return b.isEmpty ? 1 : 0 }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            if b.isEmpty { continue }
            for j in 1...b.count {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return max(0, 1 - Double(row[b.count]) / Double(a.count))
    }
}

/// Speech to text on this machine with PocketSphinx and its US English model: no audio
/// leaves the computer. Each recording is decoded with a closed grammar built from a
/// `VoiceVocabulary` (95–100 % of words right on clear speech) and with the general
/// language model; the grammar's answer wins when it fits the audio clearly better (or
/// both agree), else the general model's is offered as a guess that is never sent without
/// a person's yes.
public final class SpeechRecognizer: @unchecked Sendable {
    /// Where the acoustic model, dictionary and language model are.
    public struct Model: Sendable, Hashable {
        public var acousticModel: String
        public var dictionary: String
        public var languageModel: String
        /// The phonetic language model for the free phone loop (what any speech fits best).
        public var phoneModel: String
        /// Debian's `pocketsphinx-en-us` (or `PHOTON_SPHINX_MODEL=DIR` with the same layout).
        public static func installed(environment: [String: String] = ProcessInfo.processInfo.environment) -> Model {
            let base = environment["PHOTON_SPHINX_MODEL"] ?? "/usr/share/pocketsphinx/model/en-us"
            return Model(
                acousticModel: base + "/en-us", dictionary: base + "/cmudict-en-us.dict", languageModel: base + "/en-us.lm.bin",
                phoneModel: base + "/en-us-phone.lm.bin")
        }
    }

    /// The audio rate the model takes.
    public static let sampleRate = 16000
    /// The grammar's answer can be sure when its score beats the general model's by this
    /// much per 10 ms frame (log base 1.0001) …
    public static let marginThreshold = 6.0
    /// … and falls short of a free phone loop's by at most this much. Both were chosen with
    /// `photon-bench --only voice-calibration --sweep` over every English voice of
    /// espeak-ng at two rates (864 utterances in and out of the grammar): about 3 % of them
    /// would be sent wrong as sure and 28 % of right answers are asked about, where the
    /// margin alone (at 9) gave 5.7 % and 26.5 % (docs/benchmarks.md has the figures).
    public static let phoneLoopThreshold = 2.0

    private let library: PocketSphinxLibrary
    private let decoder: OpaquePointer
    private let config: OpaquePointer
    private let lock = NSLock()
    /// Phrases left out of the grammar (a word the dictionary cannot pronounce).
    public let skippedPhrases: [String]

    public init(vocabulary: VoiceVocabulary, model: Model = .installed()) throws {
        for (what, path) in [
            ("acoustic model", model.acousticModel), ("dictionary", model.dictionary), ("language model", model.languageModel),
            ("phonetic model", model.phoneModel),
        ]
        where !FileManager.default.fileExists(atPath: path) {
            throw PhotonError.unsupported(
                "PocketSphinx's US English \(what) is not at \(path)", hint: "install it: sudo apt install pocketsphinx-en-us")
        }
        let library = try PocketSphinxLibrary.shared()
        self.library = library
        let arguments = [
            "-hmm", model.acousticModel, "-dict", model.dictionary, "-lm", model.languageModel, "-logfn", "/dev/null",
            "-samprate", String(Self.sampleRate),
            // The phone loop with context-independent phones: ~5× faster than triphones,
            // and only its score is used.
            "-allphone_ci", "yes",
        ]
        var cStrings = arguments.map { strdup($0) }
        defer { for string in cStrings { free(string) } }
        guard
            let config = cStrings.withUnsafeMutableBufferPointer({ buffer in
                library.parseArguments(nil, library.arguments(), Int32(buffer.count), buffer.baseAddress, 1)
            })
        else {
            throw PhotonError(.internal, "PocketSphinx refused its settings")
        }
        guard let decoder = library.initialize(config) else {
            _ = library.freeArguments(config)
            throw PhotonError(.internal, "PocketSphinx could not load its model from \(model.acousticModel)")
        }
        self.config = config
        self.decoder = decoder
        let words = try Self.dictionaryWords(model.dictionary)
        let (jsgf, skipped) = vocabulary.grammar(knows: { words.contains($0) || Self.extraPronunciations[$0] != nil })
        skippedPhrases = skipped
        for (word, phones) in Self.extraPronunciations where !words.contains(word) {
            _ = library.addWord(decoder, word, phones, 0)
        }
        guard library.setPhoneLoop(decoder, "phones", model.phoneModel) == 0 else {
            _ = library.free(decoder)
            _ = library.freeArguments(config)
            throw PhotonError(.internal, "PocketSphinx refused its phonetic model \(model.phoneModel)")
        }
        guard library.setGrammar(decoder, "photon", jsgf) == 0 else {
            _ = library.free(decoder)
            _ = library.freeArguments(config)
            throw PhotonError(.internal, "PocketSphinx refused the voice grammar")
        }
    }

    deinit {
        _ = library.free(decoder)
        _ = library.freeArguments(config)
    }

    /// Recognises 16 kHz mono samples.
    public func recognize(_ samples: [Int16]) throws -> Recognition {
        lock.lock()
        defer { lock.unlock() }
        let grammar = try decode(samples, search: "photon")
        let general = try decode(samples, search: "_default")
        let frames = Double(max(1, grammar.frames))
        // How much better the grammar's path fits the audio than the general model's, per
        // 10 ms frame. A grammar has no "none of these", so speech outside it is forced
        // onto its nearest path — mostly a string of digits — and fits it badly.
        let margin = grammar.text.isEmpty || general.text.isEmpty ? 0 : Double(Int64(grammar.score) - Int64(general.score)) / frames
        // How far the grammar's path falls short of a free loop of phones (which fits any
        // speech about as well as anything can): the second signal.
        var deficit = Double.infinity
        if !grammar.text.isEmpty {
            let phones = try decode(samples, search: "phones")
            if !phones.text.isEmpty { deficit = Double(Int64(phones.score) - Int64(grammar.score)) / frames }
        }
        var heard = Self.decide(grammar: grammar.text, general: general.text, margin: margin, phoneLoopDeficit: deficit)
        heard.grammarText = grammar.text
        heard.generalText = general.text
        heard.margin = margin
        heard.phoneLoopDeficit = deficit
        return heard
    }

    /// The "sure or ask" rule, on what the two decodings heard and two measures of fit.
    /// Sure: both decodings heard the same words; or the grammar's path fits clearly better
    /// than the general model's (`margin` ≥ `marginThreshold`), falls short of a free loop
    /// of phones by little (`phoneLoopDeficit` ≤ `phoneLoopThreshold`: speech outside the
    /// grammar, forced onto its nearest path, falls short of the loop), and is neither a
    /// lone word nor a string of digits the general model did not hear (a grammar has no
    /// "none of these": speech outside it lands on such short paths most). Anything else is
    /// a guess, asked about before it is sent.
    public static func decide(
        grammar: String, general: String, margin: Double, phoneLoopDeficit: Double, marginThreshold: Double = marginThreshold,
        phoneLoopThreshold: Double = phoneLoopThreshold
    ) -> Recognition {
        let digitWords = Set(VoiceRequest.digitWordList)
        let grammarWords = grammar.split(separator: " ").map(String.init)
        let generalHeardDigits = general.split(separator: " ").contains { digitWords.contains(String($0)) }
        let unheardDigits = !grammarWords.isEmpty && grammarWords.allSatisfy(digitWords.contains) && !generalHeardDigits
        // 0.5 where the weaker of the two measures sits at its threshold.
        let byMargin = margin / (2 * marginThreshold)
        let byLoop = 0.5 + (phoneLoopThreshold - phoneLoopDeficit) / 20
        let confidence = min(1, max(0, min(byMargin, byLoop)))
        let fits = margin >= marginThreshold && phoneLoopDeficit <= phoneLoopThreshold
        if !grammar.isEmpty, grammar == general || (fits && grammarWords.count > 1 && !unheardDigits) {
            return Recognition(text: grammar, model: .grammar, confidence: max(confidence, 0.5), isConfident: true)
        }
        // The guess offered for a yes: the grammar's words where they fit better than the
        // general model's (its slip is usually one word: "open hulu" for "open youtube"),
        // unless they are digits the general model did not hear; else the general model's.
        let unsure = min(confidence, 0.49)
        if general.isEmpty || (!grammar.isEmpty && margin >= 0 && !unheardDigits) {
            return Recognition(text: grammar, model: .grammar, confidence: unsure, isConfident: false)
        }
        return Recognition(text: general, model: .general, confidence: unsure, isConfident: false)
    }

    private func decode(_ samples: [Int16], search: String) throws -> (text: String, score: Int32, frames: Int32) {
        guard library.setSearch(decoder, search) == 0 else { throw PhotonError(.internal, "PocketSphinx has no search \(search)") }
        guard library.startUtterance(decoder) == 0 else { throw PhotonError(.internal, "PocketSphinx could not start decoding") }
        let processed = samples.withUnsafeBufferPointer { library.processRaw(decoder, $0.baseAddress, $0.count, 0, 1) }
        _ = library.endUtterance(decoder)
        guard processed >= 0 else { throw PhotonError(.internal, "PocketSphinx could not decode the recording") }
        var score: Int32 = 0
        let frames = library.frameCount(decoder)
        guard let hypothesis = library.hypothesis(decoder, &score) else { return ("", Int32.min, frames) }
        return (String(cString: hypothesis).trimmingCharacters(in: .whitespaces), score, frames)
    }

    /// App names CMUdict does not have.
    static let extraPronunciations = ["netflix": "N EH T F L IH K S", "kodi": "K OW D IY", "roku": "R OW K UW"]

    /// The words the dictionary can pronounce (`word(2)` variants folded in).
    static func dictionaryWords(_ path: String) throws -> Set<String> {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PhotonError.unsupported("cannot read PocketSphinx's dictionary \(path)", hint: "reinstall pocketsphinx-en-us")
        }
        var words = Set<String>()
        words.reserveCapacity(140_000)
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { continue }
            var word = line[line.startIndex..<space]
            if let paren = word.firstIndex(of: UInt8(ascii: "(")) { word = word[word.startIndex..<paren] }
            words.insert(String(decoding: word, as: UTF8.self))
        }
        return words
    }
}

/// libpocketsphinx's functions (and the libsphinxbase ones it brings), loaded once.
final class PocketSphinxLibrary: @unchecked Sendable {
    typealias ParseArguments =
        @convention(c) (OpaquePointer?, OpaquePointer?, Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, Int32) -> OpaquePointer?
    let library: SharedLibrary
    let arguments: @convention(c) () -> OpaquePointer?
    let parseArguments: ParseArguments
    let freeArguments: @convention(c) (OpaquePointer?) -> Int32
    let initialize: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let free: @convention(c) (OpaquePointer?) -> Int32
    let setGrammar: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    let setSearch: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    let startUtterance: @convention(c) (OpaquePointer?) -> Int32
    let processRaw: @convention(c) (OpaquePointer?, UnsafePointer<Int16>?, Int, Int32, Int32) -> Int32
    let endUtterance: @convention(c) (OpaquePointer?) -> Int32
    let hypothesis: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?) -> UnsafePointer<CChar>?
    let frameCount: @convention(c) (OpaquePointer?) -> Int32
    let addWord: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32) -> Int32
    let setPhoneLoop: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32

    private static let loaded = Locked<PocketSphinxLibrary?>(nil)

    static func shared() throws -> PocketSphinxLibrary {
        try loaded.withLock { current in
            if let current { return current }
            let new = try PocketSphinxLibrary()
            current = new
            return new
        }
    }

    private init() throws {
        library = try SharedLibrary(
            [PHOTON_LIB_POCKETSPHINX], package: "libpocketsphinx3 pocketsphinx-en-us", purpose: "speech recognition")
        arguments = try library.function("ps_args")
        parseArguments = try library.function("cmd_ln_parse_r")
        freeArguments = try library.function("cmd_ln_free_r")
        initialize = try library.function("ps_init")
        free = try library.function("ps_free")
        setGrammar = try library.function("ps_set_jsgf_string")
        setSearch = try library.function("ps_set_search")
        startUtterance = try library.function("ps_start_utt")
        processRaw = try library.function("ps_process_raw")
        endUtterance = try library.function("ps_end_utt")
        hypothesis = try library.function("ps_get_hyp")
        frameCount = try library.function("ps_get_n_frames")
        addWord = try library.function("ps_add_word")
        setPhoneLoop = try library.function("ps_set_allphone_file")
    }
}
