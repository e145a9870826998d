import PhotonCore
import PhotonKit

/// `photon input TV [NAME]`: lists a TV's inputs, or switches to one by its standard name
/// or the TV's own label for it. One router command (`.input`) from every door.
enum InputCommand {
    static func spec(_ registry: AdapterRegistry) -> CommandSpec {
        let entry = CommandCatalog.entry(named: "input")!
        return CommandSpec(
            [entry.name], summary: entry.summary, arguments: "TV [NAME]", minimumArguments: 1, maximumArguments: 2,
            details: entry.details + " A label or a list needs a brand that lists inputs ("
                + ControlCommands.brandNames(for: ["input-list"], registry).joined(separator: ", ")
                + "); the others switch by the standard names only (their "
                + "input keys) and exit 6 for a label or a list. An input the TV does not have exits 1, naming the inputs it has. "
                + ControlCommands.brandsLine(for: ["inputs"], registry),
            examples: entry.examples + ["photon input den --json"], run: run)
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let tv = parsed.arguments[0]
        if parsed.arguments.count == 2 {
            guard case .input(let name) = try RemoteCommand(verb: "input", argument: parsed.arguments[1]) else {
                throw PhotonError(.internal, "the input grammar read something else")
            }
            try await ControlCommands.send([.input(name)], delay: 0, to: tv, context)
            if context.json { context.emit(.object([("input", .string(name.description))]), text: nil) }
            return 0
        }
        let inputs = try await context.control().items(.inputs, of: tv)
        if context.json {
            for input in inputs {
                var fields: [(String, JSONValue)] = [("id", .string(input.id)), ("label", .string(input.name))]
                if let kind = input.kind { fields.append(("name", .string(kind))) }
                if let active = input.active { fields.append(("active", .bool(active))) }
                context.emit(.object(fields), text: nil)
            }
        } else {
            let rows =
                [["NAME", "LABEL", "ID", "ACTIVE"]]
                + inputs.map { input in
                    [
                        input.kind ?? "-", Redaction.sanitize(input.name, limit: 40), Redaction.sanitize(input.id, limit: 40),
                        input.active == true ? "yes" : "",
                    ]
                }
            context.terminal.write(Table.render(rows))
        }
        return 0
    }
}
