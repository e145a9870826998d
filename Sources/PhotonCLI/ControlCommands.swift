import Foundation
import PhotonCore
import PhotonKit

/// `photon key` and every command the catalog derives (`text`, `launch`, `search`,
/// `notify`, `screen`, `volume`, and whatever entry comes next): one session, commands
/// sent in order.
enum ControlCommands {
    /// The commands' specs. Without `help`, a derived command's details (which brands can do
    /// it, read from every adapter's descriptor: about half a millisecond) are left out, for
    /// a command line that will run, not print help.
    static func specs(_ registry: AdapterRegistry, help: Bool = true) -> [CommandSpec] {
        let key = CommandCatalog.entry(named: "key")!
        return [
            CommandSpec(
                [key.name], summary: key.summary, arguments: "TV \(key.argument)", minimumArguments: 2, maximumArguments: nil,
                options: [
                    OptionSpec("long", help: "hold each key (long press)"),
                    OptionSpec("hold", type: .milliseconds(0...60_000), help: "how long --long holds, in milliseconds (default 1000)"),
                    OptionSpec("raw", help: "keys are brand codes (KEYCODE_TV_INPUT, 178), sent as given"),
                    OptionSpec("delay", type: .milliseconds(0...60_000), help: "pause between keys so bursts are not dropped (default 100)"),
                    OptionSpec("wake", help: "for power keys: if the TV does not answer, wake it (Wake-on-LAN) and wait for it"),
                    OptionSpec("broadcast", value: "ADDR", help: "with --wake: where to send the packet (repeatable)", repeatable: true),
                ],
                details: key.details, examples: key.examples, run: Self.key)
        ]
            + CommandCatalog.entries.filter(\.derivedCommandLine).map { entry in
                let list = entry.listKind.flatMap(TVListKind.init(rawValue:))
                return CommandSpec(
                    [entry.name], summary: entry.summary, arguments: list == nil ? "TV \(entry.argument)" : "TV [\(entry.argument)]",
                    minimumArguments: list == nil ? 2 : 1, maximumArguments: 2, details: help ? details(of: entry, registry) : nil,
                    examples: entry.examples,
                    run: { parsed, context in
                        if parsed.arguments.count == 1, let list { return try await listChoices(list, parsed, context) }
                        return try await send(RemoteCommand(verb: entry.name, argument: parsed.arguments[1]), parsed, context)
                    })
            }
    }

    /// A derived command without its argument: the TV's choices for it (`photon sound TV`),
    /// the one in use marked.
    static func listChoices(_ kind: TVListKind, _ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let items = try await context.control().items(kind, of: parsed.arguments[0])
        if context.json {
            for item in items { context.emit(ServiceProtocol.json(item), text: nil) }
        } else {
            let rows =
                [["NAME", "ID", "IN USE"]]
                + items.map { [Redaction.sanitize($0.name, limit: 40), Redaction.sanitize($0.id, limit: 40), $0.active == true ? "yes" : ""] }
            context.terminal.write(Table.render(rows))
        }
        return 0
    }

    /// The entry's help, the brands' own words where they have some (what a brand takes
    /// as an app), and which registered brands can do it, from their capabilities.
    static func details(of entry: CommandEntry, _ registry: AdapterRegistry) -> String {
        var text = entry.details
        if entry.name == "launch" {
            let words = registry.adapters.map(\.descriptor.help.launch).filter { !$0.isEmpty }
            if !words.isEmpty { text += " " + words.joined(separator: " ") }
        }
        return text + " " + brandsLine(for: entry.capabilities, registry)
    }

    /// "Brands: lg (level), roku, …": which registered brands declare one of
    /// `capabilities`, derived from their descriptors, never written by hand.
    static func brandsLine(for capabilities: [String], _ registry: AdapterRegistry) -> String {
        let names = brandNames(for: capabilities, registry)
        guard !names.isEmpty else { return "No registered brand can do it yet." }
        return "Brands: \(names.joined(separator: ", "))."
    }

    /// The registered brands that declare one of `capabilities`, each with what it lacks
    /// of the others (`roku (not volume-set)`).
    static func brandNames(for capabilities: [String], _ registry: AdapterRegistry) -> [String] {
        let wanted = capabilities.compactMap(Capability.init(rawValue:))
        let brands = registry.adapters.map(\.descriptor).filter { descriptor in wanted.contains { descriptor.capabilities.contains($0) } }
        return brands.map { descriptor in
            let partial = wanted.filter { !descriptor.capabilities.contains($0) }
            return wanted.count > 1 && !partial.isEmpty
                ? "\(descriptor.id) (not \(partial.map(\.rawValue).joined(separator: ", ")))" : descriptor.id
        }
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
            if raw {
                guard case .key(let input, _) = try RemoteCommand(wire: .object([("raw", .string(name))])) else { return .raw(name) }
                return input
            }
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
        let delay = try milliseconds(parsed, "delay", default: Macro.keyPacingMilliseconds)
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
