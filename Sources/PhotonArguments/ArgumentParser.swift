import PhotonCore

/// One option a command accepts: `--name VALUE`, `--flag`, or a short `-x` form. A value
/// has a type, checked when the line is parsed, before any command runs.
public struct OptionSpec: Sendable {
    public var name: String
    public var short: Character?
    public var valueName: String?
    public var type: OptionType
    public var help: String
    /// May be given more than once (values accumulate).
    public var repeatable: Bool

    public init(
        _ name: String, short: Character? = nil, value: String? = nil, type: OptionType? = nil, help: String, repeatable: Bool = false
    ) {
        self.name = name
        self.short = short
        self.valueName = value ?? type?.placeholder
        self.type = type ?? (value == nil ? .flag : .text)
        self.help = help
        self.repeatable = repeatable
    }

    var takesValue: Bool { type != .flag }
}

/// A command of the table: its words (`identity show`), arguments, options, help and
/// examples, and the code that runs it with a context of the tool's own (`Context`).
public struct CommandSpec<Context>: Sendable {
    public typealias Run = @Sendable (ParsedCommand<Context>, Context) async throws -> Int32

    public var words: [String]
    public var summary: String
    /// Positional arguments as shown in usage (`TV KEY...`).
    public var arguments: String
    public var minimumArguments: Int
    public var maximumArguments: Int?
    public var options: [OptionSpec]
    public var details: String?
    public var examples: [String]
    /// Set for commands of the contract that this build does not have yet: what they
    /// wait for. They stay in the table so users get a clear `unsupported` error.
    public var pendingReason: String?
    public var run: Run

    public init(
        _ words: [String], summary: String, arguments: String = "", minimumArguments: Int = 0,
        maximumArguments: Int? = 0, options: [OptionSpec] = [], details: String? = nil, examples: [String],
        pendingReason: String? = nil, run: @escaping Run
    ) {
        self.pendingReason = pendingReason
        self.words = words
        self.summary = summary
        self.arguments = arguments
        self.minimumArguments = minimumArguments
        self.maximumArguments = maximumArguments
        self.options = options
        self.details = details
        self.examples = examples
        self.run = run
    }

    public var name: String { words.joined(separator: " ") }
}

/// The result of parsing: which command, its positional arguments, and option values
/// (already checked against their types).
public struct ParsedCommand<Context>: Sendable {
    public var command: CommandSpec<Context>?
    public var arguments: [String]
    public var values: [String: [String]]
    public var helpRequested: Bool

    public func flag(_ name: String) -> Bool { values[name] != nil }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func allValues(_ name: String) -> [String] { values[name] ?? [] }
}

/// A small table-driven parser shared by `photon` and `photon-emulator`: global options
/// anywhere on the line, `--name=value` or `--name value`, `--` to end options, typed
/// values checked in one validate phase, and suggestions for mistyped words.
public struct ArgumentParser<Context>: Sendable {
    public let commands: [CommandSpec<Context>]
    public let globalOptions: [OptionSpec]
    /// The tool's name in messages (`photon`, `photon-emulator`).
    public let toolName: String

    public init(commands: [CommandSpec<Context>], globalOptions: [OptionSpec], toolName: String = "photon") {
        self.commands = commands
        self.globalOptions = globalOptions
        self.toolName = toolName
    }

    public func parse(_ arguments: [String]) throws -> ParsedCommand<Context> {
        var words: [String] = []
        var values: [String: [String]] = [:]
        var help = false
        var command: CommandSpec<Context>?
        var optionsEnded = false
        var index = 0

        func options() -> [OptionSpec] { globalOptions + (command?.options ?? []) }

        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                if command == nil {
                    words.append(argument)
                    command = match(words)
                    if command == nil, !commands.contains(where: { $0.words.starts(with: words) }) {
                        throw unknownCommand(words)
                    }
                    continue
                }
                values["", default: []].append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                help = true
                continue
            }
            var name: String
            var inlineValue: String?
            let spec: OptionSpec?
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq])
                    inlineValue = String(body[body.index(after: eq)...])
                } else {
                    name = String(body)
                }
                spec = options().first { $0.name == name }
            } else {
                let letters = Array(argument.dropFirst())
                guard letters.count == 1 else {
                    // A negative number is an argument (`photon volume tv -5` is not an option).
                    if Int(argument) != nil, command != nil {
                        values["", default: []].append(argument)
                        continue
                    }
                    throw PhotonError(.usage, "unknown option '\(argument)'", hint: "short options stand alone, e.g. -v")
                }
                spec = options().first { $0.short == letters[0] }
                name = spec?.name ?? String(letters[0])
            }
            if spec == nil, command?.pendingReason != nil {
                // Pending commands fail with `unsupported` whatever their options.
                continue
            }
            guard let spec else {
                let candidates = options().map { "--" + $0.name }
                let suggestion = Suggestions.closest(to: "--" + name, in: candidates).map { "did you mean \($0)? " } ?? ""
                throw PhotonError(
                    .usage, "unknown option '\(argument)'\(command.map { " for '\($0.name)'" } ?? "")",
                    hint: suggestion + "see `\(toolName) \(command?.name ?? "") --help`".replacingDoubleSpaces)
            }
            if spec.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else {
                        throw PhotonError(.usage, "--\(spec.name) needs a value (\(spec.valueName!))")
                    }
                    value = arguments[index]
                    index += 1
                }
                if !spec.repeatable, values[spec.name] != nil {
                    throw PhotonError(.usage, "--\(spec.name) was given twice")
                }
                try spec.type.validate(value, option: spec.name)
                values[spec.name, default: []].append(value)
            } else {
                guard inlineValue == nil else { throw PhotonError(.usage, "--\(spec.name) takes no value") }
                values[spec.name] = ["true"]
            }
        }

        if command == nil, !words.isEmpty, !help {
            throw PhotonError(
                .usage, "'\(toolName) \(words.joined(separator: " "))' needs a subcommand",
                hint: "one of: " + commands.filter { $0.words.starts(with: words) }.map(\.name).joined(separator: ", "))
        }
        var positional = values.removeValue(forKey: "") ?? []
        if command == nil, !words.isEmpty { positional = [] }
        if let command, !help {
            if positional.count < command.minimumArguments {
                throw PhotonError(
                    .usage, "'\(toolName) \(command.name)' needs \(command.arguments)",
                    hint: "usage: \(toolName) \(command.name) \(command.arguments)  (see --help)")
            }
            if let maximum = command.maximumArguments, positional.count > maximum {
                let extra = positional[maximum]
                throw PhotonError(
                    .usage, "unexpected argument '\(Redaction.sanitize(extra))' for '\(toolName) \(command.name)'",
                    hint: "usage: \(toolName) \(command.name) \(command.arguments)".trimmingTrailingSpace)
            }
        }
        return ParsedCommand(command: command, arguments: positional, values: values, helpRequested: help)
    }

    private func match(_ words: [String]) -> CommandSpec<Context>? {
        // A loop, not `first(where:)`: the standard library's unspecialized `first(where:)`
        // resolves its iterator's conformance at run time, a scan of every conformance
        // record in the binary (~50 µs on a cold command).
        for command in commands where command.words == words { return command }
        return nil
    }

    private func unknownCommand(_ words: [String]) -> PhotonError {
        let prefix = Array(words.dropLast())
        let level = commands.filter { $0.words.count > prefix.count && Array($0.words.prefix(prefix.count)) == prefix }
            .map { $0.words[prefix.count] }
        let typed = words.last!
        let shown = (prefix + [typed]).joined(separator: " ")
        // In the table's order, so a tie between two suggestions is always broken the same way.
        var seen = Set<String>()
        let candidates = level.filter { seen.insert($0).inserted }
        if let suggestion = Suggestions.closest(to: typed, in: candidates) {
            return PhotonError(
                .usage, "unknown command '\(toolName) \(Redaction.sanitize(shown))'",
                hint: "did you mean '\(toolName) \((prefix + [suggestion]).joined(separator: " "))'?")
        }
        return PhotonError(.usage, "unknown command '\(toolName) \(Redaction.sanitize(shown))'", hint: "see `\(toolName) --help`")
    }
}

extension String {
    public var replacingDoubleSpaces: String { replacingOccurrences(of: "  ", with: " ") }
    public var trimmingTrailingSpace: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
