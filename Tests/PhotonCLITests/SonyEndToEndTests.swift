import Foundation
import PhotonTestSupport
import Testing

/// `photon` against `photon-emulator sony` as a user runs them: pairing with consent and the
/// PIN the TV shows (typed on stdin) or its pre-shared key, a wrong PIN or key (exit 4), and
/// every command the brand has: key, text, launch, apps, input, channel, volume, power,
/// status and sound.
@Suite(.serialized) struct SonyEndToEndTests {
    let e2e = AndroidTVEndToEndTests()

    func run(_ home: URL, _ arguments: [String], input: String? = nil) async throws -> TestProcess {
        try await e2e.finished(home, arguments, input: input)
    }

    func keys(_ tv: EmulatorProcess) -> [String] { tv.events("key").compactMap { $0["key"] as? String } }

    @Test func pairingByPINThenEveryCommandTheBrandHas() async throws {
        let tv = try await EmulatorProcess.start(["sony", "--port", "0", "--pin", "4826"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-sony")
        let pair = ["pair", "127.0.0.1:\(tv.port)", "--brand", "sony", "--name", "den"]
        // Without consent to plain HTTP (no terminal, no flag): exit 5, nothing sent.
        let refused = try await run(home, pair, input: "4826\n")
        #expect(refused.process.terminationStatus == 5, "\(refused.standardError)")
        #expect(tv.events("pin").isEmpty)
        let wrong = try await run(home, pair + ["--allow-unencrypted"], input: "1111\n")
        #expect(wrong.process.terminationStatus == 4, "\(wrong.standardError)")
        let paired = try await run(home, pair + ["--allow-unencrypted"], input: "4826\n")
        #expect(paired.process.terminationStatus == 0, "\(paired.standardError)")
        #expect(paired.standardError.contains("unencrypted"), "\(paired.standardError)")

        func ok(_ arguments: [String]) async throws -> TestProcess {
            let p = try await run(home, arguments)
            #expect(p.process.terminationStatus == 0, "\(arguments): \(p.standardError)")
            return p
        }
        _ = try await ok(["key", "den", "home", "down", "select", "--delay", "0"])
        #expect(keys(tv) == ["Home", "Down", "Confirm"])
        _ = try await ok(["text", "den", "the expanse"])
        #expect(tv.events("text").last?["text"] as? String == "the expanse")
        _ = try await ok(["launch", "den", "youtube"])
        #expect((tv.events("launch").last?["app"] as? String)?.contains("youtube") == true)
        #expect(try await ok(["apps", "den"]).standardOutput.contains("YouTube"))
        #expect(try await ok(["input", "den"]).standardOutput.contains("PlayStation"))
        _ = try await ok(["input", "den", "hdmi3"])
        _ = try await ok(["input", "den", "playstation"])
        #expect(tv.events("input").compactMap { $0["input"] as? String } == ["hdmi3", "hdmi2"])
        #expect(try await ok(["channels", "den"]).standardOutput.contains("Photon News"))
        _ = try await ok(["channel", "den", "7"])
        #expect(tv.events("channel").last?["number"] as? String == "7")
        _ = try await ok(["volume", "den", "25"])
        #expect(tv.events("volume").last?["level"] as? Int == 25)
        _ = try await ok(["volume", "den", "up"])
        #expect(keys(tv).last == "VolumeUp")
        _ = try await ok(["sound", "den", "arc"])
        #expect(tv.events("sound").last?["output"] as? String == "audioSystem")
        #expect(try await ok(["picture", "den"]).standardOutput.contains("cinema"))
        _ = try await ok(["picture", "den", "cinema"])
        #expect(tv.events("picture").last?["mode"] as? String == "cinemaPro")
        let status = try await ok(["status", "den"])
        #expect(
            status.standardOutput.contains("power: on") && status.standardOutput.contains("sound: arc")
                && status.standardOutput.contains("picture: cinema"), "\(status.standardOutput)")
        _ = try await ok(["power", "den", "off"])
        #expect(tv.events("power").last?["power"] as? String == "standby")
        _ = try await ok(["power", "den", "on"])
        #expect(tv.events("power").last?["power"] as? String == "on")
        // A long press is not Sony's: refused, nothing sent.
        let before = keys(tv).count
        let long = try await run(home, ["key", "den", "up", "--long"])
        #expect(long.process.terminationStatus == 6, "\(long.standardError)")
        #expect(keys(tv).count == before)
    }

    @Test func pairingWithAPreSharedKeyAndAWrongOneExitsFour() async throws {
        let tv = try await EmulatorProcess.start(["sony", "--port", "0", "--psk", "sony-psk-1"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-sony-psk")
        let pair = ["pair", "127.0.0.1:\(tv.port)", "--brand", "sony", "--name", "den", "--allow-unencrypted", "--psk"]
        let wrong = try await run(home, pair + ["guess"])
        #expect(wrong.process.terminationStatus == 4, "\(wrong.standardError)")
        #expect(wrong.standardError.contains("pre-shared key"))
        let paired = try await run(home, pair + ["sony-psk-1"])
        #expect(paired.process.terminationStatus == 0, "\(paired.standardError)")
        #expect(tv.events("pin").isEmpty)
        #expect(try await run(home, ["key", "den", "home"]).process.terminationStatus == 0)
        #expect(keys(tv) == ["Home"])
        // The key is a secret: not in the device list, not in verbose output.
        let verbose = try await run(home, ["-v", "key", "den", "back"])
        #expect(!verbose.standardError.contains("sony-psk-1"), "\(verbose.standardError)")
    }
}
