import Foundation
import PhotonTestSupport
import Testing

/// `photon` against `photon-emulator firetv` as a user runs them: pairing with consent and
/// the "Allow debugging?" answer, keys, hostile text that must arrive literally and run
/// nothing, apps, power and status, another device at the address, and a second debugging
/// client evicting the first.
@Suite(.serialized) struct FireTVEndToEndTests {
    let e2e = AndroidTVEndToEndTests()

    func run(_ home: URL, _ arguments: [String], input: String? = nil) async throws -> TestProcess {
        try await e2e.finished(home, arguments, input: input)
    }

    func pair(_ tv: EmulatorProcess, _ home: URL, _ extra: [String] = ["--allow-unencrypted"]) async throws -> TestProcess {
        try await run(home, ["pair", "127.0.0.1:\(tv.port)", "--brand", "firetv", "--name", "stick"] + extra)
    }

    @Test func pairingTakesConsentAndTheAnswerOnTheTV() async throws {
        let tv = try await EmulatorProcess.start(["firetv", "--port", "0", "--mac", "02:00:00:77:88:99"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-firetv")
        // Without consent (no terminal, no flag): exit 5, nothing sent.
        let refused = try await pair(tv, home, [])
        #expect(refused.process.terminationStatus == 5, "\(refused.standardError)")
        #expect(refused.standardError.contains("not encrypted"))
        #expect(tv.events("cnxn").isEmpty)

        let paired = try await pair(tv, home)
        #expect(paired.process.terminationStatus == 0, "\(paired.standardError)")
        #expect(paired.standardError.contains("Allow USB debugging"))
        let prompt = try #require(tv.events("allow_prompt").first)
        #expect(paired.standardError.contains(prompt["fingerprint"] as? String ?? "?"), "the fingerprint shown is the one the TV shows")
        // Its MAC is learned at pairing, for Wake-on-LAN (newcomer #14).
        let listed = try await run(home, ["list", "--json"])
        #expect(listed.standardOutput.contains(#""mac":"02:00:00:77:88:99""#), "\(listed.standardOutput)")
        // The next connection is let in by its signature alone.
        #expect(try await run(home, ["key", "stick", "home"]).process.terminationStatus == 0)
        #expect(tv.events("auth").last?["result"] as? String == "signature accepted")
        #expect(tv.events("allow_prompt").count == 1)
        #expect(tv.events("key").compactMap { $0["key"] as? String } == ["KEYCODE_HOME"])
    }

    @Test func aDeclinedOrUnansweredPromptFailsWithItsExitCode() async throws {
        let deny = try await EmulatorProcess.start(["firetv", "--port", "0", "--accept", "deny"])
        defer { deny.process.terminate() }
        let home = try await TestEnvironment.home("photon-firetv-deny")
        let declined = try await pair(deny, home)
        #expect(declined.process.terminationStatus == 4, "\(declined.standardError)")
        #expect(declined.standardError.contains("declined"))

        // An unanswered prompt (or one a real device declined) is bounded: FireTVAdapterTests.
    }

    @Test func hostileTextArrivesLiterallyAndRunsNothing() async throws {
        let tv = try await EmulatorProcess.start(["firetv", "--port", "0"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-firetv-text")
        #expect(try await pair(tv, home).process.terminationStatus == 0)
        let hostile = [
            "it's \"quoted\"", "a; reboot", "$(reboot)", "`reboot`", "50%s off", "100% sure", "a\\b", "x && y || z", "#hash * ? [a] {b} ~",
            "tab\there", "<in >out | pipe &bg",
        ]
        for text in hostile {
            let p = try await run(home, ["text", "stick", text])
            #expect(p.process.terminationStatus == 0, "\(text): \(p.standardError)")
        }
        #expect(tv.events("injection").isEmpty, "\(tv.events("injection"))")
        #expect(tv.events("unknown_command").isEmpty, "\(tv.events("unknown_command"))")
        let typed = tv.events("text").compactMap { $0["text"] as? String }.joined(separator: "|")
        let expected = hostile.map { $0.replacingOccurrences(of: "\t", with: "|") }.flatMap { text -> [String] in
            // "50%s off" is typed in two calls (`%` then `s`), the tab as a key between two.
            text == "50%s off" ? ["50%", "s off"] : [text]
        }.joined(separator: "|")
        #expect(typed == expected)
        #expect(tv.events("key").compactMap { $0["key"] as? String } == ["KEYCODE_TAB"])

        let accented = try await run(home, ["text", "stick", "café"])
        #expect(accented.process.terminationStatus == 6, "\(accented.standardError)")
        #expect(tv.events("text").count == hostile.count + 2, "nothing of a refused text is sent")
    }

    @Test func appsPowerAndStatus() async throws {
        let tv = try await EmulatorProcess.start(["firetv", "--port", "0", "--power", "Asleep"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-firetv-apps")
        #expect(try await pair(tv, home).process.terminationStatus == 0)
        let apps = try await run(home, ["apps", "stick", "--json"])
        #expect(apps.process.terminationStatus == 0, "\(apps.standardError)")
        #expect(apps.standardOutput.contains("com.netflix.ninja") && apps.standardOutput.contains("Netflix"), "\(apps.standardOutput)")
        #expect(try await run(home, ["launch", "stick", "netflix"]).process.terminationStatus == 0)
        #expect(try await run(home, ["launch", "stick", "https://example.com/watch?v=1&t=2"]).process.terminationStatus == 0)
        #expect(
            tv.events("launch").compactMap { $0["app"] as? String } == ["com.netflix.ninja", "https://example.com/watch?v=1&t=2"])
        let missing = try await run(home, ["launch", "stick", "com.example.missing"])
        #expect(missing.process.terminationStatus == 1, "\(missing.standardError)")

        let standby = try await run(home, ["status", "stick", "--json"])
        #expect(standby.standardOutput.contains(#""power_state":"standby""#), "\(standby.standardOutput)")
        let on = try await run(home, ["power", "stick", "on", "--json"])
        #expect(on.process.terminationStatus == 0, "\(on.standardError)")
        #expect(on.standardOutput.contains(#""state":"on""#), "\(on.standardOutput)")
        #expect(try await run(home, ["power", "stick", "off"]).process.terminationStatus == 0)
        #expect(tv.events("power").compactMap { $0["state"] as? String } == ["Awake", "Asleep"])
        let status = try await run(home, ["status", "stick", "--json"])
        #expect(status.standardOutput.contains(#""power_state":"standby""#), "\(status.standardOutput)")
    }

    @Test func anotherDeviceAtTheAddressIsRefusedWithNothingSent() async throws {
        // Two devices that both allowed this installation's key (their allowed keys kept in
        // one state folder), one after the other at the same address.
        let state = try TestEnvironment.temporaryDirectory("photon-firetv-state")
        let tv = try await EmulatorProcess.start(["firetv", "--port", "0", "--state", state.path])
        let home = try await TestEnvironment.home("photon-firetv-swap")
        #expect(try await pair(tv, home).process.terminationStatus == 0)
        tv.process.terminate()
        _ = await tv.process.waitForExit()
        let other = try await EmulatorProcess.start(["firetv", "--port", "\(tv.port)", "--serial", "OTHER0001", "--state", state.path])
        defer { other.process.terminate() }
        let p = try await run(home, ["key", "stick", "home"])
        #expect(p.process.terminationStatus == 5, "\(p.standardError)")
        #expect(p.standardError.contains("OTHER0001") && p.standardError.contains("nothing was sent"), "\(p.standardError)")
        #expect(other.events("auth").last?["result"] as? String == "signature accepted")
        #expect(other.events("key").isEmpty)

        // A device that forgot the key: exit 4, pair again.
        let forgetful = try await EmulatorProcess.start(["firetv", "--port", "0"])
        defer { forgetful.process.terminate() }
        let fresh = try await TestEnvironment.home("photon-firetv-forgot")
        #expect(try await pair(forgetful, fresh).process.terminationStatus == 0)
        forgetful.process.terminate()
        _ = await forgetful.process.waitForExit()
        let again = try await EmulatorProcess.start(["firetv", "--port", "\(forgetful.port)"])
        defer { again.process.terminate() }
        let refused = try await run(fresh, ["key", "stick", "home"])
        #expect(refused.process.terminationStatus == 4, "\(refused.standardError)")
        #expect(again.events("allow_prompt").isEmpty, "a session never offers the key: only pairing does")
    }

    @Test func aSecondDebuggingClientEvictsTheFirstAndTheDaemonSaysSo() async throws {
        let tv = try await EmulatorProcess.start(["firetv", "--port", "0", "--single-client"])
        defer { tv.process.terminate() }
        let home = try await TestEnvironment.home("photon-firetv-evict")
        #expect(try await pair(tv, home).process.terminationStatus == 0)
        let daemon = try e2e.photon(home, ["serve", "--json", "--preconnect"])
        defer { daemon.terminate() }
        try await daemon.waitFor("\"event\":\"ready\"")
        // Through the daemon's warm session.
        #expect(try await run(home, ["key", "stick", "home"]).process.terminationStatus == 0)
        // Another host connects: Fire OS asks the first to authenticate again.
        let intruder = try await run(home, ["key", "stick", "home", "--direct"])
        #expect(intruder.process.terminationStatus == 0, "\(intruder.standardError)")
        try await daemon.waitFor("another debugging client")
        #expect(!tv.events("client_evicted").isEmpty)
    }
}
