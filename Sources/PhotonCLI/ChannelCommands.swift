import PhotonCore
import PhotonKit

/// `photon channel TV up|down|NUMBER` and `photon channels TV`: channels as one router
/// command (`.channel`) from every door. A number is tuned with the TV's own call where
/// its brand lists channels, else typed as digits and Enter; the command says which.
enum ChannelCommands {
    static func specs(_ registry: AdapterRegistry) -> [CommandSpec] {
        let entry = CommandCatalog.entry(named: "channel")!
        return [
            CommandSpec(
                [entry.name], summary: entry.summary, arguments: "TV \(entry.argument)", minimumArguments: 2, maximumArguments: 2,
                details: entry.details + " A number the TV's list lacks exits 1. "
                    + ControlCommands.brandsLine(for: ["channel-list"], registry)
                    .replacingOccurrences(of: "Brands:", with: "Brands with the tuning call:"),
                examples: entry.examples, run: channel),
            CommandSpec(
                ["channels"], summary: "list a TV's channels", arguments: "TV", minimumArguments: 1, maximumArguments: 1,
                details: "Where the brand can list them; others exit 6. " + ControlCommands.brandsLine(for: ["channel-list"], registry),
                examples: ["photon channels den", "photon channels den --json"], run: channels),
        ]
    }

    static func channel(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let tv = parsed.arguments[0]
        switch try RemoteCommand(verb: "channel", argument: parsed.arguments[1]) {
        case .channel(let number):
            try await ControlCommands.send([.channel(number)], delay: 0, to: tv, context)
            let method = try await self.method(for: tv, context)
            let text =
                method == .tuningCall
                ? "Tuned to \(number) with the TV's own channel call." : "Typed \(number) and Enter (the brand has no tuning call)."
            if context.json {
                context.emit(.object([("channel", .string(number.description)), ("method", .string(method.rawValue))]), text: nil)
            } else {
                context.note(text)
            }
            return 0
        case let key:
            // up and down: the channel keys.
            return try await ControlCommands.send(key, parsed, context)
        }
    }

    /// How the core tunes a channel on this TV's brand: the same rule
    /// `RemoteCommand.channelMethod` applies to the session.
    static func method(for tv: String, _ context: CLIContext) async throws -> ChannelMethod {
        let device = try await context.store.device(named: tv)
        let adapter = try context.registry.adapter(id: device.brand)
        return adapter.capabilities.contains(.channelList) ? .tuningCall : .digitKeys
    }

    static func channels(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let channels = try await context.control().items(.channels, of: parsed.arguments[0])
        if context.json {
            for channel in channels {
                context.emit(
                    .object([("number", .string(channel.number ?? "")), ("name", .string(channel.name)), ("id", .string(channel.id))]), text: nil)
            }
        } else {
            let rows =
                [["NUMBER", "NAME"]] + channels.map { [Redaction.sanitize($0.number ?? "", limit: 16), Redaction.sanitize($0.name, limit: 48)] }
            context.terminal.write(Table.render(rows))
        }
        return 0
    }
}
