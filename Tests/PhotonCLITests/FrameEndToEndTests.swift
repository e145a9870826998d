import Foundation
import PhotonTestSupport
import Testing

/// `photon` against `photon-emulator samsung --frame` as a user runs them: the power state
/// `art` (off for automations), a real off (a held KEY_POWER, not the click that toggles
/// art), on from art and from off, and every `photon art` command, upload included; a
/// Samsung that is not a Frame refuses art with the reason.
@Suite(.serialized) struct FrameEndToEndTests {
    let e2e = AndroidTVEndToEndTests()

    func run(_ home: URL, _ arguments: [String]) async throws -> TestProcess {
        try await e2e.finished(home, arguments, input: nil)
    }

    func pair(_ tv: EmulatorProcess, _ home: URL) async throws {
        guard let rest = tv.ready["rest_port"] as? Int else { throw TestFailure("the emulator did not say its REST port") }
        let paired = try await run(
            home, ["pair", "127.0.0.1:\(tv.port)", "--brand", "samsung", "--rest-port", String(rest), "--trust", tv.fingerprint, "--name", "frame"])
        #expect(paired.process.terminationStatus == 0, "\(paired.standardError)")
    }

    @Test func artModeIsAPowerStateAndEveryArtCommandWorks() async throws {
        let tv = try await EmulatorProcess.samsung(["--frame", "--art-mode"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-frame")
        try await pair(tv, home)

        func ok(_ arguments: [String]) async throws -> TestProcess {
            let p = try await run(home, arguments)
            #expect(p.process.terminationStatus == 0, "\(arguments): \(p.standardError)")
            return p
        }
        func power() async throws -> String {
            // `status --json` prints one object a line; the power state is in its own.
            let status = try await ok(["status", "frame", "--json"]).standardOutput
            for line in status.split(separator: "\n") {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                if let state = object?["power_state"] as? String { return state }
            }
            return status
        }
        #expect(try await power() == "art")
        let list = try await ok(["art", "frame"]).standardOutput
        #expect(list.contains("SAM-S10001") && list.contains("MY_F0001"), "\(list)")
        #expect(try await ok(["art", "frame", "current"]).standardOutput == "SAM-S10001\n")
        _ = try await ok(["art", "frame", "show", "MY_F0001"])
        #expect(tv.events("art_shown").last?["content_id"] as? String == "MY_F0001")
        #expect(try await ok(["art", "frame", "current"]).standardOutput == "MY_F0001\n")
        let mine = try await ok(["art", "frame", "list", "--category", "MY-C0002"]).standardOutput
        #expect(mine.contains("MY_F0001") && mine.contains("yes"), "\(mine)")
        #expect(try await ok(["art", "frame", "list", "--category", "MY-C0004"]).standardOutput.split(separator: "\n").count == 1)
        let image = try TestEnvironment.temporaryDirectory("frame-art").appendingPathComponent("pixel.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + [UInt8](repeating: 0x42, count: 2000) + [0xFF, 0xD9]).write(to: image)
        let uploaded = try await ok(["art", "frame", "upload", image.path, "--matte", "shadowbox_polar"])
        #expect(uploaded.standardOutput.contains("Uploaded as MY_F0101"), "\(uploaded.standardOutput)")
        #expect(tv.events("art_uploaded").last?["bytes"] as? Int == 2008)
        _ = try await ok(["art", "frame", "brightness", "7"])
        #expect(tv.events("art_brightness").last?["value"] as? Int == 7)
        _ = try await ok(["art", "frame", "matte", "MY_F0101", "modernthin_polar"])
        #expect(tv.events("art_matte").last?["matte"] as? String == "modernthin_polar")
        _ = try await ok(["art", "frame", "slideshow", "15"])
        #expect(tv.events("art_slideshow").last?["value"] as? String == "15")
        _ = try await ok(["art", "frame", "delete", "MY_F0101"])
        #expect(tv.events("art_deleted").last?["content_id"] as? String == "MY_F0101")
        let missing = try await run(home, ["art", "frame", "show", "NOT-THERE"])
        #expect(missing.process.terminationStatus != 0 && missing.standardError.contains("art error -1"), "\(missing.standardError)")
        let notImage = try await run(home, ["art", "frame", "upload", "/etc/hostname"])
        #expect(notImage.process.terminationStatus == 2 && notImage.standardError.contains("not a JPEG or PNG"), "\(notImage.standardError)")

        _ = try await ok(["power", "frame", "on"])
        #expect(try await power() == "on")
        _ = try await ok(["power", "frame", "off", "--art"])
        #expect(try await power() == "art")
        _ = try await ok(["power", "frame", "off"])
        #expect(try await power() == "standby")
        let held = tv.events("key").filter { $0["key"] as? String == "KEY_POWER" }.map { $0["cmd"] as? String ?? "" }
        #expect(held == ["Press", "Release"], "a Frame is switched off by a held KEY_POWER, not a click: \(held)")
        _ = try await ok(["power", "frame", "on"])
        #expect(try await power() == "on")
    }

    @Test func aSamsungThatIsNotAFrameRefusesArtWithTheReason() async throws {
        let tv = try await EmulatorProcess.samsung()
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-not-frame")
        try await pair(tv, home)
        let refused = try await run(home, ["art", "frame", "on"])
        #expect(refused.process.terminationStatus == 6, "\(refused.standardError)")
        #expect(refused.standardError.contains("not a Frame") || refused.standardError.contains("art-mode"), "\(refused.standardError)")
    }
}
