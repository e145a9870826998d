import Foundation
import PhotonCore
import PhotonStore
import PhotonTestSupport
import Testing

/// The `photon` binary against `photon-emulator lg` over real TLS.
@Suite(.serialized) struct LGEndToEndTests {
    func photon(_ home: URL, _ arguments: [String]) async throws -> TestProcess {
        let p = try TestProcess(try AndroidTVEndToEndTests.binary("photon"), arguments + ["--home", home.path])
        p.closeStandardInput()
        _ = await p.waitForExit()
        return p
    }

    /// `--mac` makes another TV (newcomer #14: two LG emulators shared one id and collided).
    @Test func theEmulatorsMACIsItsIdentity() async throws {
        let tv = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0", "--mac", "02:00:00:77:88:99"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-lg-mac")
        let probe = try await photon(home, ["probe", "127.0.0.1:\(tv.port)", "--brand", "lg", "--json", "--timeout", "1"])
        #expect(probe.standardOutput.contains(#""id":"lg-020000778899""#), "\(probe.standardOutput)")
    }

    static func lg(_ extra: [String] = []) async throws -> EmulatorProcess {
        try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"] + extra)
    }

    @Test func pairControlAndTheClientKeyNeverShows() async throws {
        let emulator = try await Self.lg()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-lg")
        let pair = try await photon(
            home, ["pair", "127.0.0.1:\(emulator.port)", "--brand", "lg", "--trust", emulator.fingerprint, "--name", "den", "-v"])
        #expect(pair.process.terminationStatus == 0, "\(pair.standardError)")
        // Honest about what the pin proves.
        #expect(pair.standardError.contains("not that this is your TV"))
        let key = try #require(await Store(paths: StorePaths(home: home)).secrets(for: "lg-1f2e3d4c5b6a")["client-key"])
        var outputs = pair.standardOutput + pair.standardError
        for arguments in [
            ["key", "den", "home", "right", "--delay", "0", "-v"], ["text", "den", "hello", "-v"], ["launch", "den", "netflix", "-v"],
            ["volume", "den", "15", "-v"], ["status", "den", "-v"], ["apps", "den", "-v"], ["list", "-v"],
        ] {
            let p = try await photon(home, arguments)
            #expect(p.process.terminationStatus == 0, "\(arguments): \(p.standardError)")
            outputs += p.standardOutput + p.standardError
            if arguments[0] == "status" { #expect(p.standardOutput.contains("power: on") && p.standardOutput.contains("volume: ")) }
            if arguments[0] == "apps" { #expect(p.standardOutput.contains("netflix")) }
            if arguments[0] == "list" { #expect(p.standardOutput.contains("den") && !p.standardOutput.contains("unencrypted")) }
        }
        #expect(!outputs.contains(key))
        try await Task.sleep(for: .milliseconds(200))
        #expect(emulator.events("key").map { $0["key"] as? String } == ["HOME", "RIGHT"])
        #expect(emulator.events("text").first?["text"] as? String == "hello")
        #expect(emulator.events("launch").first?["app"] as? String == "netflix")
        #expect(emulator.events("volume").first?["level"] as? Int == 15)
        #expect(emulator.events("prompt").count == 1)
        // A volume level is refused by brands without absolute volume, before sending.
        let wrong = try await photon(home, ["volume", "den", "101"])
        #expect(wrong.process.terminationStatus == 2)
    }

    /// A TV on a port no brand uses by default: `probe HOST:PORT` probes that port (and
    /// says so), and `pair HOST:PORT` without `--brand` finds the brand by probing.
    @Test func aTVOnAnUnusualPortIsProbedThereAndPairedWithoutABrand() async throws {
        let emulator = try await Self.lg()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-lg")
        let probe = try await photon(home, ["probe", "127.0.0.1:\(emulator.port)"])
        #expect(probe.process.terminationStatus == 0, "\(probe.standardError)")
        #expect(probe.standardOutput.contains("wss \(emulator.port)"), "\(probe.standardOutput)")
        #expect(!probe.standardOutput.contains("offers no TLS"), "\(probe.standardOutput)")
        let pair = try await photon(home, ["pair", "127.0.0.1:\(emulator.port)", "--trust", emulator.fingerprint, "--name", "den"])
        #expect(pair.process.terminationStatus == 0, "\(pair.standardError)")
        #expect(try await Store(paths: StorePaths(home: home)).devices().devices.first?.brand == "lg")
    }

    @Test func declineIsFourRotatedCertificateIsFiveWithNothingSent() async throws {
        let denying = try await Self.lg(["--accept", "deny"])
        defer { denying.process.terminate() }
        let home = try await TestEnvironment.home("photon-lg")
        let declined = try await photon(home, ["pair", "127.0.0.1:\(denying.port)", "--brand", "lg", "--trust", denying.fingerprint])
        #expect(declined.process.terminationStatus == 4, "\(declined.standardError)")
        #expect(declined.standardError.contains("Accept on the TV"))

        let emulator = try await Self.lg()
        let pair = try await photon(home, ["pair", "127.0.0.1:\(emulator.port)", "--brand", "lg", "--trust", emulator.fingerprint, "--name", "den"])
        #expect(pair.process.terminationStatus == 0, "\(pair.standardError)")
        emulator.process.terminate()
        // Another TV (another certificate) on the same port.
        let impostor = try await EmulatorProcess.start(["lg", "--port", String(emulator.port), "--plain-port", "0"])
        defer { impostor.process.terminate() }
        let key = try await photon(home, ["key", "den", "home"])
        #expect(key.process.terminationStatus == 5, "\(key.standardError)")
        try await Task.sleep(for: .milliseconds(100))
        #expect(impostor.events("hello").isEmpty && impostor.events("key").isEmpty)
    }

    @Test func anOldTVPairsUnencryptedOnlyWithConsentAndListSaysSo() async throws {
        let emulator = try await Self.lg(["--tls", "false"])
        defer { emulator.process.terminate() }
        let plainPort = emulator.ready["plain_port"] as? Int ?? 0
        let home = try await TestEnvironment.home("photon-lg")
        let refused = try await photon(home, ["pair", "127.0.0.1:\(plainPort)", "--ws-port", String(plainPort)])
        #expect(refused.process.terminationStatus == 5, "\(refused.standardError)")
        #expect(refused.standardError.contains("--allow-unencrypted"))
        #expect(emulator.events("hello").isEmpty)
        let pair = try await photon(home, ["pair", "127.0.0.1:\(plainPort)", "--ws-port", String(plainPort), "--allow-unencrypted", "--name", "old"])
        #expect(pair.process.terminationStatus == 0, "\(pair.standardError)")
        let list = try await photon(home, ["list"])
        #expect(list.standardOutput.contains("unencrypted, by consent"))
        let json = try await photon(home, ["list", "--json"])
        #expect(json.standardOutput.contains("\"unencrypted\":true"))
        let key = try await photon(home, ["key", "old", "back"])
        #expect(key.process.terminationStatus == 0, "\(key.standardError)")
    }
}
