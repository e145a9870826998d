import PhotonCore

/// Every command of the `photon` tool, in the order `--help` lists them.
enum CommandTable {
    /// The commands, with the options and help the registered brands add.
    static func all(_ registry: AdapterRegistry) -> [CommandSpec] {
        [PairCommand.spec(registry)] + ControlCommands.specs(registry)
            + [InputCommand.spec(registry), ArtCommandLine.spec(registry)] + ChannelCommands.specs(registry) + [PowerCommand.spec(registry)]
            + MacroCommands.specs + [
                VoiceCommand.spec, FollowCommand.spec, StatusCommand.spec, AppsCommand.spec, WakeCommand.spec, ProbeCommand.spec(registry),
                DiscoverCommand.spec,
            ]
            + DeviceCommands.specs + IdentityCommands.specs + [
                KeysCommand.spec, ServeCommand.spec, DemoCommand.spec, KeyboardRemoteCommand.spec, DoctorCommand.spec(registry),
                CompletionScripts.spec(registry), MQTTLoginCommand.spec,
            ] + WebCommands.specs + HomeKitCommands.specs + HelpCommands.specs(registry) + pending
    }

    /// Commands of the contract (design/cli.md) that this build does not have yet. Each
    /// fails with `unsupported`.
    static let pending: [CommandSpec] = pendingCommands.map(pendingSpec)

    private static let pendingCommands: [(name: String, summary: String, waitsFor: String)] = []

    private static func pendingSpec(_ item: (name: String, summary: String, waitsFor: String)) -> CommandSpec {
        let (name, summary, waitsFor) = item
        return CommandSpec(
            [name], summary: summary, minimumArguments: 0, maximumArguments: nil, examples: [],
            pendingReason: waitsFor
        ) { _, _ in
            throw PhotonError.unsupported(
                "`photon \(name)` is not in this build of Photon yet",
                hint: "it arrives with \(waitsFor); `photon --help` lists what works today")
        }
    }
}
