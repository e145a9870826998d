import PhotonCore

/// Renders `--help` for the tool and for each command from the command table.
enum HelpText {
    static func overview(_ parser: ArgumentParser, registry: AdapterRegistry) -> String {
        var text = """
            photon \(PhotonCommandLine.version): drive TVs from Linux (\(registry.adapters.map(\.displayName).joined(separator: "; ")))

            Usage: photon [global options] COMMAND [arguments]

            Commands:

            """
        let available = parser.commands.filter { $0.pendingReason == nil }
        let width = (available.map(\.name.count).max() ?? 10) + 2
        for command in available {
            text += "  " + command.name.padding(toLength: width, withPad: " ", startingAt: 0) + command.summary + "\n"
        }
        let planned = parser.commands.filter { $0.pendingReason != nil }.map(\.name)
        if !planned.isEmpty {
            text += "\nPlanned, not in this build yet (they exit 6, unsupported):\n  "
            text += planned.joined(separator: ", ") + "\n"
        }
        text += "\nGlobal options (anywhere on the line):\n" + options(parser.globalOptions)
        text += """

            Exit codes: 0 ok, 1 failure, 2 usage, 3 TV unreachable or timed out,
            4 pairing or authentication refused, 5 certificate pin mismatch, 6 unsupported.

            Run `photon COMMAND --help` for details and examples.

            """
        return text
    }

    static func command(_ command: CommandSpec, globalOptions: [OptionSpec]) -> String {
        var text = "photon \(command.name): \(command.summary)\n\n"
        if let pending = command.pendingReason {
            text += "Not in this build yet: it arrives with \(pending). Until then it exits 6 (unsupported).\n\n"
        }
        text += "Usage: photon \(command.name)\(command.arguments.isEmpty ? "" : " " + command.arguments)"
        text += command.options.isEmpty ? "\n" : " [options]\n"
        if let details = command.details { text += "\n" + details + "\n" }
        if !command.options.isEmpty { text += "\nOptions:\n" + options(command.options) }
        text += "\nGlobal options:\n" + options(globalOptions)
        if !command.examples.isEmpty {
            text += "\nExamples:\n" + command.examples.map { "  " + $0 }.joined(separator: "\n") + "\n"
        }
        return text
    }

    static func options(_ specs: [OptionSpec]) -> String {
        let rendered = specs.map { spec -> (String, String) in
            var left = spec.short.map { "-\($0), " } ?? ""
            left += "--" + spec.name + (spec.valueName.map { " " + $0 } ?? "")
            return (left, spec.help)
        }
        let width = (rendered.map(\.0.count).max() ?? 10) + 2
        return rendered.map { "  " + $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + $0.1 }
            .joined(separator: "\n") + "\n"
    }
}
