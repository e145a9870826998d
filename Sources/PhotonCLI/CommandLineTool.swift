import Foundation
import PhotonCore
import PhotonNet
import PhotonPlugins
import PhotonStore
import PhotonWire

/// The `photon` command line: parses, runs one command, prints the result or the error
/// (message and hint on stderr; also a JSON error object with `--json`), and returns the
/// exit code of the contract in design/cli.md.
public enum PhotonCommandLine {
    public static var version: String { PhotonVersion.current }

    public static let globalOptions: [OptionSpec] = [
        OptionSpec("home", value: "DIR", help: "keep config, secrets and the runtime socket under DIR (env PHOTON_HOME)"),
        OptionSpec("json", help: "machine output: one JSON object per line on stdout"),
        OptionSpec("verbose", short: "v", help: "debug log on stderr (redacted: no tokens, no keys)"),
        OptionSpec("timeout", type: .seconds(0.001...3600), help: "network wait for this command (default 10)"),
        OptionSpec("direct", help: "connect to the TV directly even when `photon serve` runs"),
        OptionSpec("version", help: "print the version and exit"),
    ]

    /// Commands that open a session to a TV (the first word of the command line).
    static let connectingCommands: Set<String> = Set(CommandCatalog.entries.map(\.name)).union([
        "channels", "power", "run", "status", "apps", "voice", "remote", "pair", "probe", "doctor", "wake",
    ])

    /// The parser for a tool with these brands (their options join `pair` and `probe`).
    public static func parser(for registry: AdapterRegistry = BuiltInPlugins.adapters) -> ArgumentParser {
        ArgumentParser(commands: CommandTable.all(registry), globalOptions: globalOptions)
    }

    /// The command line parsed. A command of the catalog (`key`, `volume`, `launch`…, what a
    /// cold key press runs) is parsed against the catalog's commands alone, which skips
    /// building the other commands' specs and help (most of a millisecond of a cold `photon
    /// key`). The catalog's commands come first in the whole table, so what parses there
    /// parses the same in it; help, `--version`, other commands and every error go through
    /// the whole table, so their output is the same.
    public static func parse(_ arguments: [String], registry: AdapterRegistry = BuiltInPlugins.adapters) throws -> ParsedCommand {
        if let word = arguments.first(where: { !$0.hasPrefix("-") }) {
            let control = ControlCommands.specs(registry, help: false)
            if control.contains(where: { $0.words == [word] }),
                let parsed = try? ArgumentParser(commands: control, globalOptions: globalOptions).parse(arguments),
                parsed.command != nil, !parsed.helpRequested, !parsed.flag("version")
            {
                return parsed
            }
        }
        return try parser(for: registry).parse(arguments)
    }

    /// Whether `arguments` name a command that will connect to a TV directly (no daemon, or
    /// `--direct`): what the network warm-up is for.
    public static func connectsDirectly(_ arguments: [String], environment: EnvironmentVariables = .process) -> Bool {
        guard environment["PHOTON_NO_DAEMON"] == "1" || arguments.contains("--direct"),
            let word = arguments.first(where: { !$0.hasPrefix("-") })
        else { return false }
        return connectingCommands.contains(word)
    }

    /// Starts the event loop and OpenSSL's first context on the other core (`NetworkWarmUp`)
    /// when `arguments` name a command that will connect to a TV directly, so they are ready
    /// by the time arguments, store and identity are read. photon-cli calls it before its
    /// first task starts; `run` calls it too (once per process).
    public static func startNetworkWarmUp(for arguments: [String], environment: EnvironmentVariables = .process) {
        if connectsDirectly(arguments, environment: environment) { NetworkWarmUp.start() }
    }

    /// Runs the tool with `arguments` (without the program name).
    public static func run(
        _ arguments: [String], terminal: any Terminal = StandardTerminal(),
        environment: EnvironmentVariables = .process,
        registry: AdapterRegistry = BuiltInPlugins.adapters
    ) async -> Int32 {
        PhaseTimer.mark("command line started (first task running)")
        startNetworkWarmUp(for: arguments, environment: environment)
        let wantsJSON = arguments.contains("--json")
        // Not a command of the table: what `make install` runs to write photon(1), and what
        // shell completion asks for when photon-cli is run by that name.
        if arguments == [ManPages.command] {
            terminal.write(ManPages.photon(registry).roff)
            return 0
        }
        if arguments.first == CompletionNames.command {
            let directory = CompletionNames.configDirectory(home: CompletionNames.home(in: arguments), environment: { environment[$0] })
            let bytes = directory.flatMap { FileManager.default.contents(atPath: $0 + "/devices.json") }.map { Array($0) } ?? []
            for name in CompletionNames.nicknames(fromDevicesFile: bytes) { terminal.write(name + "\n") }
            return 0
        }
        do {
            let parsed = try parse(arguments, registry: registry)
            if parsed.flag("version") {
                terminal.write(wantsJSON ? JSONValue.object([("version", .string(version))]).encoded + "\n" : "photon \(version)\n")
                return 0
            }
            guard let command = parsed.command else {
                terminal.write(HelpText.overview(parser(for: registry), registry: registry))
                return parsed.helpRequested ? 0 : 2
            }
            if parsed.helpRequested {
                terminal.write(HelpText.command(command, globalOptions: globalOptions))
                return 0
            }
            let context = try makeContext(parsed, terminal: terminal, environment: environment, registry: registry)
            PhaseTimer.mark("arguments parsed")
            do {
                let code = try await command.run(parsed, context)
                await context.finish()
                return code
            } catch {
                await context.finish()
                throw error
            }
        } catch {
            let photon = PhotonError.wrap(error)
            report(photon, terminal: terminal, json: wantsJSON)
            return photon.exitCode
        }
    }

    /// Ends the process with `status` once `run` has returned: the terminal restored (if
    /// `photon remote` left it raw), stdio flushed, then `_exit`. The exit handlers that
    /// `exit` would run free what the kernel frees anyway (OpenSSL's tables, mostly): a
    /// third of a millisecond of every cold key. A network warm-up still running on the other
    /// core needs no waiting for either: OpenSSL's handlers never run.
    public static func exitProcess(_ status: Int32) -> Never {
        RawTerminal.restore()
        fflush(nil)
        _exit(status)
    }

    /// Runs a command line with an existing context (the demo drives commands this way).
    static func runParsed(_ arguments: [String], context: CLIContext) async throws -> Int32 {
        let parsed = try parser(for: context.registry).parse(arguments)
        guard let command = parsed.command else { throw PhotonError(.usage, "no command in \(arguments)") }
        return try await command.run(parsed, context)
    }

    static func makeContext(
        _ parsed: ParsedCommand, terminal: any Terminal, environment: EnvironmentVariables, registry: AdapterRegistry
    ) throws -> CLIContext {
        let timeout = parsed.seconds("timeout") ?? .seconds(10)
        let paths = try StorePaths.resolve(home: parsed.value("home"), environment: environment)
        return CLIContext(
            terminal: terminal, paths: paths, store: Store(paths: paths), json: parsed.flag("json"),
            log: parsed.flag("verbose") ? verboseLog(terminal) : .silent,
            timeout: timeout, registry: registry, direct: parsed.flag("direct") || environment["PHOTON_DIRECT"] == "1",
            daemonAbsent: environment["PHOTON_NO_DAEMON"] == "1")
    }

    /// The `--verbose` log: each line with the milliseconds since the command started.
    static func verboseLog(_ terminal: any Terminal) -> PhotonLog {
        let start = ContinuousClock.now
        return PhotonLog { line in
            let elapsed = (ContinuousClock.now - start).seconds * 1000
            terminal.writeError("photon: debug: +\(String(format: "%.1f", elapsed))ms \(line)\n")
        }
    }

    /// Prints an error: `photon: error: MESSAGE` and `  hint: HINT` on stderr, plus a
    /// JSON object on stdout with `--json`. Secrets are redacted from both.
    static func report(_ error: PhotonError, terminal: any Terminal, json: Bool) {
        let message = Redaction.redact(error.message)
        let hint = error.hint.map(Redaction.redact)
        var text = "photon: error: \(message)\n"
        if let hint { text += "  hint: \(hint)\n" }
        terminal.writeError(text)
        if json {
            terminal.write(
                JSONValue.object([
                    (
                        "error",
                        .object([
                            ("code", .string(error.code.rawValue)), ("message", .string(message)), ("hint", .optional(hint)),
                            ("exitCode", .int(Int(error.exitCode))),
                        ])
                    )
                ]).encoded + "\n")
        }
    }
}
