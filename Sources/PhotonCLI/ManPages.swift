import PhotonArguments
import PhotonCore

/// photon(1), generated from the command table (`photon-cli __manpage`); `make install`
/// writes it to share/man/man1.
enum ManPages {
    static let command = "__manpage"

    static func photon(_ registry: AdapterRegistry) -> ManPage {
        let table = CommandTable.all(registry).filter { $0.pendingReason == nil }
        return ManPage(
            name: "photon", summary: "drive TVs from Linux: pair, keys, text, apps, status, a keyboard remote",
            synopsis: ["COMMAND [ARGUMENTS] [OPTIONS]", "COMMAND --help"],
            description: [
                "photon controls TVs over their own network protocols: \(registry.adapters.map(\.displayName).joined(separator: ", ")). A TV is paired once (its certificate pinned with your consent, its credential kept in a file only you can read) and then addressed by its nickname.",
                "photon is a small front end: it sends a key, a text, an app or a volume change through a running photon serve by itself, and runs photon-cli, installed beside it, for everything else. Without a daemon every command connects to the TV directly.",
                "Every command takes --json for one JSON object per line, and --help.",
            ],
            commands: table.map { spec in
                ManPage.Command(
                    usage: "photon " + (spec.words + (spec.arguments.isEmpty ? [] : [spec.arguments])).joined(separator: " "),
                    summary: spec.summary, options: spec.options, details: spec.details)
            },
            options: PhotonCommandLine.globalOptions,
            exitStatus: [
                ("0", "success"), ("1", "a generic failure (a protocol violation, the store)"), ("2", "usage: a bad command line"),
                ("3", "the TV is unreachable, timed out, or closed the connection"), ("4", "pairing or authentication was refused"),
                ("5", "the TV's certificate does not match the pin, or was not trusted"), ("6", "the TV or its brand cannot do that (unsupported)"),
            ],
            files: [
                ("~/.config/photon/devices.json", "the paired TVs (no secrets)"),
                (
                    "~/.local/share/photon/secrets.json",
                    "this installation's client identity, certificate pins, tokens and client keys; mode 0600 in a 0700 directory"
                ),
                ("$XDG_RUNTIME_DIR/photon/photon.sock", "the daemon's socket (photon serve), private to this user"),
                ("~/.config/systemd/user/photon.service", "the systemd user unit that runs photon serve"),
            ],
            environment: [
                ("PHOTON_HOME", "keep everything under one directory (DIR/config, DIR/data, DIR/run), as --home does"),
                ("XDG_CONFIG_HOME, XDG_DATA_HOME", "where the paired TVs and the secrets live"),
                ("XDG_RUNTIME_DIR", "where the daemon's socket lives (else $XDG_STATE_HOME/photon/run)"),
                ("NO_COLOR", "no colours in photon remote and other output"),
            ],
            examples: [
                "photon discover", "photon pair 192.168.1.20 --name living-room", "photon key living-room home down down select",
                "photon text living-room \"the expanse\"", "photon launch living-room netflix", "photon status living-room --watch",
                "photon remote living-room", "photon doctor living-room --report", "photon serve", "source <(photon completions bash)",
            ],
            seeAlso: ["photon-emulator(1)"], version: PhotonCommandLine.version)
    }
}
