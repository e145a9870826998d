import Foundation
import PhotonCore
import PhotonKit

/// `photon run TV STEP...` and `photon macro save|list|show|delete`: macros, each step its
/// own router command; through `photon serve` the daemon runs the whole macro as one request.
enum MacroCommands {
    static let specs: [CommandSpec] = [
        CommandSpec(
            ["run"], summary: "run a macro: steps in order, the first failure stops it", arguments: "TV [STEP|@NAME]...",
            minimumArguments: 1, maximumArguments: nil,
            options: [
                OptionSpec("file", short: "f", value: "FILE", help: "read steps from FILE, one per line (# comments)", repeatable: true),
                OptionSpec(
                    "broadcast", value: "ADDR",
                    help: "for a \"power on\" step: where to send Wake-on-LAN (repeatable; default every broadcast address)",
                    repeatable: true),
            ],
            details: """
                Each STEP is one argument: "key home", "key down down select", "text the expanse", "launch youtube", "volume 12", \
                "input hdmi2", "channel 7", "search …", "notify …", "screen off", "power on", "wait 500ms", "wait-for app youtube 10s", \
                "wait-for power on 20s". @NAME runs a saved macro's steps (`photon macro save`). Every step is checked before \
                anything is sent; each command is its own router command (own id, own expiry, no retry). The first failed step \
                stops the macro, nothing after it is sent, and the exit code is that step's (a wait-for that times out: 3). \
                --json prints one result per step. Through photon serve the daemon runs the macro itself: it goes on to its end \
                even if this command is interrupted.
                """,
            examples: [
                "photon run den \"power on\" \"wait-for power on 20s\" \"launch youtube\" \"wait-for app youtube 10s\" \"key select\"",
                "photon run den -f movie-night.txt", "photon run den @movie-night",
            ],
            run: run),
        CommandSpec(
            ["macro", "save"], summary: "save a macro under a name, its steps as arguments or from a file", arguments: "NAME [STEP...]",
            minimumArguments: 1, maximumArguments: nil,
            options: [OptionSpec("file", short: "f", value: "FILE", help: "the macro file (- for standard input)")],
            details: "Every step is checked first. Saved macros run with `photon run TV @NAME` and appear as buttons in Home Assistant.",
            examples: [
                "photon macro save movie-night \"launch youtube\" \"wait 1s\" \"key select\"", "photon macro save movie-night -f movie-night.txt",
            ],
            run: save),
        CommandSpec(["macro", "list"], summary: "list the saved macros", examples: ["photon macro list"], run: list),
        CommandSpec(
            ["macro", "show"], summary: "print a saved macro", arguments: "NAME", minimumArguments: 1, maximumArguments: 1,
            examples: ["photon macro show movie-night"], run: show),
        CommandSpec(
            ["macro", "delete"], summary: "delete a saved macro", arguments: "NAME", minimumArguments: 1, maximumArguments: 1,
            examples: ["photon macro delete movie-night"], run: delete),
    ]

    static func library(_ context: CLIContext) -> MacroLibrary { MacroLibrary(paths: context.paths) }

    static func readFile(_ path: String) throws -> String {
        if path == "-" {
            return String(decoding: FileHandle.standardInput.readDataToEndOfFile().prefix(256 * 1024), as: UTF8.self)
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw PhotonError(.usage, "cannot read the macro file \(path)") }
        guard data.count <= 256 * 1024 else { throw PhotonError(.usage, "\(path) is larger than 256 KiB") }
        return String(decoding: data, as: UTF8.self)
    }

    /// The steps of the command line: arguments, @NAMEs and files, in that order.
    static func macro(_ parsed: ParsedCommand, _ context: CLIContext) throws -> Macro {
        var texts: [String] = []
        for argument in parsed.arguments.dropFirst() {
            if argument.hasPrefix("@") {
                texts += try library(context).macro(String(argument.dropFirst())).steps.map(\.text)
            } else {
                texts.append(argument)
            }
        }
        for path in parsed.allValues("file") { texts += try Macro(file: try readFile(path)).steps.map(\.text) }
        return try Macro(steps: texts)
    }

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let tv = parsed.arguments[0]
        let macro = try self.macro(parsed, context)
        let control = try await context.control()
        let catalog = await StatusCommand.appCatalog(of: tv, context)
        let wake = WakeRequest(destinations: parsed.allValues("broadcast"))
        let results = try await control.runMacro(macro, on: tv, lifetime: min(context.timeout, .seconds(10)), wake: wake, catalog: catalog)
        for result in results {
            if context.json {
                context.emit(ServiceProtocol.json(result), text: nil)
            } else if result.ok {
                context.terminal.write("✓ \(result.index). \(Redaction.sanitize(result.text, limit: 80)) (\(result.milliseconds) ms)\n")
            }
        }
        guard let failed = results.first(where: { !$0.ok }), let error = failed.error else { return 0 }
        let skipped = macro.steps.count - failed.index
        throw PhotonError(
            error.code,
            "step \(failed.index) (\(Redaction.sanitize(failed.text, limit: 60))) failed: \(error.message)"
                + (skipped > 0 ? "; the \(skipped) step\(skipped == 1 ? "" : "s") after it were not run" : ""),
            hint: error.hint)
    }

    static func save(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let name = parsed.arguments[0]
        let steps = Array(parsed.arguments.dropFirst())
        let text: String
        switch (parsed.value("file"), steps.isEmpty) {
        case (let path?, true): text = try readFile(path)
        case (nil, false): text = steps.joined(separator: "\n") + "\n"
        case (_?, false): throw PhotonError(.usage, "give the steps or a file (-f), not both")
        case (nil, true):
            throw PhotonError(
                .usage, "give the macro's steps",
                hint:
                    "as arguments, as `photon run` takes them: photon macro save \(name) \"launch youtube\" \"wait 1s\"; or from a file: -f FILE (- for standard input)"
            )
        }
        try library(context).save(name, text: text)
        // A running daemon republishes its Home Assistant buttons.
        await (try? context.control())?.storeChanged()
        let count = try Macro(file: text).steps.count
        context.emit(.object([("saved", .string(name)), ("steps", .int(count))]), text: "Saved \(name) (\(count) steps): photon run TV @\(name)")
        return 0
    }

    static func list(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        for name in try library(context).names() { context.emit(.object([("name", .string(name))]), text: name) }
        return 0
    }

    static func show(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let text = try library(context).text(parsed.arguments[0])
        if context.json {
            let steps = try Macro(file: text).steps.map { JSONValue.string($0.text) }
            context.emit(.object([("name", .string(parsed.arguments[0])), ("steps", .array(steps))]), text: nil)
        } else {
            // Line by line: a control character in the file is shown escaped, never run by the terminal.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Redaction.sanitize(String($0), limit: 1024) }
            context.terminal.write(lines.joined(separator: "\n") + (text.hasSuffix("\n") ? "" : "\n"))
        }
        return 0
    }

    static func delete(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        try library(context).delete(parsed.arguments[0])
        await (try? context.control())?.storeChanged()
        context.emit(.object([("deleted", .string(parsed.arguments[0]))]), text: "Deleted \(parsed.arguments[0]).")
        return 0
    }
}
