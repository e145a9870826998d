import AndroidTVEmulator
import Foundation
import PhotonCore
import PhotonTestSupport
import Testing

/// The Python library androidtvremote2 (pinned in the test venv) pairs with and drives
/// our emulated TV: the emulator must speak the protocol as real TVs do, not only as our
/// own client expects.
@Suite struct ReferenceClientInteropTests {
    @Test func androidtvremote2PairsAndSendsKeysTextAndLaunch() async throws {
        let (tv, log) = try await startTV {
            $0.name = "Interop Room"
            $0.mac = "02:11:22:33:44:55"
        }
        defer { Task { await tv.stop() } }
        let workdir = try TestEnvironment.temporaryDirectory("atv-interop")
        let client = try TestProcess(
            try TestEnvironment.python,
            [TestEnvironment.peerScript("atv_client.py"), "127.0.0.1", String(tv.remotePort), String(tv.pairingPort), workdir.path])
        defer { client.terminate() }
        try await client.waitFor("CODE?", timeout: .seconds(30))
        #expect(client.standardOutput.contains(#"IDENTITY {"name": "Interop Room", "mac": "02:11:22:33:44:55"}"#))
        let code = try await log.wait(for: "pairing_code")["code"]!.string!
        client.writeToStandardInput(code + "\n")
        try await client.waitFor("DONE", timeout: .seconds(30))
        #expect(await client.waitForExit() == 0, "\(client.standardError)")
        #expect(client.standardOutput.contains(#""is_on": true"#))
        #expect(client.standardOutput.contains("com.google.android.tvlauncher"))

        _ = try await log.wait(for: "launch")
        let keys = log.named("key").map { "\($0["key"]!.string!)/\($0["direction"]!.string!)" }
        #expect(keys == ["KEYCODE_HOME/SHORT", "KEYCODE_DPAD_UP/SHORT", "KEYCODE_DPAD_CENTER/START_LONG", "KEYCODE_DPAD_CENTER/END_LONG"])
        #expect(log.named("text").map { $0["text"]!.string! } == ["hello from python"])
        #expect(log.named("launch").map { $0["app"]!.string! } == ["https://www.youtube.com"])
        #expect(log.named("paired").first?["client"]?.string == "androidtvremote2 interop")
    }
}
