import Foundation
import PhotonCore
import PhotonNet
import PhotonStore
import PhotonTestSupport
import Testing

/// The `photon` binary against `photon-emulator samsung` over real TLS.
@Suite(.serialized) struct SamsungEndToEndTests {
    typealias Emulator = EmulatorProcess

    func photon(_ home: URL, _ arguments: [String]) async throws -> TestProcess {
        let p = try TestProcess(try AndroidTVEndToEndTests.binary("photon"), arguments + ["--home", home.path])
        p.closeStandardInput()
        _ = await p.waitForExit()
        return p
    }

    @Test func pairReconnectAndControl() async throws {
        let emulator = try await Emulator.samsung()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-samsung")
        let pair = try await photon(
            home,
            [
                "pair", "127.0.0.1:\(emulator.port)", "--rest-port", String(emulator.restPort), "--trust", emulator.fingerprint,
                "--name", "bedroom", "--json",
            ])
        #expect(pair.process.terminationStatus == 0, "\(pair.standardError)")
        #expect(pair.standardError.contains("Accept"))

        let secretsFile = StorePaths(home: home).secretsFile
        let secrets = try String(contentsOf: secretsFile, encoding: .utf8)
        var st = stat()
        stat(secretsFile.path, &st)
        #expect(st.st_mode & 0o777 == 0o600)
        let token = try #require(await Store(paths: StorePaths(home: home)).secrets(for: "samsung-0200005a4d53")["token"])
        #expect(secrets.contains(token))
        #expect(!pair.standardOutput.contains(token) && !pair.standardError.contains(token))

        for arguments in [
            ["key", "bedroom", "home", "up", "--delay", "0", "-v"], ["key", "bedroom", "volume-up", "--long", "--hold", "100"],
            ["text", "bedroom", "hello"], ["launch", "bedroom", "111299001912"],
        ] {
            let p = try await photon(home, arguments)
            #expect(p.process.terminationStatus == 0, "\(arguments): \(p.standardError)")
            // The verbose log redacts the token in the WebSocket URL.
            #expect(!p.standardError.contains(token) && !p.standardOutput.contains(token))
        }
        try await Task.sleep(for: .milliseconds(200))
        let keys = emulator.events("key").map { "\($0["key"]!)/\($0["cmd"]!)" }
        #expect(keys == ["KEY_HOME/Click", "KEY_UP/Click", "KEY_VOLUP/Press", "KEY_VOLUP/Release"])
        #expect(emulator.events("text").first?["text"] as? String == "hello")
        #expect(emulator.events("launch").first?["app"] as? String == "111299001912")
        // Reconnects used the token: one prompt only.
        #expect(emulator.events("prompt").count == 1)
        #expect(emulator.events("client_connected").count == 5)
    }

    @Test func deniedPairingIsExitFour() async throws {
        let emulator = try await Emulator.samsung(["--accept", "deny"])
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-samsung")
        let pair = try await photon(
            home,
            [
                "pair", "127.0.0.1:\(emulator.port)", "--rest-port", String(emulator.restPort), "--trust", emulator.fingerprint,
            ])
        #expect(pair.process.terminationStatus == 4)
        #expect(pair.standardError.contains("Device List"))
    }
}

/// `photon probe` against both emulators, and against ports where nothing answers.
@Suite(.serialized) struct ProbeEndToEndTests {
    @Test func probeIdentifiesEachEmulatorByBrand() async throws {
        let samsung = try await EmulatorProcess.samsung()
        defer { samsung.process.terminate() }
        let android = try await EmulatorProcess.androidTV()
        defer { android.process.terminate() }
        let home = try await TestEnvironment.home("photon-probe")
        let binary = try AndroidTVEndToEndTests.binary("photon")
        let result = try TestEnvironment.run(
            binary,
            [
                "probe", "127.0.0.1", "--pairing-port", String(android.pairingPort), "--rest-port", String(samsung.restPort), "--json",
                "--home", home.path,
            ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(#""brand":"androidtv","name":"Photon Emulated TV""#))
        #expect(result.output.contains(#""mac":"02:00:00:AA:BB:CC""#))
        #expect(result.output.contains(#""brand":"samsung","name":"[TV] Photon Emulated Samsung (55)""#))
        #expect(result.output.contains(#""model":"QE55EMU""#))
        // Probing sent no pairing request.
        #expect(android.events("pairing_code").isEmpty)
    }

    /// The host is asked what it announces: the emulated Apple TV listens on a port of its
    /// own, which no default guesses, and its unicast DNS-SD answer gives it (with its
    /// name and model); a host that answers no DNS-SD query is probed as before.
    @Test func aUnicastDNSSDAnswerGivesTheAnnouncedPort() async throws {
        let apple = try await EmulatorProcess.start(["appletv", "--port", "0", "--mdns-port", "0", "--name", "Den"])
        defer { apple.process.terminate() }
        try await apple.process.waitFor("\"event\":\"dns_sd_ready\"")
        let mdnsPort = try #require(apple.events("dns_sd_ready").first?["port"] as? Int)
        let home = try await TestEnvironment.home("photon-probe")
        let binary = try AndroidTVEndToEndTests.binary("photon")
        let result = try TestEnvironment.run(
            binary, ["probe", "127.0.0.1", "--brand", "appletv", "--mdns-port", String(mdnsPort), "--json", "--home", home.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(#""brand":"appletv","name":"Den""#), "\(result.output)")
        #expect(result.output.contains(#""port":\#(apple.port)"#), "\(result.output)")
        #expect(result.output.contains(#""model":"AppleTV14,1""#) && result.output.contains(#""announced":true"#), "\(result.output)")
        #expect((apple.events("dns_sd_query").first?["types"] as? String)?.contains("_companion-link._tcp") == true)
        // The same host asked on a port where nothing answers DNS-SD: only the brand's own
        // probe, at its default port, which nothing serves here.
        let silent = try TestEnvironment.run(
            binary, ["probe", "127.0.0.1", "--brand", "appletv", "--mdns-port", "9", "--timeout", "1", "--home", home.path])
        #expect(silent.status == 3, "\(silent.output)")
    }

    /// HOST:PORT asks that port: a TV answering only on its other ports is no answer there
    /// (newcomer #11: a dead port listed the LG, with a warning about its plain port).
    @Test func aDeadPortIsExitThreeEvenWhenTVsAnswerOnOthers() async throws {
        let lg = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        defer { lg.process.terminate() }
        let home = try await TestEnvironment.home("photon-probe-port")
        let binary = try AndroidTVEndToEndTests.binary("photon")
        let dead = try TCPListener()
        let deadPort = dead.port
        dead.close()
        let result = try TestEnvironment.run(binary, ["probe", "127.0.0.1:\(deadPort)", "--brand", "lg", "--timeout", "1", "--home", home.path])
        #expect(result.status == 3 && result.output.contains("nothing answers at 127.0.0.1:\(deadPort)"), "\(result.output)")
        #expect(!result.output.contains("offers no TLS"), "\(result.output)")
        let alive = try TestEnvironment.run(binary, ["probe", "127.0.0.1:\(lg.port)", "--brand", "lg", "--timeout", "1", "--home", home.path])
        #expect(alive.status == 0 && alive.output.contains("lg  LG"), "\(alive.output)")
    }

    @Test func nothingListeningEndsWithinTheTimeout() async throws {
        let home = try await TestEnvironment.home("photon-probe")
        let binary = try AndroidTVEndToEndTests.binary("photon")
        // A closed port, and a port that accepts (through the kernel backlog) but never answers.
        let silent = try TCPListener()
        defer { silent.close() }
        let start = ContinuousClock.now
        let result = try TestEnvironment.run(
            binary,
            [
                "probe", "127.0.0.1", "--pairing-port", "1", "--rest-port", String(silent.port), "--timeout", "1", "--home", home.path,
            ])
        #expect(result.status == 3, "\(result.output)")
        #expect(result.output.contains("tried"))
        #expect(ContinuousClock.now - start < .seconds(5))
    }
}
