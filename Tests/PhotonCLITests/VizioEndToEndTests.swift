import Foundation
import PhotonTestSupport
import Testing

/// `photon` against `photon-emulator vizio` as a user runs them, on both firmware
/// generations: pairing with the certificate and the PIN the TV shows (a wrong PIN is exit
/// 4 and leaves the TV able to pair), then key, launch, input, channel, volume, power,
/// status and picture.
@Suite(.serialized) struct VizioEndToEndTests {
    let e2e = AndroidTVEndToEndTests()

    func run(_ home: URL, _ arguments: [String], input: String? = nil) async throws -> TestProcess {
        try await e2e.finished(home, arguments, input: input)
    }

    func keys(_ tv: EmulatorProcess) -> [String] { tv.events("key").compactMap { $0["key"] as? String } }

    @Test(arguments: [false, true])
    func pairingThenEveryCommandTheBrandHas(legacy: Bool) async throws {
        let tv = try await EmulatorProcess.start(["vizio", "--port", "0", "--pin", "4826"] + (legacy ? ["--legacy", "--lowercase"] : []))
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-vizio")
        let pair = ["pair", "127.0.0.1:\(tv.port)", "--brand", "vizio", "--name", "den", "--trust", tv.fingerprint]
        let wrong = try await run(home, pair, input: "1111\n")
        #expect(wrong.process.terminationStatus == 4, "\(wrong.standardError)")
        #expect(tv.events("pairing_cancelled").count == 1 && tv.events("blocked").isEmpty)
        let paired = try await run(home, pair, input: "4826\n")
        #expect(paired.process.terminationStatus == 0, "\(paired.standardError)")

        func ok(_ arguments: [String]) async throws -> TestProcess {
            let p = try await run(home, arguments)
            #expect(p.process.terminationStatus == 0, "\(arguments): \(p.standardError)")
            return p
        }
        _ = try await ok(["key", "den", "home", "down", "select", "--delay", "0"])
        #expect(keys(tv) == ["4:15", "3:0", "3:2"])
        _ = try await ok(["launch", "den", "netflix"])
        #expect(tv.events("launch").last?["app"] as? String == "3:1")
        #expect(try await ok(["input", "den"]).standardOutput.contains("PlayStation"))
        _ = try await ok(["input", "den", "playstation"])
        #expect(tv.events("input").last?["input"] as? String == "hdmi2")
        _ = try await ok(["channel", "den", "up"])
        _ = try await ok(["channel", "den", "7"])
        #expect(Array(keys(tv).suffix(3)) == ["8:1", "0:55", "3:2"])
        _ = try await ok(["volume", "den", "25"])
        #expect(tv.events("volume").last?["level"] as? Int == 25)
        _ = try await ok(["picture", "den", "game"])
        #expect(tv.events("picture").last?["mode"] as? String == "Game")
        let status = try await ok(["status", "den"])
        #expect(status.standardOutput.contains("power: on") && status.standardOutput.contains("picture: game"), "\(status.standardOutput)")
        _ = try await ok(["power", "den", "off"])
        #expect(keys(tv).last == "11:0")
        _ = try await ok(["power", "den", "on"])
        #expect(keys(tv).last == "11:1")
    }
}
