import Foundation
import PhotonTestSupport
import Testing

/// The `photon` binaries against `photon-emulator roku`: probe with the access-mode note,
/// pair (identity only), keys directly and through `photon serve` over one kept-alive
/// connection, `photon apps`, and a Limited set refusing with exit 4.
@Suite(.serialized) struct RokuEndToEndTests {
    let e2e = AndroidTVEndToEndTests()

    func run(_ home: URL, _ arguments: [String], input: String? = nil) async throws -> TestProcess {
        try await e2e.finished(home, arguments, input: input)
    }

    @Test func pairKeysAppsAndTheDaemonOverOneConnection() async throws {
        let roku = try await EmulatorProcess.start(["roku", "--port", "0", "--name", "Den"])
        defer { roku.process.terminate() }
        let home = try await TestEnvironment.home("photon-roku")
        let address = "127.0.0.1:\(roku.port)"

        let probe = try await run(home, ["probe", "127.0.0.1", "--brand", "roku", "--port", String(roku.port), "--json"])
        #expect(probe.process.terminationStatus == 0, "\(probe.standardError)")
        #expect(probe.standardOutput.contains(#""brand":"roku""#))
        let pair = try await run(home, ["pair", address, "--brand", "roku", "--name", "den"])
        #expect(pair.process.terminationStatus == 0, "\(pair.standardError)")

        #expect(try await run(home, ["key", "den", "home", "down", "--delay", "0"]).process.terminationStatus == 0)
        let apps = try await run(home, ["apps", "den", "--json"])
        #expect(apps.standardOutput.contains(#"{"id":"12","name":"Netflix"}"#), "\(apps.standardOutput) \(apps.standardError)")

        // Through the daemon: one kept-alive connection carries every key.
        let daemon = try e2e.photon(home, ["serve", "--json"])
        defer { daemon.terminate() }
        try await daemon.waitFor("\"event\":\"ready\"")
        let connectedBefore = roku.events("client_connected").count
        for _ in 0..<5 { #expect(try await run(home, ["key", "den", "select"]).process.terminationStatus == 0) }
        let keys = roku.events("key").compactMap { $0["key"] as? String }
        #expect(keys.suffix(5) == ["Select", "Select", "Select", "Select", "Select"])
        #expect(roku.events("client_connected").count - connectedBefore == 1)
        daemon.terminate()
    }

    /// A key press loads only what it uses: not Avahi, D-Bus or libmosquitto, which only
    /// discovery and the MQTT bridge need (the dynamic loader's work is paid on every
    /// cold key). `LD_DEBUG=libs` names every library the process loads, at start or later.
    @Test func aKeyLoadsNoAvahiDBusOrMQTTLibrary() async throws {
        let roku = try await EmulatorProcess.start(["roku", "--port", "0"])
        defer { roku.process.terminate() }
        let home = try await TestEnvironment.home("photon-roku-libs")
        let pair = try await run(home, ["pair", "127.0.0.1:\(roku.port)", "--brand", "roku", "--name", "den"])
        #expect(pair.process.terminationStatus == 0, "\(pair.standardError)")
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "libs"
        environment["PHOTON_NO_DAEMON"] = "1"
        let key = try TestProcess(
            try AndroidTVEndToEndTests.binary("photon-cli"), ["key", "den", "home", "--home", home.path], environment: environment)
        key.closeStandardInput()
        #expect(await key.waitForExit() == 0, "\(key.standardError.suffix(2000))")
        #expect(key.standardError.contains("calling init:"), "LD_DEBUG printed nothing")
        for library in ["libavahi", "libdbus", "libmosquitto", "libsystemd", "libpulse", "libasound", "libpocketsphinx"] {
            #expect(!key.standardError.contains(library), "photon key loaded \(library)")
        }
        #expect(roku.events("key").count == 1)
    }

    @Test func aLimitedRokuIsExitFourWithTheSetting() async throws {
        let roku = try await EmulatorProcess.start(["roku", "--port", "0", "--network-access", "limited"])
        defer { roku.process.terminate() }
        let home = try await TestEnvironment.home("photon-roku-limited")
        let probe = try await run(home, ["probe", "127.0.0.1", "--brand", "roku", "--port", String(roku.port)])
        #expect(probe.standardOutput.contains("Control by mobile apps"), "\(probe.standardOutput)")
        let pair = try await run(home, ["pair", "127.0.0.1:\(roku.port)", "--brand", "roku"])
        #expect(pair.process.terminationStatus == 4)
        #expect(pair.standardError.contains("Network access"), "\(pair.standardError)")
        #expect(roku.events("key").isEmpty)
    }
}
