import PhotonCLI
import PhotonCore
import Testing

@Suite struct ParserTests {
    let parser = PhotonCommandLine.parser()

    @Test func globalOptionsGoAnywhere() throws {
        for line in [
            ["--json", "--home", "/h", "forget", "tv"], ["forget", "--json", "tv", "--home=/h"],
            ["forget", "tv", "--home", "/h", "--json"],
        ] {
            let parsed = try parser.parse(line)
            #expect(parsed.command?.name == "forget", "\(line)")
            #expect(parsed.arguments == ["tv"])
            #expect(parsed.value("home") == "/h")
            #expect(parsed.flag("json"))
        }
        let short = try parser.parse(["-v", "list"])
        #expect(short.flag("verbose"))
    }

    /// A cold key press parses against the catalog's commands alone; every line of every
    /// command's examples (and the same lines with options moved about, a typo and `--help`)
    /// parses to exactly what the whole table gives, or fails with the same message.
    @Test func theCatalogFastPathParsesAsTheWholeTable() throws {
        func outcome(_ body: () throws -> ParsedCommand) -> String {
            do {
                let parsed = try body()
                return "\(parsed.command?.name ?? "-") \(parsed.arguments) \(parsed.values.sorted { $0.key < $1.key }) \(parsed.helpRequested)"
            } catch {
                return "error: \(error)"
            }
        }
        var lines: [[String]] = []
        for command in parser.commands {
            for example in command.examples where example.hasPrefix("photon ") && !example.contains("\"") && !example.contains("'") {
                let words = example.split(separator: " ").dropFirst().map(String.init)
                lines += [words, ["--json"] + words, words + ["--timeout", "2"], words + ["--help"], words + ["--bogus"], words + ["--version"]]
            }
        }
        lines += [["key"], ["key", "--long"], ["volume", "tv", "101"], ["key", "tv", "home", "--hold", "x"], ["kye", "tv", "home"]]
        #expect(lines.count > 100)
        for line in lines {
            #expect(outcome { try PhotonCommandLine.parse(line) } == outcome { try parser.parse(line) }, "\(line)")
        }
    }

    /// A "power on" step of a macro can be pointed at a broadcast address, as `photon power
    /// on --broadcast` can (newcomer #24); follow takes the same.
    @Test func runAndFollowTakeBroadcastAddresses() throws {
        let run = try parser.parse(["run", "den", "power on", "--broadcast", "127.0.0.1", "--broadcast", "10.0.0.255"])
        #expect(run.allValues("broadcast") == ["127.0.0.1", "10.0.0.255"] && run.arguments == ["den", "power on"])
        let follow = try parser.parse(["follow", "den", "--input", "hdmi2", "--broadcast", "127.0.0.1", "--idle", "300"])
        #expect(follow.allValues("broadcast") == ["127.0.0.1"] && follow.value("idle") == "300")
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try parser.parse(["rename", "--", "--odd-name", "new"])
        #expect(parsed.arguments == ["--odd-name", "new"])
    }

    @Test func typosGetSuggestions() {
        func usage(_ line: [String]) -> PhotonError? {
            do {
                _ = try parser.parse(line)
                return nil
            } catch { return error as? PhotonError }
        }
        #expect(usage(["idenity", "show"])?.hint == "did you mean 'photon identity'?")
        #expect(usage(["identity", "shwo"])?.hint == "did you mean 'photon identity show'?")
        #expect(usage(["lsit"])?.hint == "did you mean 'photon list'?")
        #expect(usage(["list", "--jsno"])?.hint?.hasPrefix("did you mean --json?") == true)
        #expect(usage(["frobnicate"])?.code == .usage)
        #expect(usage(["identity"])?.message.contains("needs a subcommand") == true)
        #expect(usage(["forget"])?.exitCode == 2)
        #expect(usage(["forget", "a", "b"])?.message.contains("unexpected argument 'b'") == true)
        #expect(usage(["--timeout"])?.message.contains("needs a value") == true)
        #expect(usage(["list", "--json=yes"])?.message.contains("takes no value") == true)
        #expect(usage(["list", "-xyz"])?.code == .usage)
    }

    @Test func everyCommandHasHelpWithExamples() async {
        for command in parser.commands where command.pendingReason == nil {
            let terminal = CapturingTerminal()
            let status = await PhotonCommandLine.run(command.words + ["--help"], terminal: terminal)
            #expect(status == 0)
            #expect(terminal.output.contains("Usage: photon \(command.name)"))
            #expect(terminal.output.contains("Examples:"), "\(command.name) has no examples")
        }
        let overview = CapturingTerminal()
        #expect(await PhotonCommandLine.run(["--help"], terminal: overview) == 0)
        #expect(overview.output.contains("identity show"))
        #expect(overview.output.contains("Exit codes"))
        let bare = CapturingTerminal()
        #expect(await PhotonCommandLine.run([], terminal: bare) == 2)
    }

    @Test func suggestionDistance() {
        #expect(Suggestions.distance("kitten", "sitting") == 3)
        #expect(Suggestions.closest(to: "ident", in: ["identity", "list"]) == "identity")
        #expect(Suggestions.closest(to: "zzzzzz", in: ["identity", "list"]) == nil)
    }

    @Test func jsonValuesAreEscaped() {
        let value = JSONValue.object([("name", .string("TV \"1\"\n\u{1B}[31m")), ("n", 3), ("ok", true), ("none", .null)])
        #expect(value.encoded == #"{"name":"TV \"1\"\n\u001b[31m","n":3,"ok":true,"none":null}"#)
    }
}
