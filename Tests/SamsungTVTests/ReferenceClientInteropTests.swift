import Foundation
import PhotonCore
import PhotonTestSupport
import Testing

/// The Python library samsungtvws (pinned in the test venv) obtains a token from our
/// emulated Samsung TV and sends keys; the emulator reports exactly those.
@Suite struct SamsungReferenceClientTests {
    @Test func samsungtvwsGetsATokenAndSendsKeys() async throws {
        let (tv, events) = try await startSamsung()
        defer { Task { await tv.stop() } }
        let dir = try TestEnvironment.temporaryDirectory("samsungtvws")
        let client = try TestProcess(
            try TestEnvironment.python,
            [TestEnvironment.peerScript("samsung_client.py"), "127.0.0.1", String(tv.port), dir.appendingPathComponent("token").path])
        defer { client.terminate() }
        try await client.waitFor("DONE", timeout: .seconds(30))
        #expect(await client.waitForExit() == 0, "\(client.standardError)")
        #expect(client.standardOutput.contains("TOKEN True"))
        let stored = try String(contentsOf: dir.appendingPathComponent("token"), encoding: .utf8).trimmingCharacters(in: .whitespaces)
        #expect(tv.tokens == [stored])
        try await events.wait(for: "key", count: 5)
        let keys = events.named("key").map { "\($0["key"]!.string!)/\($0["cmd"]!.string!)" }
        #expect(keys == ["KEY_HOME/Click", "KEY_VOLUP/Click", "KEY_RIGHT/Press", "KEY_RIGHT/Release", "KEY_ENTER/Click"])
        // One prompt: the second connection used the token.
        #expect(events.named("prompt").count == 1)
        #expect(events.named("paired").first?["client"]?.string == "samsungtvws interop")
    }
}
