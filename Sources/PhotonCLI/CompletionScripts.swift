import PhotonCore
import PhotonWire

/// `photon completions bash|zsh|fish`: completion scripts generated from the command table
/// — commands and their options, choices (brands, shells), key names, and the paired TVs'
/// nicknames, which the scripts ask `photon __complete-tvs` for (the metadata file only,
/// read by the front end in about a millisecond).
enum CompletionScripts {
    static func spec(_ registry: AdapterRegistry) -> CommandSpec {
        CommandSpec(
            ["completions"], summary: "print a shell completion script", arguments: "bash|zsh|fish", minimumArguments: 1, maximumArguments: 1,
            details: """
                Completes commands, options, brands, key names and your TVs' nicknames.
                bash: add `source <(photon completions bash)` to ~/.bashrc.
                zsh: `photon completions zsh > "${fpath[1]}/_photon"`.
                fish: `photon completions fish > ~/.config/fish/completions/photon.fish`.
                `make install` puts all three where the shells look.
                """,
            examples: ["source <(photon completions bash)", "photon completions fish > ~/.config/fish/completions/photon.fish"],
            run: { parsed, context in
                let shell = parsed.arguments[0]
                let table = CommandTable.all(context.registry)
                let model = Model(commands: table, global: PhotonCommandLine.globalOptions, brands: context.registry.ids)
                switch shell {
                case "bash": context.terminal.write(model.bash())
                case "zsh": context.terminal.write(model.zsh())
                case "fish": context.terminal.write(model.fish())
                default: throw PhotonError(.usage, "completions are for bash, zsh or fish, not '\(Redaction.sanitize(shell))'")
                }
                return 0
            })
    }

    /// What the scripts complete, from the command table.
    struct Model {
        let commands: [CommandSpec]
        let global: [OptionSpec]
        let brands: [String]

        var keyNames: [String] { RemoteKey.allCases.map(\.rawValue) }
        /// Top-level command words (`identity` once for `identity show` and `regenerate`).
        var words: [String] {
            var seen: Set<String> = []
            return commands.compactMap(\.words.first).filter { seen.insert($0).inserted }
        }

        /// What a command's positional arguments are: TV nicknames first, then key names
        /// (key), shells (completions).
        func positional(_ command: CommandSpec) -> (first: String, rest: String) {
            let arguments = command.arguments
            let first: String
            if arguments.hasPrefix("TV") || arguments.hasPrefix("[TV") { first = "tvs" }
            else if arguments.hasPrefix("bash|zsh|fish") { first = "shells" }
            else if arguments.hasPrefix("BRAND") { first = "brands" }
            else { first = "none" }
            let rest = command.words == ["key"] ? "keys" : (command.words == ["volume"] ? "volume" : "none")
            return (first, rest)
        }

        static func values(_ option: OptionSpec, brands: [String]) -> [String]? {
            if case .choice(let choices) = option.type { return choices }
            return nil
        }

        func options(_ command: CommandSpec) -> [OptionSpec] { command.options + global }

        // MARK: bash

        func bash() -> String {
            var cases: [String] = []
            for word in words {
                let specs = commands.filter { $0.words.first == word }
                let sub = specs.compactMap { $0.words.count > 1 ? $0.words[1] : nil }
                let command = specs[0]
                let options = Set(specs.flatMap { self.options($0) }.map { "--" + $0.name }).sorted().joined(separator: " ")
                let valued = Set(specs.flatMap { self.options($0) }.filter { $0.type != .flag }.map { "--" + $0.name }).sorted()
                var choiceCases = ""
                for option in specs.flatMap({ self.options($0) }) {
                    if let values = Self.values(option, brands: brands) {
                        choiceCases += "        --\(option.name)) COMPREPLY=($(compgen -W \"\(values.joined(separator: " "))\" -- \"$cur\")); return ;;\n"
                    }
                }
                let (first, rest) = positional(command)
                cases.append("""
                      \(word))
                        case "$prev" in
                    \(choiceCases)        \(valued.isEmpty ? "--photon-none-)" : valued.joined(separator: "|") + ")") return ;;
                        esac
                        if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "\(options)" -- "$cur")); return; fi
                        _photon_positional "\(sub.isEmpty ? first : "sub")" "\(rest)" "\(sub.joined(separator: " "))" " \(valued.joined(separator: " ")) "
                        ;;
                    """)
            }
            let globals = global.map { "--" + $0.name }.joined(separator: " ")
            return """
                # bash completion for photon (generated by `photon completions bash`)
                _photon_tvs() { photon \(CompletionNames.command) ${_photon_home:+--home "$_photon_home"} 2>/dev/null; }
                _photon_positional() {
                    local kind="$1" rest="$2" subs="$3" valued="$4" n=0 i
                    # Count the positional words before this one, skipping options and their values.
                    for ((i = 2; i < COMP_CWORD; i++)); do
                        if [[ "$valued" == *" ${COMP_WORDS[i]} "* ]]; then i=$((i + 1))
                        elif [[ "${COMP_WORDS[i]}" != -* ]]; then n=$((n + 1)); fi
                    done
                    [[ $n -gt 0 ]] && kind="$rest"
                    case "$kind" in
                        tvs) COMPREPLY=($(compgen -W "$(_photon_tvs)" -- "$cur")) ;;
                        keys) COMPREPLY=($(compgen -W "\(keyNames.joined(separator: " "))" -- "$cur")) ;;
                        volume) COMPREPLY=($(compgen -W "up down mute" -- "$cur")) ;;
                        shells) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")) ;;
                        brands) COMPREPLY=($(compgen -W "\(brands.joined(separator: " "))" -- "$cur")) ;;
                        sub) COMPREPLY=($(compgen -W "$subs" -- "$cur")) ;;
                    esac
                    [[ "$kind" == keys && $n -eq 0 ]] && COMPREPLY=($(compgen -W "$(_photon_tvs)" -- "$cur"))
                    return 0
                }
                _photon() {
                    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" i _photon_home=""
                    COMPREPLY=()
                    for ((i = 1; i < COMP_CWORD; i++)); do [[ "${COMP_WORDS[i]}" == --home ]] && _photon_home="${COMP_WORDS[i+1]}"; done
                    if [[ $COMP_CWORD -eq 1 ]]; then
                        COMPREPLY=($(compgen -W "\(words.joined(separator: " ")) \(globals)" -- "$cur"))
                        return 0
                    fi
                    case "${COMP_WORDS[1]}" in
                \(cases.joined(separator: "\n"))
                    esac
                    return 0
                }
                complete -F _photon photon photon-cli

                """
        }

        // MARK: zsh

        func zsh() -> String {
            func quote(_ text: String) -> String {
                text.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(of: "]", with: "\\]")
                    .replacingOccurrences(of: ":", with: "\\:")
            }
            var cases: [String] = []
            for word in words {
                let specs = commands.filter { $0.words.first == word }
                var seen: Set<String> = []
                let options = specs.flatMap { self.options($0) }.filter { seen.insert($0.name).inserted }.map { option -> String in
                    let action: String
                    if let values = Self.values(option, brands: brands) {
                        action = ":\(option.valueName ?? "VALUE"):(\(values.joined(separator: " ")))"
                    } else if option.type != .flag {
                        action = ":\(option.valueName ?? "VALUE"): "
                    } else {
                        action = ""
                    }
                    return "'--\(option.name)[\(quote(option.help))]\(action)'"
                }
                let sub = specs.compactMap { $0.words.count > 1 ? $0.words[1] : nil }
                let (first, rest) = positional(specs[0])
                let firstAction = sub.isEmpty ? Self.zshAction(first) : "(\(sub.joined(separator: " ")))"
                cases.append("""
                        \(word))
                            _arguments -s \(options.joined(separator: " ")) '1:argument:\(firstAction)' '*:argument:\(Self.zshAction(rest))' ;;
                    """)
            }
            let described = words.map { word -> String in
                let summary = commands.first { $0.words.first == word }?.summary ?? ""
                return "'\(word):\(quote(summary))'"
            }
            return """
                #compdef photon photon-cli
                # zsh completion for photon (generated by `photon completions zsh`)
                _photon_tvs() { local -a tvs; tvs=(${(f)"$(photon \(CompletionNames.command) 2>/dev/null)"}); _describe 'TV' tvs; }
                _photon() {
                    local -a commands
                    commands=(\(described.joined(separator: " ")))
                    if (( CURRENT == 2 )); then
                        _describe 'command' commands
                        return
                    fi
                    local cmd=${words[2]}
                    shift words
                    (( CURRENT-- ))
                    case $cmd in
                \(cases.joined(separator: "\n"))
                    esac
                }
                _photon "$@"

                """
        }

        static func zshAction(_ kind: String) -> String {
            switch kind {
            case "tvs": return "_photon_tvs"
            case "keys": return "(\(RemoteKey.allCases.map(\.rawValue).joined(separator: " ")))"
            case "volume": return "(up down mute)"
            case "shells": return "(bash zsh fish)"
            default: return " "
            }
        }

        // MARK: fish

        func fish() -> String {
            func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'" }
            var lines = [
                "# fish completion for photon (generated by `photon completions fish`)",
                "function __photon_tvs; photon \(CompletionNames.command) 2>/dev/null; end",
                "complete -c photon -f",
            ]
            for word in words {
                let summary = commands.first { $0.words.first == word }?.summary ?? ""
                lines.append("complete -c photon -n __fish_use_subcommand -a \(word) -d \(quote(summary))")
            }
            for option in global {
                lines.append("complete -c photon -l \(option.name)\(option.type == .flag ? "" : " -r") -d \(quote(option.help))")
            }
            for word in words {
                let specs = commands.filter { $0.words.first == word }
                let condition = "'__fish_seen_subcommand_from \(word)'"
                var seen: Set<String> = []
                for option in specs.flatMap(\.options) where seen.insert(option.name).inserted {
                    var line = "complete -c photon -n \(condition) -l \(option.name)"
                    if let values = Self.values(option, brands: brands) {
                        line += " -x -a \(quote(values.joined(separator: " ")))"
                    } else if option.type != .flag {
                        line += " -r"
                    }
                    lines.append(line + " -d \(quote(option.help))")
                }
                let sub = specs.compactMap { $0.words.count > 1 ? $0.words[1] : nil }
                let (first, rest) = positional(specs[0])
                if !sub.isEmpty {
                    lines.append("complete -c photon -n \(condition) -a \(quote(sub.joined(separator: " ")))")
                }
                switch first {
                case "tvs": lines.append("complete -c photon -n \(condition) -a '(__photon_tvs)'")
                case "shells": lines.append("complete -c photon -n \(condition) -a 'bash zsh fish'")
                default: break
                }
                if rest == "keys" { lines.append("complete -c photon -n \(condition) -a \(quote(keyNames.joined(separator: " ")))") }
                if rest == "volume" { lines.append("complete -c photon -n \(condition) -a 'up down mute'") }
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }
}
