import Foundation
import PhotonCore
import PhotonEmulatorPlugins
import PhotonPlugins
import PhotonStore
import PhotonTestSupport
import Testing

/// Shell completions (bash sourced and its function called), man pages rendered by
/// `man -l` without a warning, and `scripts/install.sh` (what `make install` runs after the
/// release build) laying everything out under a prefix.
@Suite(.serialized) struct InstallTests {
    /// Runs bash with the completion script sourced and prints what `_photon` offers for
    /// each line of `lines` (words separated by spaces; a trailing space means an empty
    /// word to complete).
    func complete(_ script: String, _ lines: [String], home: URL) throws -> [String] {
        let dir = try TestEnvironment.temporaryDirectory("photon-completion")
        let scriptFile = dir.appendingPathComponent("photon.bash")
        try script.write(to: scriptFile, atomically: true, encoding: .utf8)
        var driver = "export PATH=\(TestEnvironment.repositoryRoot.appendingPathComponent(".build/debug").path):$PATH\nsource \(scriptFile.path)\n"
        driver +=
            "comp() { read -ra COMP_WORDS <<< \"$1\"; [[ \"$1\" == *' ' ]] && COMP_WORDS+=(''); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _photon; echo \"${COMPREPLY[*]}\"; }\n"
        for line in lines { driver += "comp '\(line.replacingOccurrences(of: "HOME", with: home.path))'\n" }
        let driverFile = dir.appendingPathComponent("driver.sh")
        try driver.write(to: driverFile, atomically: true, encoding: .utf8)
        let result = try TestEnvironment.run("/bin/bash", [driverFile.path])
        #expect(result.status == 0, "\(result.output)")
        return result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func home(withTVs names: [String]) async throws -> URL {
        let home = try TestEnvironment.temporaryDirectory("photon-completion-home")
        let store = Store(paths: StorePaths(home: home))
        for (index, name) in names.enumerated() {
            try await store.save(
                PairedTV(
                    device: DeviceRecord(id: "roku-\(index)", nickname: name, brand: "roku", host: "127.0.0.\(index + 2)", port: 8060),
                    secrets: DeviceSecrets(values: ["token": "SECRET-\(index)"])))
        }
        return home
    }

    @Test func bashCompletesCommandsOptionsBrandsKeysAndTVs() async throws {
        let home = try await home(withTVs: ["den", "living-room"])
        let script = try TestEnvironment.run(try AndroidTVEndToEndTests.binary("photon"), ["completions", "bash"])
        #expect(script.status == 0)
        let offered = try complete(
            script.output,
            [
                "photon ke", "photon key --home HOME ", "photon key --home HOME den vol", "photon pair --bra", "photon pair --brand ",
                "photon completions ", "photon identity ", "photon volume --home HOME den ", "photon doctor --home HOME ",
                "photon remote --home HOME l",
                "photon input --home HOME den h", "photon input --home HOME den hdmi2 ", "photon launch --home HOME den net",
            ], home: home)
        #expect(offered[0] == "key keys")
        #expect(offered[1] == "den living-room")
        #expect(offered[2] == "volume-up volume-down")
        #expect(offered[3] == "--brand")
        // Every registered brand, in registration order (no test names the brands).
        #expect(offered[4] == BuiltInEmulators.all.map(\.adapter.id).joined(separator: " "))
        #expect(offered[5] == "bash zsh fish")
        #expect(offered[6] == "show regenerate")
        #expect(offered[7] == "up down mute")
        #expect(offered[8] == "den living-room")
        #expect(offered[9] == "living-room")
        #expect(offered[10] == "hdmi1 hdmi2 hdmi3 hdmi4")
        #expect(offered[11] == "", "input takes one name")
        // launch: the app catalog's names (newcomer #31).
        #expect(offered[12] == "netflix")
    }

    /// A nickname is data, never shell code: one holding `$(…)` is offered as it is and
    /// runs nothing. And the command is found past global options (`--home DIR key …`).
    @Test func bashCompletionRunsNothingFromANicknameAndSkipsGlobalOptions() async throws {
        let marker = try TestEnvironment.temporaryDirectory("photon-completion-marker").appendingPathComponent("ran")
        let home = try await home(withTVs: ["den", "x$(touch \(marker.path))"])
        let script = try TestEnvironment.run(try AndroidTVEndToEndTests.binary("photon"), ["completions", "bash"])
        let offered = try complete(
            script.output,
            [
                "photon key --home HOME ", "photon --home HOME key ", "photon --home HOME key de", "photon --timeout 3 --home HOME volume den ",
                "photon --home HOME ke",
            ], home: home)
        #expect(!FileManager.default.fileExists(atPath: marker.path), "completion ran a nickname")
        // Offered literally, or (names the completion helper will not print) not at all.
        #expect(offered[0] == "den" || offered[0].hasPrefix("den x$(touch"), "\(offered[0])")
        #expect(offered[1] == offered[0], "\(offered[1])")
        #expect(offered[2] == "den")
        #expect(offered[3] == "up down mute")
        #expect(offered[4] == "key keys")
    }

    /// zsh, as its completion system calls `_photon`: `_describe` and `_arguments` stand
    /// in for the real ones and print what they were given, so the test sees which
    /// command word the script found past the global options, and which TVs it lists.
    @Test func zshFindsTheCommandPastGlobalOptionsAndListsThatHomesTVs() async throws {
        let home = try await home(withTVs: ["den", "living-room"])
        let script = try TestEnvironment.run(try AndroidTVEndToEndTests.binary("photon"), ["completions", "zsh"])
        let dir = try TestEnvironment.temporaryDirectory("photon-zsh")
        let scriptFile = dir.appendingPathComponent("_photon")
        try script.output.write(to: scriptFile, atomically: true, encoding: .utf8)
        let driver = """
            export PATH=\(TestEnvironment.repositoryRoot.appendingPathComponent(".build/debug").path):$PATH
            _describe() { local -a offered; offered=("${(@P)2}"); print -r -- "describe $1: ${(j: :)${(@)offered%%:*}}" }
            _arguments() { print -r -- "arguments ${words[1]} at $CURRENT" }
            comp() { words=(${(z)1}); [[ $1 == *' ' ]] && words+=(''); CURRENT=${#words}; _photon }
            source \(scriptFile.path) >/dev/null 2>&1
            comp 'photon --home \(home.path) ke'
            comp 'photon --home \(home.path) key '
            comp 'photon --timeout 3 --home \(home.path) volume den '
            comp 'photon --home \(home.path) --'
            _photon_home=\(home.path) _photon_tvs
            """
        let driverFile = dir.appendingPathComponent("driver.zsh")
        try driver.write(to: driverFile, atomically: true, encoding: .utf8)
        let result = try TestEnvironment.run("/usr/bin/zsh", ["-f", driverFile.path])
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(result.status == 0 && lines.count == 5, "\(result.output)")
        guard lines.count == 5 else { return }
        #expect(lines[0].hasPrefix("describe command: ") && lines[0].contains(" key ") && lines[0].contains(" remote "), "\(lines[0])")
        #expect(lines[1] == "arguments key at 2", "\(lines[1])")
        #expect(lines[2] == "arguments volume at 3", "\(lines[2])")
        // An option before any command: the global options' _arguments, not a command's.
        #expect(lines[3] == "arguments photon at 4", "\(lines[3])")
        #expect(lines[4] == "describe TV: den living-room", "\(lines[4])")
    }

    /// fish asked for completions of whole command lines (`complete -C`), global options
    /// first.
    @Test func fishFindsTheCommandPastGlobalOptionsAndListsThatHomesTVs() async throws {
        let home = try await home(withTVs: ["den", "living-room"])
        let script = try TestEnvironment.run(try AndroidTVEndToEndTests.binary("photon"), ["completions", "fish"])
        let dir = try TestEnvironment.temporaryDirectory("photon-fish")
        let scriptFile = dir.appendingPathComponent("photon.fish")
        try script.output.write(to: scriptFile, atomically: true, encoding: .utf8)
        func offered(_ line: String) throws -> [String] {
            let command =
                "set -gx PATH \(TestEnvironment.repositoryRoot.appendingPathComponent(".build/debug").path) $PATH; "
                + "source \(scriptFile.path); complete -C '\(line)'"
            let result = try TestEnvironment.run("/usr/bin/fish", ["--no-config", "-c", command])
            #expect(result.status == 0, "\(result.output)")
            // fish prints a script's errors and still completes: none may be printed.
            #expect(!result.output.contains("in function"), "fish reported errors: \(result.output.prefix(400))")
            return result.output.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try offered("photon --home \(home.path) key ") == ["den", "living-room"])
        #expect(try offered("photon key --home \(home.path) den vol").sorted() == ["volume-down", "volume-up"])
        #expect(try offered("photon --timeout 3 --home \(home.path) ke").contains("key"))
        #expect(try offered("photon --timeout 3 --home \(home.path) volume den ").sorted() == ["down", "mute", "up"])
        #expect(try offered("photon --home \(home.path) ").contains("remote"))
    }

    @Test func nicknamesComeFastFromTheMetadataFileAlone() async throws {
        let home = try await home(withTVs: ["b-tv", "a-tv"])
        // The secrets file is garbage: completion must not even read it.
        try Data("not json".utf8).write(to: StorePaths(home: home).secretsFile)
        for binary in ["photon", "photon-cli"] {
            let result = try TestEnvironment.run(try AndroidTVEndToEndTests.binary(binary), ["__complete-tvs", "--home", home.path])
            #expect(result.status == 0)
            #expect(result.output == "a-tv\nb-tv\n", "\(binary)")
        }
        // No store: nothing, and no error.
        let empty = try TestEnvironment.temporaryDirectory("photon-completion-none")
        #expect(try TestEnvironment.run(try AndroidTVEndToEndTests.binary("photon"), ["__complete-tvs", "--home", empty.path]).output == "")
    }

    @Test func zshAndFishScriptsAreGeneratedFromTheSameTable() throws {
        let zsh = try TestEnvironment.run(try AndroidTVEndToEndTests.binary("photon"), ["completions", "zsh"])
        #expect(zsh.output.hasPrefix("#compdef photon"))
        #expect(zsh.output.contains("remote:") && zsh.output.contains("doctor:") && zsh.output.contains("_photon_tvs"))
        let fish = try TestEnvironment.run(try AndroidTVEndToEndTests.binary("photon"), ["completions", "fish"])
        #expect(fish.output.contains("-a remote") && fish.output.contains("__photon_tvs") && fish.output.contains("play-pause"))
        let bad = try TestEnvironment.run(try AndroidTVEndToEndTests.binary("photon"), ["completions", "tcsh"])
        #expect(bad.status == 2)
    }

    @Test func installLaysOutBinariesManPagesCompletionsAndTheUnit() async throws {
        let prefix = try TestEnvironment.temporaryDirectory("photon-prefix")
        let script = TestEnvironment.repositoryRoot.appendingPathComponent("scripts/install.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = [prefix.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["PHOTON_BUILD_DIR": ".build/debug"]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        try TestEnvironment.launch(process)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        for binary in ["photon", "photon-cli", "photon-emulator"] {
            #expect(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/\(binary)").path), "\(binary)")
        }
        let unit = try String(contentsOf: prefix.appendingPathComponent("lib/systemd/user/photon.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix.path)/bin/photon serve"))
        // It starts after a reboot: the runtime directory is systemd's to make, and every
        // path it may not find yet is optional.
        #expect(unit.contains("RuntimeDirectory=photon") && unit.contains("RuntimeDirectoryMode=0700"))
        for line in unit.split(separator: "\n") where line.hasPrefix("ReadWritePaths=") {
            for path in line.dropFirst("ReadWritePaths=".count).split(separator: " ") {
                #expect(path.hasPrefix("-"), "\(path) is not optional")
                #expect(!path.contains("%t"), "\(path): the runtime directory comes from RuntimeDirectory=")
            }
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let unitPath = prefix.appendingPathComponent("lib/systemd/user/photon.service").path
            let verify = try TestEnvironment.run("/bin/sh", ["-c", "systemd-analyze verify '\(unitPath)' 2>&1"])
            #expect(verify.status == 0 && verify.output.isEmpty, "\(verify.output)")
        }
        // `photon follow TV` as a user unit, one instance per TV.
        let follow = try String(contentsOf: prefix.appendingPathComponent("lib/systemd/user/photon-follow@.service"), encoding: .utf8)
        #expect(follow.contains("ExecStart=\(prefix.path)/bin/photon follow %i"))
        for line in follow.split(separator: "\n") where line.hasPrefix("ReadWritePaths=") {
            for path in line.dropFirst("ReadWritePaths=".count).split(separator: " ") { #expect(path.hasPrefix("-"), "\(path) is not optional") }
        }
        // The installed front end finds the installed photon-cli beside it.
        let version = try TestEnvironment.run(prefix.appendingPathComponent("bin/photon").path, ["--version"])
        #expect(version.output.hasPrefix("photon "))
        // Man pages: every required section, and `man -l` renders them without a warning.
        for page in ["photon", "photon-emulator"] {
            let path = prefix.appendingPathComponent("share/man/man1/\(page).1").path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "EXIT STATUS", "FILES", "ENVIRONMENT", "EXAMPLES"] {
                #expect(text.contains(".SH \(section)"), "\(page): \(section)")
            }
            let rendered = try TestEnvironment.run("/bin/sh", ["-c", "MANWIDTH=80 man --warnings -E UTF-8 -l '\(path)' 2>&1 >/dev/null"])
            #expect(rendered.status == 0 && rendered.output.isEmpty, "\(page): \(rendered.output)")
            let plain = try TestEnvironment.run("/bin/sh", ["-c", "MANWIDTH=80 man -l '\(path)' 2>/dev/null"])
            #expect(plain.output.contains("EXIT STATUS") && !plain.output.contains("\\-"), "\(page)")
        }
        let manual = try TestEnvironment.run("/bin/sh", ["-c", "MANWIDTH=100 man -l '\(prefix.path)/share/man/man1/photon.1' 2>/dev/null"])
        for command in ["photon remote TV", "photon doctor [TV|ADDRESS]", "photon completions bash|zsh|fish", "photon pair ADDRESS"] {
            #expect(manual.output.contains(command), "\(command)")
        }
        // The installed bash completion works when sourced.
        let completion = try String(contentsOf: prefix.appendingPathComponent("share/bash-completion/completions/photon"), encoding: .utf8)
        let offered = try complete(completion, ["photon doc"], home: prefix)
        #expect(offered[0] == "doctor")
    }
}

/// `sudo make install` copies what the user built and compiles nothing as root in the
/// user's checkout (SWIFT=/bin/false fails any compile it would start).
@Suite struct SudoInstallTests {
    @Test func sudoMakeInstallNeverCompiles() throws {
        guard geteuid() == 0 else { return }
        let prefix = try TestEnvironment.temporaryDirectory("photon-sudo-prefix")
        let result = try TestEnvironment.run(
            "/bin/sh",
            ["-c", "cd '\(TestEnvironment.repositoryRoot.path)' && SUDO_USER=nobody make -s install PREFIX='\(prefix.path)' SWIFT=/bin/false 2>&1"])
        if result.status == 0 {
            #expect(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("bin/photon").path))
        } else {
            #expect(result.output.contains("make release"), "\(result.output)")
        }
    }
}
