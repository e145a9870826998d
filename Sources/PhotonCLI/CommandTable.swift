import PhotonCore

/// Every command of the `photon` tool, in the order `--help` lists them.
enum CommandTable {
    static var all: [CommandSpec] {
        IdentityCommands.specs + DeviceCommands.specs + [KeysCommand.spec, DemoCommand.spec] + pending
    }

    /// Commands of the contract (design/cli.md) that need a brand adapter, discovery or
    /// the daemon, none of which this build has yet. Each fails with `unsupported`.
    static let pending: [CommandSpec] = pendingCommands.map(pendingSpec)

    private static let pendingCommands: [(name: String, summary: String, waitsFor: String)] = [
        ("discover", "browse the network for TVs", "mDNS discovery (issue 5)"),
        ("probe", "ask an address which TV answers there", "the unicast probe (issue 5)"),
        ("pair", "pair with a TV and store it", "the Android TV and Samsung adapters (issues 3 and 4)"),
        ("key", "send keys to a TV", "the Android TV and Samsung adapters (issues 3 and 4)"),
        ("text", "type text on a TV", "the Android TV and Samsung adapters (issues 3 and 4)"),
        ("launch", "open an app or deep link", "the Android TV and Samsung adapters (issues 3 and 4)"),
        ("volume", "change the volume", "the Android TV and Samsung adapters (issues 3 and 4)"),
        ("voice", "stream a voice query", "the Android TV adapter (issue 3)"),
        ("status", "show power, app and volume", "the Android TV and Samsung adapters (issues 3 and 4)"),
        ("wake", "send a Wake-on-LAN packet", "Wake-on-LAN (issue 5)"),
        ("remote", "interactive keyboard remote", "the brand adapters"),
        ("doctor", "diagnose a connection", "the brand adapters"),
        ("serve", "run the daemon", "the daemon (issue 6)"),
    ]

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
