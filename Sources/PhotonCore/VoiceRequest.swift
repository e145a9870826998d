import Foundation

/// What a spoken request asks for, read from the words a recogniser heard. Every door
/// (the CLI's microphone, the daemon's API, MQTT, the web remote) turns heard text into
/// commands here, so "open netflix" means the same thing everywhere.
public enum VoiceRequest: Sendable, Hashable {
    /// "open netflix", "launch prime video": start the named app.
    case open(app: String)
    /// "search the expanse", "search for cat videos", "find …": the TV's search.
    case search(String)
    /// "channel one two": tune channel 12.
    case channel(ChannelNumber)
    /// Anything else: searched for, or typed into the focused field.
    case words(String)

    static let openWords = ["open", "launch", "start"]
    static let searchWords = [["search", "for"], ["search"], ["find"], ["look", "for"]]
    static let digitWords: [String: Character] = [
        "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
        "eight": "8", "nine": "9",
    ]

    /// The words that are digits ("zero" … "nine").
    public static var digitWordList: [String] { Array(digitWords.keys) }

    /// Reads heard text (any case and punctuation; see `VoiceVocabulary.normalize`).
    public init(heard text: String) {
        let words = VoiceVocabulary.normalize(text).split(separator: " ").map(String.init)
        if let first = words.first, Self.openWords.contains(first), words.count > 1 {
            self = .open(app: words.dropFirst().joined(separator: " "))
            return
        }
        for lead in Self.searchWords where words.count > lead.count && Array(words.prefix(lead.count)) == lead {
            self = .search(words.dropFirst(lead.count).joined(separator: " "))
            return
        }
        if words.first == "channel", words.count > 1 {
            let digits = words.dropFirst().compactMap { Self.digitWords[$0] }
            if digits.count == words.count - 1, let number = try? ChannelNumber(parsing: String(digits)) {
                self = .channel(number)
                return
            }
        }
        // Digits alone are typed as digits ("one two three four" → 1234, a PIN or a code).
        let digits = words.compactMap { Self.digitWords[$0] }
        if !words.isEmpty, digits.count == words.count, words.count > 1 {
            self = .words(String(digits))
            return
        }
        self = .words(words.joined(separator: " "))
    }

    /// Where free words go: the TV's search, or typed into the field that has focus.
    public enum Target: String, Sendable, Hashable, CaseIterable {
        case search, text
    }

    /// The commands that carry out the request on a TV that can (`canSearch`) or cannot
    /// search. An app named as one of `installed` launches by that app's id; another name
    /// is left for the catalog (`AppCatalog.launchTarget`) to resolve.
    public func commands(target: Target, canSearch: Bool, installed: [TVApp] = []) -> [RemoteCommand] {
        switch self {
        case .open(let app):
            let wanted = VoiceVocabulary.normalize(app)
            if let match = installed.first(where: { VoiceVocabulary.normalize($0.name) == wanted }) { return [.launch(match.id)] }
            return [.launch(app)]
        case .search(let words): return target == .search && canSearch ? [.search(words)] : [.text(words)]
        case .channel(let number): return [.channel(number)]
        case .words(let words): return target == .search && canSearch ? [.search(words)] : [.text(words)]
        }
    }

    /// The request in a few words, for "heard: …" lines.
    public var summary: String {
        switch self {
        case .open(let app): return "open \(app)"
        case .search(let words): return "search \(words)"
        case .channel(let number): return "channel \(number)"
        case .words(let words): return words
        }
    }
}

/// The words a recogniser listens for: command words, app names (Photon's catalog and the
/// TV's own) and the user's phrases. A closed grammar of these gets 95–100 % of words
/// right where a general language model gets a third to a half of a free-text title, so
/// everything a user says often belongs here (`--phrases`, `voice-phrases.txt`).
public struct VoiceVocabulary: Sendable, Hashable {
    /// App names, normalized.
    public private(set) var appNames: [String]
    /// The user's phrases, normalized.
    public private(set) var phrases: [String]

    public init(appNames: [String] = [], phrases: [String] = []) {
        self.appNames = Self.unique(appNames.map(Self.normalize))
        self.phrases = Self.unique(phrases.map(Self.normalize))
    }

    /// The catalog's app names and aliases, the TV's own app names and `phrases`.
    public static func standard(installed: [TVApp] = [], phrases: [String] = []) -> VoiceVocabulary {
        let catalog = AppCatalog.entries.flatMap { [$0.name] + $0.aliases }
        return VoiceVocabulary(appNames: catalog + installed.map(\.name), phrases: phrases)
    }

    /// Lines of a phrases file: one phrase a line; blank lines and `#` comments skipped.
    public static func phrases(inFile text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty && !$0.hasPrefix("#")
        }
    }

    /// Lowercase words of letters and apostrophes: `&` → and, `+` → plus, each digit as
    /// its word, anything else a space.
    public static func normalize(_ text: String) -> String {
        let digitNames = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
        var out = ""
        for character in text.lowercased() {
            if let digit = character.wholeNumberValue, character.isASCII {
                out += " \(digitNames[digit]) "
            } else if character == "&" {
                out += " and "
            } else if character == "+" {
                out += " plus "
            } else if character.isASCII && (character.isLetter || character == "'") {
                out.append(character)
            } else {
                out += " "
            }
        }
        return out.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }.filter { !$0.isEmpty }
            .joined(separator: " ")
    }

    /// The JSGF grammar of requests, keeping only phrases whose every word `knows` (the
    /// recogniser's pronouncing dictionary); the phrases left out are returned to tell
    /// the user.
    public func grammar(knows: (String) -> Bool) -> (jsgf: String, skipped: [String]) {
        var skipped: [String] = []
        func usable(_ phrases: [String]) -> [String] {
            phrases.filter { phrase in
                let ok = phrase.split(separator: " ").allSatisfy { knows(String($0)) }
                if !ok { skipped.append(phrase) }
                return ok
            }
        }
        let apps = usable(appNames)
        let own = usable(phrases.filter { !appNames.contains($0) })
        let digits = VoiceRequest.digitWords.keys.sorted()
        var lines = [
            "#JSGF V1.0;", "grammar photon;",
            "public <request> = <open> | <search> | <channel> | <digits> | <phrase>;",
            "<open> = (\(VoiceRequest.openWords.joined(separator: " | "))) <app>;",
            "<search> = (\(VoiceRequest.searchWords.map { $0.joined(separator: " ") }.joined(separator: " | "))) <phrase>;",
            "<channel> = channel <digit>+;",
            "<digits> = <digit> <digit>+;",
            "<digit> = \(digits.joined(separator: " | "));",
        ]
        lines.append("<app> = \(apps.isEmpty ? "<VOID>" : apps.joined(separator: " | "));")
        let phraseAlternatives = ["<app>"] + own
        lines.append("<phrase> = \(phraseAlternatives.joined(separator: " | "));")
        return (lines.joined(separator: "\n") + "\n", skipped)
    }

    private static func unique(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
