import Foundation
import PhotonCore
import PhotonNet
import PhotonTestSupport
import Testing

/// aiowebostv 0.10.0 (pinned in the test venv; Home Assistant's LG client) pairs with our
/// emulated LG TV over TLS and drives it; the emulator reports exactly what it did.
@Suite struct LGReferenceClientTests {
    @Test func aiowebostvPairsAndDrivesTheEmulatedTV() async throws {
        let (tv, events) = try await startLG()
        defer { Task { await tv.stop() } }
        // aiowebostv tries plain ws:// first: a closed port makes it fall back to wss://.
        let closed = try TCPListener(host: "127.0.0.1", port: 0)
        let closedPort = closed.port
        closed.close()
        let dir = try TestEnvironment.temporaryDirectory("aiowebostv")
        let client = try TestProcess(
            try TestEnvironment.python,
            [TestEnvironment.peerScript("lg_client.py"), "127.0.0.1", String(tv.port!), String(closedPort), dir.appendingPathComponent("key").path])
        defer { client.terminate() }
        try await client.waitFor("DONE", timeout: .seconds(60))
        #expect(await client.waitForExit() == 0, "\(client.standardError)")
        #expect(client.standardOutput.contains("KEY True"))
        #expect(client.standardOutput.contains("MODEL OLED65C25LB"))
        #expect(client.standardOutput.contains("VOLUME 12"))
        let stored = try String(contentsOf: dir.appendingPathComponent("key"), encoding: .utf8)
        #expect(tv.clientKeys == [stored])
        try await events.wait(for: "key", count: 2)
        #expect(events.named("volume").map { $0["level"]?.int } == [17])
        #expect(events.named("launch").map { $0["app"]?.string } == ["netflix"])
        #expect(events.named("text").map { $0["text"]?.string } == ["hello lg"])
        #expect(events.named("enter").count == 1)
        #expect(events.named("key").map { $0["key"]?.string } == ["HOME", "BACK"])
        #expect(events.named("power_off").count == 1)
        #expect(client.standardOutput.contains(#"INPUTS ["HDMI 1", "PlayStation", "HDMI 3", "AV"]"#), "\(client.standardOutput)")
        #expect(client.standardOutput.contains(#"CHANNELS ["7-1", "7-2", "9-1"]"#))
        #expect(events.named("input").map { $0["id"]?.string } == ["HDMI_2"])
        #expect(events.named("channel").map { $0["number"]?.string } == ["7-2"])
        #expect(events.named("toast").map { $0["message"]?.string } == ["hello from aiowebostv"])
        #expect(events.named("screen").map { $0["on"] } == [.bool(false)])
        // aiowebostv's change_sound_output, and the output it reads before and after.
        #expect(client.standardOutput.contains("SOUND tv_speaker tv_speaker"), "\(client.standardOutput)")
        #expect(client.standardOutput.contains("SOUND external_arc"), "\(client.standardOutput)")
        #expect(events.named("sound_output").map { $0["output"]?.string } == ["external_arc"])
        // One prompt: the second connection registered with the stored key. The unsigned
        // manifest aiowebostv 0.10.0 sends passes the blacklisting the emulator does.
        #expect(events.named("prompt").count == 1 && events.named("registered").count == 1)
        #expect(events.named("client_rejected").isEmpty)
        // Both connections went over TLS.
        #expect(events.named("client_connected").allSatisfy { $0["secure"] == .bool(true) })
    }
}
