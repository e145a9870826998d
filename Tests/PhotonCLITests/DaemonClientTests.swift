import Foundation
import Glibc
import PhotonCore
import PhotonKit
import PhotonService
import PhotonStore
import PhotonTestSupport
import Testing

/// The clients of `photon serve`: the `photon` front end and `status --watch`.
extension DaemonTests {
    @Test func frontEndAnswersSimpleCommandsItselfAndHandsOnTheRest() async throws {
        let setup = try await setUp()
        defer { setup.stop() }
        // The front end alone, without photon-cli beside it: what it cannot answer fails
        // with "cannot run photon-cli", so each outcome shows who answered.
        let alone = try TestEnvironment.temporaryDirectory("photon-front")
        let front = alone.appendingPathComponent("photon").path
        try FileManager.default.copyItem(atPath: try AndroidTVEndToEndTests.binary("photon"), toPath: front)
        func frontEnd(_ arguments: [String], environment: [String: String]? = nil) async throws -> TestProcess {
            let p = try TestProcess(front, arguments + ["--home", setup.home.path], environment: environment)
            p.closeStandardInput()
            _ = await p.waitForExit()
            return p
        }

        let key = try await frontEnd(["key", "tv", "VOLUME_UP", "--json"])
        #expect(key.process.terminationStatus == 0, "\(key.standardError)")
        #expect(key.standardOutput == "{\"sent\":[\"volume-up\"]}\n")
        // PHOTON_TIMINGS on this path times the front end's own phases (newcomer #30).
        var timed = ProcessInfo.processInfo.environment
        timed["PHOTON_TIMINGS"] = "1"
        let timing = try await frontEnd(["key", "tv", "VOLUME_UP"], environment: timed)
        #expect(timing.process.terminationStatus == 0, "\(timing.standardError)")
        #expect(timing.standardError.contains(#""route":"photon serve (front end)""#), "\(timing.standardError)")
        for phase in ["connected to photon serve", "request written", "greeting read", "answer read", "exit"] {
            #expect(timing.standardError.contains(phase), "\(phase): \(timing.standardError)")
        }
        for arguments in [
            ["text", "tv", "from the front end"], ["launch", "tv", "https://www.youtube.com"], ["volume", "tv", "Down"],
            ["key", "tv", "select", "--long", "--hold", "50"], ["key", "tv", "--raw", "KEYCODE_TV_INPUT"],
        ] {
            let p = try await frontEnd(arguments)
            #expect(p.process.terminationStatus == 0, "\(arguments): \(p.standardError)")
        }
        try await eventually {
            setup.emulator.events("key").count >= 6 && !texts(setup.emulator).isEmpty && !setup.emulator.events("launch").isEmpty
        }
        let keys = setup.emulator.events("key").map { "\($0["key"] ?? "")/\($0["direction"] ?? "")" }
        #expect(
            keys == [
                "KEYCODE_VOLUME_UP/SHORT", "KEYCODE_VOLUME_UP/SHORT", "KEYCODE_VOLUME_DOWN/SHORT", "KEYCODE_DPAD_CENTER/START_LONG",
                "KEYCODE_DPAD_CENTER/END_LONG",
                "KEYCODE_TV_INPUT/SHORT",
            ])
        #expect(texts(setup.emulator) == ["from the front end"])
        #expect(setup.emulator.events("launch").first?["app"] as? String == "https://www.youtube.com")

        // Its errors read exactly like photon-cli's.
        let ours = try await frontEnd(["key", "nosuch", "home", "--json"])
        let theirs = try await run(setup.home, ["key", "nosuch", "home", "--json", "--direct"])
        #expect(ours.process.terminationStatus == 1)
        #expect(ours.standardError == theirs.standardError)
        #expect(ours.standardOutput == theirs.standardOutput)
        #expect(ours.standardOutput.contains("\"code\":\"not_found\""))

        // Everything else is handed on: several keys, unknown keys (nothing was sent),
        // help, -v, --direct, PHOTON_DIRECT=1, and a socket that is not private.
        for arguments in [
            ["key", "tv", "home", "back"], ["key", "tv", "bogus"], ["key", "--help"], ["key", "tv", "home", "-v"],
            ["key", "tv", "home", "--direct"], ["status", "tv"], ["key", "tv", "home", "--home=/tmp"],
            ["key", "tv", "home", "--timeout", "5", "--timeout", "6"],
        ] {
            let p = try await frontEnd(arguments)
            #expect(p.process.terminationStatus == 1 && p.standardError.contains("cannot run"), "\(arguments): \(p.standardError)")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTON_DIRECT"] = "1"
        #expect(try await frontEnd(["key", "tv", "home"], environment: environment).standardError.contains("cannot run"))
        chmod(setup.socket, 0o660)
        #expect(try await frontEnd(["key", "tv", "home"]).standardError.contains("cannot run"))
        chmod(setup.socket, 0o600)
        try await Task.sleep(for: .milliseconds(100))
        #expect(setup.emulator.events("key").count == 6, "a handed-on command was sent anyway")
    }

    @Test func statusWatchSubscribesAndOutlivesATVRestart() async throws {
        let state = try TestEnvironment.temporaryDirectory("photon-tv-state")
        let first = try await Emulator.start(["androidtv", "--port", "0", "--ping-interval", "0.5", "--state", state.path])
        let setup = try await setUp(emulator: first)
        defer { setup.stop() }
        let watch = try e2e.photon(setup.home, ["status", "tv", "--watch", "--json"])
        defer { watch.terminate() }
        try await watch.waitFor("\"volume\":{\"level\":10")
        let up = try await run(setup.home, ["volume", "tv", "up"])
        #expect(up.process.terminationStatus == 0)
        try await watch.waitFor("\"level\":11")

        // The TV restarts: the watch says so and goes on with the new connection.
        first.process.terminate()
        try await watch.waitFor("\"disconnected\"")
        let second = try await Emulator.start(
            ["androidtv", "--port", String(first.port), "--pairing-port", String(first.pairingPort), "--ping-interval", "0.5", "--state", state.path])
        defer { second.process.terminate() }
        try await watch.waitFor("\"connection\":\"connected\"", timeout: .seconds(20))
        #expect(watch.process.isRunning)

        // SIGINT stops the daemon cleanly too; the watch ends with a clear error.
        kill(setup.daemon.process.processIdentifier, SIGINT)
        #expect(await setup.daemon.waitForExit(timeout: .seconds(10)) == 0)
        #expect(setup.daemon.standardError.contains("stopping (SIGINT)"))
        #expect(await watch.waitForExit(timeout: .seconds(10)) == 3)
        #expect(watch.standardError.contains("photon serve is stopping"), "\(watch.standardError)")
    }

    @Test func forgetAndSIGHUPCloseTheSessionOfAForgottenTV() async throws {
        let setup = try await setUp()
        defer { setup.stop() }
        #expect(try await run(setup.home, ["key", "tv", "home"]).process.terminationStatus == 0)
        try await setup.emulator.process.waitFor("client_connected")

        // `photon forget` tells the daemon, which closes the TV's session at once.
        #expect(try await run(setup.home, ["forget", "tv"]).process.terminationStatus == 0)
        try await setup.emulator.process.waitFor("client_disconnected")

        // Paired again, then forgotten behind the daemon's back: nothing happens until SIGHUP.
        let again = try await e2e.pair(setup.emulator, home: setup.home, name: "tv")
        #expect(await again.waitForExit() == 0, "\(again.standardError)")
        #expect(try await run(setup.home, ["key", "tv", "home"]).process.terminationStatus == 0)
        _ = try await Store(paths: StorePaths(home: setup.home)).forget("tv")
        try await Task.sleep(for: .milliseconds(300))
        #expect(setup.emulator.events("client_disconnected").count == 1)
        kill(setup.daemon.process.processIdentifier, SIGHUP)
        try await setup.daemon.waitFor("reloaded the store: 1 TV(s) closed")
        try await eventually { setup.emulator.events("client_disconnected").count >= 2 }
        #expect(setup.emulator.events("client_disconnected").count == 2)
        let client = try await DaemonClient.connect(path: setup.socket, timeout: .seconds(5))
        #expect(try await client.request("list")["tvs"]?.arrayValue?.isEmpty == true)
        await client.close()
        let gone = try await run(setup.home, ["key", "tv", "home"])
        #expect(gone.process.terminationStatus == 1)
        #expect(gone.standardError.contains("no paired TV is called 'tv'"))
    }

    /// Without --home the front end must find the daemon where `StorePaths` puts it:
    /// `$XDG_RUNTIME_DIR/photon`, or `$XDG_STATE_HOME/photon/run` (default
    /// `~/.local/state/photon/run`) when there is no runtime directory.
    @Test func frontEndFindsTheDaemonOfTheDefaultLocations() async throws {
        let emulator = try await Emulator.androidTV()
        defer { emulator.process.terminate() }
        let root = try TestEnvironment.temporaryDirectory("photon-xdg")
        let runtime = root.appendingPathComponent("r")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        chmod(runtime.path, 0o700)
        var base = ProcessInfo.processInfo.environment
        for name in ["PHOTON_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "PHOTON_DIRECT"] {
            base[name] = nil
        }
        base["HOME"] = root.appendingPathComponent("h").path
        let cli = try AndroidTVEndToEndTests.binary("photon")
        let alone = try TestEnvironment.temporaryDirectory("photon-front")
        let front = alone.appendingPathComponent("photon").path
        try FileManager.default.copyItem(atPath: cli, toPath: front)

        // Pair in that environment, typing the code the emulator shows.
        let pairing = try TestProcess(
            cli,
            [
                "pair", "127.0.0.1:\(emulator.port)", "--pairing-port", String(emulator.pairingPort), "--trust", emulator.fingerprint,
                "--name", "tv",
            ], environment: base)
        try await emulator.process.waitFor("pairing_code")
        pairing.writeToStandardInput((emulator.events("pairing_code").last!["code"] as! String) + "\n")
        pairing.closeStandardInput()
        #expect(await pairing.waitForExit() == 0, "\(pairing.standardError)")

        for withRuntimeDirectory in [true, false] {
            var environment = base
            if withRuntimeDirectory { environment["XDG_RUNTIME_DIR"] = runtime.path }
            let daemon = try TestProcess(cli, ["serve", "--json"], environment: environment)
            defer { daemon.terminate() }
            try await daemon.waitFor("\"event\":\"ready\"")
            let expected = withRuntimeDirectory ? runtime.path + "/photon/photon.sock" : base["HOME"]! + "/.local/state/photon/run/photon.sock"
            #expect(daemon.standardOutput.contains(expected), "\(daemon.standardOutput)")
            let p = try TestProcess(front, ["key", "tv", "home"], environment: environment)
            p.closeStandardInput()
            #expect(await p.waitForExit() == 0, "\(withRuntimeDirectory): \(p.standardError)")
            daemon.terminate()
        }
        try await eventually { emulator.events("key").count >= 2 }
        #expect(emulator.events("key").count == 2)
    }
}
