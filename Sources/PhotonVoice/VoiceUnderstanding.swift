import Foundation
import PhotonCore

/// What a recording was understood to ask for: the words heard, how sure the recogniser
/// is, and the commands they would send. Every door that takes speech (`photon voice` and
/// the web remote's microphone) gets it from `understand`, so the same words mean the same
/// thing everywhere and the "sure or ask" rule is one rule.
public struct VoiceUnderstanding: Sendable {
    public var recognition: Recognition
    /// The commands the words would send to this TV.
    public var commands: [RemoteCommand]
    /// Where free words go.
    public var target: VoiceRequest.Target
    /// The TV's apps, to name a launch by its app's name as well as its id.
    public var installed: [TVApp] = []

    /// The words heard.
    public var heard: String { recognition.text }
    /// Whether the words may be sent without asking (else a person says yes first).
    public var isConfident: Bool { recognition.isConfident }

    /// Recognises `samples` (16-bit mono at `SpeechRecognizer.sampleRate`) and reads them as a
    /// request for a TV that can (`canSearch`) or cannot search. Throws `notFound` when no
    /// word was recognised.
    public static func understand(
        _ samples: [Int16], with recognizer: SpeechRecognizer, target: VoiceRequest.Target, canSearch: Bool, installed: [TVApp]
    ) throws -> VoiceUnderstanding {
        let heard = try recognizer.recognize(samples)
        guard !heard.text.isEmpty else {
            throw PhotonError(.notFound, "no words were recognised; nothing was sent", hint: "speak closer to the microphone, or type the words")
        }
        let commands = VoiceRequest(heard: heard.text).commands(target: target, canSearch: canSearch, installed: installed)
        return VoiceUnderstanding(recognition: heard, commands: commands, target: target, installed: installed)
    }

    /// The command that carries the words through the router: the words themselves, which
    /// the TV's session turns into the same commands on every door.
    public var spokenCommand: RemoteCommand { .spoken(heard, to: target) }

    /// The commands in a few words: `launch 12, search "the expanse"`.
    public var summary: String { commands.map(describe).joined(separator: ", ") }

    /// What was heard and what it would send, for `--json` and the web remote.
    public func json(sent: Bool) -> JSONValue {
        .object([
            ("heard", .string(heard)), ("model", .string(recognition.model.rawValue)), ("confidence", .double(recognition.confidence)),
            ("confident", .bool(isConfident)), ("commands", .array(commands.map { .string(describe($0)) })), ("sent", .bool(sent)),
        ])
    }

    /// `launch Netflix (12)`, `search "the expanse"`.
    func describe(_ command: RemoteCommand) -> String {
        switch command {
        case .search(let words): return "search \"\(words)\""
        case .text(let words): return "text \"\(words)\""
        case .launch(let app):
            if let named = installed.first(where: { $0.id == app }), named.name != app { return "launch \(named.name) (\(app))" }
            return "launch \(app)"
        case .channel(let number): return "channel \(number)"
        default: return command.logDescription
        }
    }
}

/// The user's voice phrases: `voice-phrases.txt` in the config folder, and any further
/// files given. Read by every door that recognises speech, so a title added once is heard
/// everywhere.
public enum VoicePhrases {
    public static let fileName = "voice-phrases.txt"

    /// The phrases of the config folder's file (absent: none) and of `extraFile` (which
    /// must exist).
    public static func load(configDirectory: URL, extraFile: String? = nil) throws -> [String] {
        var texts: [String] = []
        if let data = FileManager.default.contents(atPath: configDirectory.appendingPathComponent(fileName).path) {
            texts.append(String(decoding: data, as: UTF8.self))
        }
        if let path = extraFile {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw PhotonError(.usage, "cannot read the phrases file \(path)", hint: "give a text file with one phrase a line")
            }
            texts.append(String(decoding: data, as: UTF8.self))
        }
        return texts.flatMap(VoiceVocabulary.phrases(inFile:))
    }
}
