import PhotonCore
import PhotonKit

/// `photon channel TV up|down|NUMBER` and `photon channels TV`: channels as one router
/// command (`.channel`) from every door. A number is tuned with the TV's own call where
/// its brand has one (LG, Roku TVs), else typed as digits and Enter; the command says which.
enum ChannelCommands {
    static let specs: [CommandSpec] = [
        CommandSpec(
            ["channel"], summary: "change the channel: up, down, or a number", arguments: "TV up|down|NUMBER", minimumArguments: 2,
            maximumArguments: 2,
            details: """
                NUMBER is 7 or 7.1 (7-1). LG and Roku TVs tune it with their own call after finding it in the TV's channel list \
                (7 means the first 7.x there; a number the TV lacks exits 1); other brands get the digits and Enter, which \
                cannot type a sub-channel (exit 6). up and down are the channel keys.
                """,
            examples: ["photon channel living-room 7", "photon channel den 7.1", "photon channel den up"], run: channel),
        CommandSpec(
            ["channels"], summary: "list a TV's channels", arguments: "TV", minimumArguments: 1, maximumArguments: 1,
            details: "Where the brand can list them (LG, Roku TVs); others exit 6.",
            examples: ["photon channels den", "photon channels den --json"], run: channels),
    ]

    static func channel(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let tv = parsed.arguments[0]
        switch parsed.arguments[1].lowercased() {
        case "up": return try await ControlCommands.send(.key(.key(.channelUp), .press), parsed, context)
        case "down": return try await ControlCommands.send(.key(.key(.channelDown), .press), parsed, context)
        default:
            let number = try ChannelNumber(parsing: parsed.arguments[1])
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
