import Foundation
import PhotonTestSupport
import Testing

/// `photon` against `photon-emulator philips` as a user runs them: pairing with the
/// certificate and the PIN the TV shows (a wrong PIN is exit 4, a changed certificate exit 5
/// with nothing sent), then key, apps, launch, input, channels, volume, Ambilight, status
/// and power.
@Suite(.serialized) struct PhilipsEndToEndTests {
    let e2e = AndroidTVEndToEndTests()

    func run(_ home: URL, _ arguments: [String], input: String? = nil) async throws -> TestProcess {
        try await e2e.finished(home, arguments, input: input)
    }

    func keys(_ tv: EmulatorProcess) -> [String] { tv.events("key").compactMap { $0["key"] as? String } }

    @Test func pairingThenEveryCommandTheBrandHas() async throws {
        let tv = try await EmulatorProcess.start(["philips", "--port", "0", "--http-port", "0", "--pin", "4826", "--https-only-system"])
        defer { tv.process.terminate() }
        guard let httpPort = tv.ready["http_port"] as? Int else { throw TestFailure("the emulator did not say its plain port") }
        let home = try await TestEnvironment.home("photon-philips")
        let pair = [
            "pair", "127.0.0.1:\(tv.port)", "--brand", "philips", "--http-port", String(httpPort), "--name", "den", "--trust", tv.fingerprint,
        ]
        let wrong = try await run(home, pair, input: "1111\n")
        #expect(wrong.process.terminationStatus == 4, "\(wrong.standardError)")
        let paired = try await run(home, pair, input: "4826\n")
        #expect(paired.process.terminationStatus == 0, "\(paired.standardError)")

        func ok(_ arguments: [String]) async throws -> TestProcess {
            let p = try await run(home, arguments)
            #expect(p.process.terminationStatus == 0, "\(arguments): \(p.standardError)")
            return p
        }
        _ = try await ok(["key", "den", "home", "down", "select", "--delay", "0"])
        #expect(keys(tv) == ["Home", "CursorDown", "Confirm"])
        #expect(try await ok(["apps", "den"]).standardOutput.contains("com.google.android.youtube.tv"))
        _ = try await ok(["launch", "den", "youtube"])
        #expect(tv.events("launch").last?["app"] as? String == "com.google.android.youtube.tv")
        #expect(try await ok(["input", "den"]).standardOutput.contains("HDMI 3"))
        _ = try await ok(["input", "den", "hdmi3"])
        #expect(tv.events("input").last?["input"] as? String == "hdmi3")
        _ = try await ok(["channel", "den", "12"])
        #expect(tv.events("channel").last?["number"] as? String == "12")
        _ = try await ok(["volume", "den", "25"])
        #expect(tv.events("volume").last?["level"] as? Int == 25)
        #expect(try await ok(["ambilight", "den"]).standardOutput.contains("follow-audio"))
        _ = try await ok(["ambilight", "den", "lounge"])
        #expect(tv.events("ambilight").last?["style"] as? String == "Lounge light")
        let status = try await ok(["status", "den"])
        #expect(
            status.standardOutput.contains("power: on") && status.standardOutput.contains("ambilight: lounge")
                && status.standardOutput.contains("volume: 25/60"), "\(status.standardOutput)")
        _ = try await ok(["power", "den", "off"])
        #expect(tv.events("power").last?["state"] as? String == "standby")
        _ = try await ok(["power", "den", "on"])
        #expect(tv.events("power").last?["state"] as? String == "on")
        // A wrong key name is refused before anything is sent.
        let bad = try await run(home, ["key", "den", "--raw", "Not A Key"])
        #expect(bad.process.terminationStatus == 2, "\(bad.standardError)")
    }
}
