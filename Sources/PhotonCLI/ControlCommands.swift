import Foundation
import PhotonCore

/// `photon key|text|launch|volume`: one session, commands sent in order.
enum ControlCommands {
    static let specs: [CommandSpec] = [
        CommandSpec(
            ["key"], summary: "send keys to a TV, in order", arguments: "TV KEY...", minimumArguments: 2, maximumArguments: nil,
            options: [
                OptionSpec("long", help: "hold each key (long press)"),
                OptionSpec("hold", value: "MS", help: "how long --long holds, in milliseconds (default 1000)"),
                OptionSpec("raw", help: "keys are brand codes (KEYCODE_TV_INPUT, 178), sent as given"),
                OptionSpec("delay", value: "MS", help: "pause between keys so bursts are not dropped (default 100)"),
            ],
            details: "TV is a nickname, id or paired address. `photon keys` lists key names.",
            examples: ["photon key living-room home", "photon key living-room down down select", "photon key tv select --long",
                "photon key tv --raw KEYCODE_TV_INPUT_HDMI_1"],
            run: key),
        CommandSpec(
            ["text"], summary: "type text into the focused field", arguments: "TV STRING", minimumArguments: 2, maximumArguments: 2,
            details: "The whole string is sent at once (more reliable than typing letter by letter).",
            examples: ["photon text living-room \"the expanse\""], run: text),
        CommandSpec(
            ["launch"], summary: "open an app or deep link", arguments: "TV APP", minimumArguments: 2, maximumArguments: 2,
            details: "Android TV takes deep links (https://www.youtube.com, vnd.youtube://). Samsung takes app ids (111299001912 is YouTube).",
            examples: ["photon launch living-room https://www.netflix.com/title/80057281"], run: launch),
        CommandSpec(
            ["volume"], summary: "change the volume", arguments: "TV up|down|mute", minimumArguments: 2, maximumArguments: 2,
            examples: ["photon volume living-room up", "photon volume living-room mute"], run: volume),
    ]

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
        try await SessionSupport.withSession(parsed.arguments[0], context: context) { device, session in
            for (index, input) in inputs.enumerated() {
                let command: RemoteCommand = long ? .longPress(input, milliseconds: hold) : .key(input, .press)
                try SessionSupport.require(command, on: session, device: device)
                if index > 0, delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
                try await session.send(command)
                context.log.debug("sent \(input)")
            }
        }
        if context.json {
            context.emit(.object([("sent", .array(inputs.map { .string($0.description) }))]), text: nil)
        }
        return 0
    }

    static func text(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        try await send(.text(parsed.arguments[1]), parsed, context)
    }

    static func launch(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        try await send(.launch(parsed.arguments[1]), parsed, context)
    }

    static func volume(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        guard let change = VolumeChange(rawValue: parsed.arguments[1].lowercased()) else {
            throw PhotonError(.usage, "volume takes up, down or mute, not '\(Redaction.sanitize(parsed.arguments[1]))'")
        }
        return try await send(.volume(change), parsed, context)
    }

    static func send(_ command: RemoteCommand, _ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        try await SessionSupport.withSession(parsed.arguments[0], context: context) { device, session in
            try SessionSupport.require(command, on: session, device: device)
            try await session.send(command)
        }
        return 0
    }
}
