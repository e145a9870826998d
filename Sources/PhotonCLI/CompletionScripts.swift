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
            if arguments.hasPrefix("TV") || arguments.hasPrefix("[TV") {
                first = "tvs"
            } else if arguments.hasPrefix("bash|zsh|fish") {
                first = "shells"
            } else if arguments.hasPrefix("BRAND") {
                first = "brands"
            } else {
                first = "none"
            }
            let word = command.words.first ?? ""
            let rest = word == "key" ? "keys" : argumentValues(word).isEmpty ? "none" : "v_\(word)"
            return (first, rest)
        }

        /// The fixed values the argument after the TV takes: the catalog entry's
        /// completions (`volume`: up down mute), the app catalog for launch, and power's
        /// targets.
        static func argumentValues(_ word: String) -> [String] {
            // launch: the app catalog's names, as every brand takes them (newcomer #31).
            if word == "launch" { return AppCatalog.entries.map(\.key) }
            if let entry = CommandCatalog.entry(named: word), entry.name == word { return entry.completions }
            if word == "power" { return PowerTarget.allCases.map(\.rawValue) }
            return []
        }

        func argumentValues(_ word: String) -> [String] { Self.argumentValues(word) }

        /// Every command word whose argument has fixed values, with them.
        var valuedWords: [(word: String, values: [String])] {
            words.map { ($0, argumentValues($0)) }.filter { !$0.values.isEmpty }
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
                        choiceCases +=
                            "        --\(option.name)) COMPREPLY=($(compgen -W \"\(values.joined(separator: " "))\" -- \"$cur\")); return ;;\n"
                    }
                }
                let (first, rest) = positional(command)
                cases.append(
                    """
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
            let globalValued = global.filter { $0.type != .flag }.map { "--" + $0.name }.joined(separator: " ")
            return """
                # bash completion for photon (generated by `photon completions bash`)
                _photon_tvs() { photon \(CompletionNames.command) ${_photon_home:+--home "$_photon_home"} 2>/dev/null; }
                # Nicknames are matched in a loop, never given to `compgen -W`, which would
                # expand a `$(…)` inside one.
                _photon_match_tvs() {
                    local name
                    while IFS= read -r name; do [[ -n "$name" && "$name" == "$cur"* ]] && COMPREPLY+=("$name"); done < <(_photon_tvs)
                }
                _photon_positional() {
                    local kind="$1" rest="$2" subs="$3" valued="$4" n=0 i
                    # Count the positional words before this one, skipping options and their values.
                    for ((i = _photon_cmd + 1; i < COMP_CWORD; i++)); do
                        if [[ "$valued" == *" ${COMP_WORDS[i]} "* ]]; then i=$((i + 1))
                        elif [[ "${COMP_WORDS[i]}" != -* ]]; then n=$((n + 1)); fi
                    done
                    [[ $n -gt 0 ]] && kind="$rest"
                    case "$kind" in
                        tvs) _photon_match_tvs ;;
                        keys) COMPREPLY=($(compgen -W "\(keyNames.joined(separator: " "))" -- "$cur")) ;;
                        \(valuedWords.map { "v_\($0.word)) [[ $n -eq 1 ]] && COMPREPLY=($(compgen -W \"\($0.values.joined(separator: " "))\" -- \"$cur\")) ;;" }.joined(separator: "\n        "))
                        shells) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")) ;;
                        brands) COMPREPLY=($(compgen -W "\(brands.joined(separator: " "))" -- "$cur")) ;;
                        sub) COMPREPLY=($(compgen -W "$subs" -- "$cur")) ;;
                    esac
                    [[ "$kind" == keys && $n -eq 0 ]] && { COMPREPLY=(); _photon_match_tvs; }
                    return 0
                }
                _photon() {
                    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" i _photon_home="" _photon_cmd=0
                    COMPREPLY=()
                    for ((i = 1; i < COMP_CWORD; i++)); do [[ "${COMP_WORDS[i]}" == --home ]] && _photon_home="${COMP_WORDS[i+1]}"; done
                    # The command word: the first word past the global options and their values.
                    for ((i = 1; i < COMP_CWORD; i++)); do
                        if [[ " \(globalValued) " == *" ${COMP_WORDS[i]} "* ]]; then i=$((i + 1))
                        elif [[ "${COMP_WORDS[i]}" != -* ]]; then _photon_cmd=$i; break; fi
                    done
                    if [[ $_photon_cmd -eq 0 ]]; then
                        case "$prev" in \(global.filter { $0.type != .flag }.map { "--" + $0.name }.joined(separator: "|"))) return 0 ;; esac
                        COMPREPLY=($(compgen -W "\(words.joined(separator: " ")) \(globals)" -- "$cur"))
                        return 0
                    fi
                    case "${COMP_WORDS[_photon_cmd]}" in
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
                text.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(
                    of: "]", with: "\\]"
                )
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
                cases.append(
                    """
                        \(word))
                            _arguments -s \(options.joined(separator: " ")) '1:argument:\(firstAction)' '*:argument:\(Self.zshAction(rest))' ;;
                    """)
            }
            let described = words.map { word -> String in
                let summary = commands.first { $0.words.first == word }?.summary ?? ""
                return "'\(word):\(quote(summary))'"
            }
            let globalOptions = global.map { option -> String in
                "'--\(option.name)[\(quote(option.help))]\(option.type == .flag ? "" : ":\(option.valueName ?? "VALUE"): ")'"
            }
            let globalValued = global.filter { $0.type != .flag }.map { "--" + $0.name }
            return """
                #compdef photon photon-cli
                # zsh completion for photon (generated by `photon completions zsh`)
                # Nicknames are one per line from the store's metadata file (of --home's store
                # when the command line names one), offered as data.
                _photon_tvs() {
                    local -a tvs home_args
                    [[ -n $_photon_home ]] && home_args=(--home "$_photon_home")
                    tvs=(${(f)"$(photon \(CompletionNames.command) "${home_args[@]}" 2>/dev/null)"})
                    _describe 'TV' tvs
                }
                _photon() {
                    local -a commands
                    local i=2 _photon_home=""
                    commands=(\(described.joined(separator: " ")))
                    # The command word: the first word past the global options and their values.
                    while (( i < CURRENT )); do
                        case ${words[i]} in
                            --home) _photon_home=${(Q)words[i+1]}; (( i += 2 )) ;;
                            \(globalValued.isEmpty ? "--photon-none-" : globalValued.joined(separator: "|"))) (( i += 2 )) ;;
                            -*) (( i += 1 )) ;;
                            *) break ;;
                        esac
                    done
                    if (( i >= CURRENT )); then
                        if [[ ${words[CURRENT]} == -* ]]; then
                            _arguments \(globalOptions.joined(separator: " "))
                        else
                            _describe 'command' commands
                        fi
                        return
                    fi
                    local cmd=${words[i]}
                    words=("${(@)words[i,-1]}")
                    (( CURRENT -= i - 1 ))
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
            case let valued where valued.hasPrefix("v_"): return "(\(argumentValues(String(valued.dropFirst(2))).joined(separator: " ")))"
            case "shells": return "(bash zsh fish)"
            default: return " "
            }
        }

        // MARK: fish

        func fish() -> String {
            func quote(_ text: String) -> String {
                "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
            }
            let globalValued = global.filter { $0.type != .flag }.map { "--" + $0.name }.joined(separator: " ")
            let allValued = Set((global + commands.flatMap(\.options)).filter { $0.type != .flag }.map { "--" + $0.name }).sorted()
                .joined(separator: " ")
            var lines = [
                "# fish completion for photon (generated by `photon completions fish`)",
                "# The command word is the first past the global options and their values; the",
                "# TVs are those of --home's store when the command line names one.",
                "function __photon_command",
                "    set -l tokens (commandline -opc)",
                "    set -l i 2",
                "    while test $i -le (count $tokens)",
                "        switch $tokens[$i]",
                "            case \(globalValued.isEmpty ? "--photon-none-" : globalValued)",
                "                set i (math $i + 2)",
                "            case '-*'",
                "                set i (math $i + 1)",
                "            case '*'",
                "                echo $tokens[$i]",
                "                return 0",
                "        end",
                "    end",
                "    return 1",
                "end",
                "# How many arguments the command has before the word being completed (options",
                "# and their values skipped).",
                "function __photon_arguments",
                "    set -l tokens (commandline -opc)",
                "    set -l seen 0",
                "    set -l n 0",
                "    set -l i 2",
                "    while test $i -le (count $tokens)",
                "        switch $tokens[$i]",
                "            case \(allValued)",
                "                set i (math $i + 1)",
                "            case '-*'",
                "            case '*'",
                "                if test $seen = 1",
                "                    set n (math $n + 1)",
                "                else",
                "                    set seen 1",
                "                end",
                "        end",
                "        set i (math $i + 1)",
                "    end",
                "    echo $n",
                "end",
                "function __photon_needs_command; not __photon_command >/dev/null; end",
                // Quoted: with no command yet, a bare `test = key` would be an error on every Tab.
                "function __photon_using; set -l word (__photon_command); and test \"$word\" = $argv[1]; end",
                "function __photon_tvs",
                "    set -l tokens (commandline -opc)",
                "    set -l home",
                "    set -l at (contains -i -- --home $tokens)",
                "    and set home --home $tokens[(math $at + 1)]",
                "    photon \(CompletionNames.command) $home 2>/dev/null",
                "end",
                "complete -c photon -f",
            ]
            for word in words {
                let summary = commands.first { $0.words.first == word }?.summary ?? ""
                lines.append("complete -c photon -n __photon_needs_command -a \(word) -d \(quote(summary))")
            }
            for option in global {
                lines.append("complete -c photon -l \(option.name)\(option.type == .flag ? "" : " -r") -d \(quote(option.help))")
            }
            for word in words {
                let specs = commands.filter { $0.words.first == word }
                let condition = "'__photon_using \(word)'"
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
                // The first argument, then the rest (after `photon key TV`, key names).
                let atFirst = "'__photon_using \(word); and test (__photon_arguments) = 0'"
                let pastFirst = "'__photon_using \(word); and test (__photon_arguments) -ge 1'"
                if !sub.isEmpty {
                    lines.append("complete -c photon -n \(atFirst) -a \(quote(sub.joined(separator: " ")))")
                }
                switch first {
                case "tvs": lines.append("complete -c photon -n \(atFirst) -a '(__photon_tvs)'")
                case "shells": lines.append("complete -c photon -n \(atFirst) -a 'bash zsh fish'")
                case "brands": lines.append("complete -c photon -n \(atFirst) -a \(quote(brands.joined(separator: " ")))")
                default: break
                }
                if rest == "keys" { lines.append("complete -c photon -n \(pastFirst) -a \(quote(keyNames.joined(separator: " ")))") }
                let atSecond = "'__photon_using \(word); and test (__photon_arguments) = 1'"
                let values = argumentValues(word)
                if !values.isEmpty { lines.append("complete -c photon -n \(atSecond) -a \(quote(values.joined(separator: " ")))") }
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }
}
