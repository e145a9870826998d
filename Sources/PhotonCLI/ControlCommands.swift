import Foundation
import PhotonCore

/// `photon key|text|launch|volume`: one session, commands sent in order.
enum ControlCommands {
    static func specs(_ registry: AdapterRegistry) -> [CommandSpec] { [
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
            examples: ["photon key living-room home", "photon key living-room down down select", "photon key tv select --long",
                "photon key tv --raw KEYCODE_TV_INPUT_HDMI_1", "photon key tv power --wake"],
            run: key),
        CommandSpec(
            ["text"], summary: "type text into the focused field", arguments: "TV STRING", minimumArguments: 2, maximumArguments: 2,
            details: "The whole string is sent at once (more reliable than typing letter by letter).",
            examples: ["photon text living-room \"the expanse\""], run: text),
        CommandSpec(
            ["launch"], summary: "open an app or deep link", arguments: "TV APP", minimumArguments: 2, maximumArguments: 2,
            details: registry.adapters.map(\.launchHelp).filter { !$0.isEmpty }.joined(separator: " "),
            examples: ["photon launch living-room https://www.netflix.com/title/80057281"], run: launch),
        CommandSpec(
            ["volume"], summary: "change the volume", arguments: "TV up|down|mute", minimumArguments: 2, maximumArguments: 2,
            examples: ["photon volume living-room up", "photon volume living-room mute"], run: volume),
    ] }

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
        do {
            try await sendKeys(inputs, hold: hold, delay: delay, long: long, parsed, context)
        } catch let error as PhotonError where powersOn && (error.code == .unreachable || error.code == .timeout) {
            // A TV that is off does not answer: offer Wake-on-LAN, then wait for it.
            guard try await WakeCommand.offerWake(
                parsed.arguments[0], asked: parsed.flag("wake"), destinations: parsed.allValues("broadcast"), context: context) else { throw error }
            let end = ContinuousClock.now + .seconds(45)
            while true {
                do {
                    // Once awake, `power-on` semantics: the TV is on, so power keys are not resent.
                    let rest = inputs.filter { $0 != .key(.power) && $0 != .key(.powerOn) }
                    if rest.isEmpty {
                        try await SessionSupport.withSession(parsed.arguments[0], context: context) { _, _ in }
                    } else {
                        try await sendKeys(rest, hold: hold, delay: delay, long: long, parsed, context)
                    }
                    context.note("The TV is awake.")
                    return 0
                } catch let retry as PhotonError where retry.code == .unreachable || retry.code == .timeout {
                    guard ContinuousClock.now < end else {
                        throw PhotonError(
                            .timeout, "the TV did not come up within 45 s of the Wake-on-LAN packet",
                            hint: "Wake-on-LAN needs \"Power On with Mobile\"/networked standby, usually over wired Ethernet")
                    }
                    try await Task.sleep(for: .seconds(1))
                }
            }
        }
        return 0
    }

    static func sendKeys(_ inputs: [KeyInput], hold: Int, delay: Int, long: Bool, _ parsed: ParsedCommand, _ context: CLIContext)
        async throws
    {
        let commands: [RemoteCommand] = inputs.map { long ? .longPress($0, milliseconds: hold) : .key($0, .press) }
        try await send(commands, delay: delay, to: parsed.arguments[0], context)
        if context.json {
            context.emit(.object([("sent", .array(inputs.map { .string($0.description) }))]), text: nil)
        }
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
        try await send([command], delay: 0, to: parsed.arguments[0], context)
        return 0
    }

    /// Sends commands in order through the daemon's warm session when `photon serve`
    /// runs, or over a session of our own.
    static func send(_ commands: [RemoteCommand], delay: Int, to tv: String, _ context: CLIContext) async throws {
        let viaDaemon: Void? = try await DaemonPath.withSession(tv, context) { session in
            for (index, command) in commands.enumerated() {
                if index > 0, delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
                try await session.send(command)
                context.log.debug("sent \(describe(command)) through photon serve")
            }
        }
        if viaDaemon != nil { return }
        try await SessionSupport.withSession(tv, context: context) { device, session in
            for (index, command) in commands.enumerated() {
                try SessionSupport.require(command, on: session, device: device)
                if index > 0, delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
                try await session.send(command)
                context.log.debug("sent \(describe(command))")
            }
        }
    }

    /// A command for the log, without the text it types (which may be private).
    static func describe(_ command: RemoteCommand) -> String {
        switch command {
        case .key(let input, let action): return action == .press ? "key \(input)" : "key \(input) \(action.rawValue)"
        case .longPress(let input, let ms): return "key \(input) held \(ms) ms"
        case .text(let text): return "text (\(text.count) characters)"
        case .launch(let app): return "launch \(Redaction.sanitize(app))"
        case .volume(let change): return "volume \(change.rawValue)"
        case .voice(let pcm, _): return "voice (\(pcm.count) bytes)"
        }
    }
}
