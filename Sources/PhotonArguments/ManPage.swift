import Foundation

/// A manual page in roff (`man 7 man` macros), generated from a tool's command table so that
/// the page and `--help` cannot disagree. Used by `photon` and `photon-emulator`.
public struct ManPage: Sendable {
    /// A command as the page lists it.
    public struct Command: Sendable {
        public var usage: String
        public var summary: String
        public var options: [OptionSpec]
        public var details: String?
        public init(usage: String, summary: String, options: [OptionSpec], details: String?) {
            self.usage = usage
            self.summary = summary
            self.options = options
            self.details = details
        }
    }

    public var name: String
    public var section = 1
    public var summary: String
    public var synopsis: [String]
    public var description: [String]
    public var commands: [Command]
    public var commandsTitle = "COMMANDS"
    public var options: [OptionSpec]
    public var exitStatus: [(String, String)]
    public var files: [(String, String)]
    public var environment: [(String, String)]
    public var examples: [String]
    public var seeAlso: [String]
    public var version: String

    public init(
        name: String, summary: String, synopsis: [String], description: [String], commands: [Command], options: [OptionSpec],
        exitStatus: [(String, String)], files: [(String, String)], environment: [(String, String)], examples: [String],
        seeAlso: [String], version: String
    ) {
        self.name = name
        self.summary = summary
        self.synopsis = synopsis
        self.description = description
        self.commands = commands
        self.options = options
        self.exitStatus = exitStatus
        self.files = files
        self.environment = environment
        self.examples = examples
        self.seeAlso = seeAlso
        self.version = version
    }

    /// Text made safe for roff: backslashes, and a leading dot or quote that would start a
    /// request.
    static func escape(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\e")
            .replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "--", with: "\\-\\-")
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { return "\\&" + escaped }
        return escaped
    }

    static func option(_ option: OptionSpec) -> String {
        "\\fB\\-\\-\(option.name.replacingOccurrences(of: "-", with: "\\-"))\\fR" + (option.valueName.map { " \\fI\(escape($0))\\fR" } ?? "")
    }

    public var roff: String {
        var out: [String] = [
            ".\\\" Generated from the command table by \(name) itself; do not edit.",
            ".TH \(name.uppercased()) \(section) \"\" \"\(name) \(version)\" \"User Commands\"",
            ".SH NAME", "\(name) \\- \(Self.escape(summary))",
            ".SH SYNOPSIS",
        ]
        for line in synopsis { out += [".PP", "\\fB\(name)\\fR \(Self.escape(line))"] }
        out.append(".SH DESCRIPTION")
        for paragraph in description { out += [".PP", Self.escape(paragraph)] }
        out.append(".SH \(commandsTitle)")
        for command in commands {
            out += [".TP", "\\fB\(Self.escape(command.usage))\\fR", Self.escape(command.summary) + "."]
            if let details = command.details { out += [".RS", ".PP", Self.escape(details), ".RE"] }
            for option in command.options {
                out += [".RS", ".TP", Self.option(option), Self.escape(option.help), ".RE"]
            }
        }
        out.append(".SH OPTIONS")
        for option in options { out += [".TP", Self.option(option), Self.escape(option.help)] }
        out.append(".SH EXIT STATUS")
        for (code, meaning) in exitStatus { out += [".TP", "\\fB\(code)\\fR", Self.escape(meaning)] }
        out.append(".SH FILES")
        for (path, meaning) in files { out += [".TP", "\\fI\(Self.escape(path))\\fR", Self.escape(meaning)] }
        out.append(".SH ENVIRONMENT")
        for (name, meaning) in environment { out += [".TP", "\\fB\(name)\\fR", Self.escape(meaning)] }
        out.append(".SH EXAMPLES")
        for example in examples { out += [".PP", ".nf", "\\f(CW" + Self.escape(example) + "\\fR", ".fi"] }
        if !seeAlso.isEmpty {
            out += [
                ".SH SEE ALSO",
                seeAlso.map { "\\fB\($0.split(separator: "(").first ?? "")\\fR(\($0.split(separator: "(").last?.dropLast() ?? "1"))" }.joined(
                    separator: ", "),
            ]
        }
        return out.joined(separator: "\n") + "\n"
    }
}
