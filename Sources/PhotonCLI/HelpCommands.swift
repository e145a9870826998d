import PhotonCore

/// `photon help [COMMAND...]` and `photon version`: the words a newcomer types before
/// finding `--help` and `--version`, answered the same way.
enum HelpCommands {
    static func specs(_ registry: AdapterRegistry) -> [CommandSpec] {
        [
            CommandSpec(
                ["help"], summary: "the overview, or one command's help", arguments: "[COMMAND...]", minimumArguments: 0,
                maximumArguments: nil,
                options: [
                    OptionSpec("man", help: "print the photon(1) manual page, for a checkout without it installed: photon help --man | man -l -")
                ],
                details: "The same as `photon --help` and `photon COMMAND --help`.",
                examples: ["photon help", "photon help volume", "photon help web pair", "photon help --man | man -l -"],
                run: { parsed, context in
                    if parsed.flag("man") {
                        context.terminal.write(ManPages.photon(registry).roff)
                        return 0
                    }
                    let parser = PhotonCommandLine.parser(for: registry)
                    guard !parsed.arguments.isEmpty else {
                        context.terminal.write(HelpText.overview(parser, registry: registry))
                        return 0
                    }
                    guard let command = try parser.parse(parsed.arguments + ["--help"]).command else {
                        throw PhotonError(
                            .usage, "unknown command '\(Redaction.sanitize(parsed.arguments.joined(separator: " ")))'",
                            hint: "see `photon help`")
                    }
                    context.terminal.write(HelpText.command(command, globalOptions: PhotonCommandLine.globalOptions))
                    return 0
                }),
            CommandSpec(
                ["version"], summary: "print the version", arguments: "", minimumArguments: 0, maximumArguments: 0,
                details: "The same as `photon --version`; with --json, {\"version\":…}.", examples: ["photon version"],
                run: { _, context in
                    context.emit(.object([("version", .string(PhotonCommandLine.version))]), text: "photon \(PhotonCommandLine.version)")
                    return 0
                }),
        ]
    }
}
