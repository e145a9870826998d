import Foundation
import PhotonCore
import PhotonKit

/// `photon key|text|launch|search|notify|screen|volume`: one session, commands sent in order.
enum ControlCommands {
    static func specs(_ registry: AdapterRegistry) -> [CommandSpec] {
        [
            CommandSpec(
                ["key"], summary: "send keys to a TV, in order", arguments: "TV KEY...", minimumArguments: 2, maximumArguments: nil,
                options: [
                    OptionSpec("long", help: "hold each key (long press)"),
                    OptionSpec("hold", type: .milliseconds(0...60_000), help: "how long --long holds, in milliseconds (default 1000)"),
                    OptionSpec("raw", help: "keys are brand codes (KEYCODE_TV_INPUT, 178), sent as given"),
                    OptionSpec("delay", type: .milliseconds(0...60_000), help: "pause between keys so bursts are not dropped (default 100)"),
                    OptionSpec("wake", help: "for power keys: if the TV does not answer, wake it (Wake-on-LAN) and wait for it"),
                    OptionSpec("broadcast", value: "ADDR", help: "with --wake: where to send the packet (repeatable)", repeatable: true),
                ],
                details: "TV is a nickname, id or paired address. `photon keys` lists key names.",
                examples: [
                    "photon key living-room home", "photon key living-room down down select", "photon key tv select --long",
                    "photon key tv --raw KEYCODE_TV_INPUT_HDMI_1", "photon key tv power --wake",
                ],
                run: key),
            CommandSpec(
                ["text"], summary: "type text into the focused field", arguments: "TV STRING", minimumArguments: 2, maximumArguments: 2,
                details: "The whole string is sent at once (more reliable than typing letter by letter).",
                examples: ["photon text living-room \"the expanse\""], run: text),
            CommandSpec(
                ["launch"], summary: "open an app or deep link", arguments: "TV APP", minimumArguments: 2, maximumArguments: 2,
                details: "APP is a name from Photon's app catalog on every brand (netflix, youtube, prime video, disney+, max, hulu, plex, "
                    + "spotify, apple tv, twitch, kodi: `photon apps --catalog`), or an id or link as the brand takes it. "
                    + registry.adapters.map(\.descriptor.help.launch).filter { !$0.isEmpty }.joined(separator: " "),
                examples: ["photon launch living-room netflix", "photon launch living-room https://www.netflix.com/title/80057281"], run: launch),
            CommandSpec(
                ["search"], summary: "search on the TV (its own search screen)", arguments: "TV KEYWORDS", minimumArguments: 2, maximumArguments: 2,
                details: "Where the TV's brand has a search over its protocol (Roku's /search/browse); others exit 6.",
                examples: ["photon search den \"the expanse\""], run: search),
            CommandSpec(
                ["notify"], summary: "show a short message on the TV's screen", arguments: "TV MESSAGE", minimumArguments: 2, maximumArguments: 2,
                details: "1 to \(RemoteCommand.notificationLimit) characters, shown as a toast where the brand has them (LG); others exit 6.",
                examples: ["photon notify living-room \"Dinner is ready\""], run: notify),
            CommandSpec(
                ["screen"], summary: "switch the picture off or on (the TV stays on)", arguments: "TV off|on", minimumArguments: 2,
                maximumArguments: 2,
                details: "Where the brand can (LG, on firmware that has the call); others exit 6. Sound and apps go on while the picture is off.",
                examples: ["photon screen office off", "photon screen office on"], run: screen),
            CommandSpec(
                ["volume"], summary: "change the volume", arguments: "TV up|down|mute|LEVEL", minimumArguments: 2, maximumArguments: 2,
                details: "A LEVEL (0–100) sets the volume where the brand has absolute volume (LG); others take steps only and exit 6.",
                examples: ["photon volume living-room up", "photon volume living-room mute", "photon volume living-room 15"], run: volume),
        ]
    }

    static func milliseconds(_ parsed: ParsedCommand, _ name: String, default value: Int) throws -> Int {
        guard let text = parsed.value(name) else { return value }
        guard let ms = Int(text), ms >= 0, ms <= 60_000 else {
            throw PhotonError(.usage, "--\(name) takes milliseconds from 0 to 60000, not '\(text)'")
        }
        return ms
    }

    static func keyInputs(_ names: ArraySlice<String>, raw: Bool) throws -> [KeyInput] {
        try names.map { name in
            if raw { return .raw(name) }
            if let key = RemoteKey(name: name) { return .key(key) }
            let suggestion = Suggestions.closest(to: name.lowercased(), in: RemoteKey.allCases.map(\.rawValue))
            throw PhotonError(
                .usage, "unknown key '\(Redaction.sanitize(name))'",
                hint: (suggestion.map { "did you mean '\($0)'? " } ?? "") + "see `photon keys`; brand codes need --raw")
        }
    }

    static func key(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let inputs = try keyInputs(parsed.arguments.dropFirst(), raw: parsed.flag("raw"))
        let hold = try milliseconds(parsed, "hold", default: 1000)
        let delay = try milliseconds(parsed, "delay", default: 100)
        let long = parsed.flag("long")
        let powersOn = inputs.contains { $0 == .key(.power) || $0 == .key(.powerOn) }
        let wake = WakeRequest(destinations: parsed.allValues("broadcast"))
        do {
            try await sendKeys(inputs, hold: hold, delay: delay, long: long, wake: powersOn && parsed.flag("wake") ? wake : nil, parsed, context)
        } catch let error as PhotonError where powersOn && !parsed.flag("wake") && (error.code == .unreachable || error.code == .timeout) {
            // A TV that is off does not answer: offer to wake it, then wait for it.
            guard try await WakeCommand.mayWake(parsed.arguments[0], context: context) else { throw error }
            try await sendKeys(inputs, hold: hold, delay: delay, long: long, wake: wake, parsed, context)
        }
        return 0
    }

    static func sendKeys(
        _ inputs: [KeyInput], hold: Int, delay: Int, long: Bool, wake: WakeRequest?, _ parsed: ParsedCommand, _ context: CLIContext
    ) async throws {
        let commands: [RemoteCommand] = inputs.map { long ? .longPress($0, milliseconds: hold) : .key($0, .press) }
        let woke = try await send(commands, delay: delay, to: parsed.arguments[0], context, wake: wake)
        if woke { context.note("The TV is awake.") }
        if context.json {
            context.emit(.object([("sent", .array(inputs.map { .string($0.description) }))]), text: nil)
        }
    }

    static func text(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        try await send(.text(parsed.arguments[1]), parsed, context)
    }

    static func search(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        try await send(.search(parsed.arguments[1]), parsed, context)
    }

    static func notify(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        try RemoteCommand.checkNotification(parsed.arguments[1])
        return try await send(.notify(parsed.arguments[1]), parsed, context)
    }

    static func screen(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        switch parsed.arguments[1].lowercased() {
        case "on": return try await send(.screen(on: true), parsed, context)
        case "off": return try await send(.screen(on: false), parsed, context)
        default: throw PhotonError(.usage, "screen takes off or on, not '\(Redaction.sanitize(parsed.arguments[1]))'")
        }
    }

    static func launch(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        try await send(.launch(parsed.arguments[1]), parsed, context)
    }

    static func volume(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        if let level = Int(parsed.arguments[1]) {
            guard (0...100).contains(level) else { throw PhotonError(.usage, "a volume level is from 0 to 100, not \(level)") }
            return try await send(.setVolume(level), parsed, context)
        }
        guard let change = VolumeChange(rawValue: parsed.arguments[1].lowercased()) else {
            throw PhotonError(.usage, "volume takes up, down, mute or a level from 0 to 100, not '\(Redaction.sanitize(parsed.arguments[1]))'")
        }
        return try await send(.volume(change), parsed, context)
    }

    static func send(_ command: RemoteCommand, _ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        try await send([command], delay: 0, to: parsed.arguments[0], context)
        return 0
    }

    /// Sends commands in order through `context.control()` — a running `photon serve`
    /// or this process's own router and session. With `wake`, a TV that does not answer
    /// is woken first (and a power key that would switch it off again is dropped).
    /// Returns whether the TV had to be woken.
    @discardableResult
    static func send(_ commands: [RemoteCommand], delay: Int, to tv: String, _ context: CLIContext, wake: WakeRequest? = nil)
        async throws -> Bool
    {
        // Voice is too large for the daemon's request lines: it always goes direct.
        let voice = commands.contains {
            switch $0 {
            case .voice, .liveVoice: return true
            default: return false
            }
        }
        let control: any TVControl = voice ? try context.directControl() : try await context.control()
        return try await control.send(
            commands, to: tv, delay: .milliseconds(delay), wake: wake, lifetime: min(context.timeout, .seconds(10)))
    }
}
