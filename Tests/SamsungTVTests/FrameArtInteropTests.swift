import Foundation
import PhotonCore
import PhotonTestSupport
import Testing

/// samsungtvws 3.0.6's art API (SamsungTVArt, pinned in the test venv) drives the emulated
/// Frame on both art API generations: what a real client sends and reads is what the
/// emulator serves (art mode, the list, the current artwork, an upload over the D2D socket
/// or in one binary frame, selecting, thumbnails, brightness, an error, deleting).
@Suite(.serialized) struct FrameArtInteropTests {
    @Test(arguments: ["4.3.4.0", "0.97"])
    func samsungtvwsArtDrivesTheFrame(apiVersion: String) async throws {
        let (tv, events) = try await startSamsung {
            $0.frame = true
            $0.artMode = true
            $0.artAPIVersion = apiVersion
        }
        defer { Task { await tv.stop() } }
        let dir = try TestEnvironment.temporaryDirectory("samsungtvws-art")
        let client = try TestProcess(
            try TestEnvironment.python,
            [TestEnvironment.peerScript("samsung_art_client.py"), "127.0.0.1", String(tv.port), dir.appendingPathComponent("token").path])
        defer { client.terminate() }
        do {
            try await client.waitFor("DONE", timeout: .seconds(40))
        } catch {
            throw TestFailure("samsungtvws art did not finish: \(client.standardOutput)\n\(client.standardError.suffix(3000))")
        }
        #expect(await client.waitForExit() == 0, "\(client.standardError)")
        let output = client.standardOutput
        #expect(output.contains(#""supported": true, "version": "\#(apiVersion)", "artmode": "on", "artmode_after": "off""#), "\(output)")
        #expect(output.contains(#""artworks": ["SAM-S10001", "SAM-S10002", "MY_F0001"], "current": "SAM-S10001""#), "\(output)")
        #expect(output.contains(#""uploaded": "MY_F0101", "current_after": "MY_F0101""#), "\(output)")
        #expect(output.contains(#""thumbnails": ["MY_F0101.jpg", "SAM-S10001.jpg"], "brightness": "7""#), "\(output)")
        #expect(output.contains(#""error": "`select_image` request failed with error number -1", "deleted": true"#), "\(output)")
        #expect(output.contains(#""artworks_after": ["SAM-S10001", "SAM-S10002", "MY_F0001"]"#), "\(output)")
        #expect(events.named("art_uploaded").first?["bytes"]?.int == 69)
        #expect(events.named("art_mode").map { $0["value"]?.string } == ["off"])
    }
}
