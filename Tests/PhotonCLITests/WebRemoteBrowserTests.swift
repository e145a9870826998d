import Foundation
import PhotonCore
import PhotonTestSupport
import Testing

/// The web remote in a real browser (headless Chromium through Selenium,
/// Tests/peers/web_remote_browser.py) at a phone's size, in front of `photon serve --http`
/// with every brand's emulated TV paired: it pairs with a code, presses Home on each TV,
/// sees the live status, and uses gesture mode with synthetic motion; then the test revokes
/// it and the page is refused.
@Suite(.serialized) struct WebRemoteBrowserTests {
    let e2e = AndroidTVEndToEndTests()

    /// What each emulator calls the Home key.
    static let home = [
        "roku": "Home", "samsung": "KEY_HOME", "lg": "HOME", "androidtv": "KEYCODE_HOME", "firetv": "KEYCODE_HOME", "appletv": "Home",
    ]

    func pair(_ brand: String, _ emulator: EmulatorProcess, home: URL) async throws {
        if brand == "androidtv" {
            let p = try await e2e.pair(emulator, home: home, name: brand)
            guard await p.waitForExit() == 0 else { throw TestFailure("pairing androidtv failed: \(p.standardError)") }
            return
        }
        var arguments = ["pair", "127.0.0.1:\(emulator.port)", "--brand", brand, "--name", brand]
        switch brand {
        case "samsung": arguments += ["--trust", emulator.fingerprint, "--rest-port", String(emulator.restPort)]
        case "lg": arguments += ["--trust", emulator.fingerprint]
        case "firetv": arguments += ["--allow-unencrypted"]
        default: break
        }
        // The emulated Apple TV shows the PIN given with --pin; it is typed on stdin.
        let p = try await e2e.finished(home, arguments, input: brand == "appletv" ? "4826\n" : nil)
        guard p.process.terminationStatus == 0 else { throw TestFailure("pairing \(brand) failed: \(p.standardError)") }
    }

    @Test func aPhoneSizedBrowserPairsAndDrivesEveryBrandThenIsRevoked() async throws {
        let python = try TestEnvironment.python
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
        else {
            throw TestFailure("headless Chromium is not installed: run scripts/setup.sh test (chromium, chromium-driver)")
        }
        let home = try await TestEnvironment.home("photon-web-remote")
        var emulators: [String: EmulatorProcess] = [:]
        defer { for emulator in emulators.values { emulator.process.terminate() } }
        emulators["roku"] = try await EmulatorProcess.start(["roku", "--port", "0"])
        emulators["samsung"] = try await EmulatorProcess.samsung()
        emulators["lg"] = try await EmulatorProcess.start(["lg", "--port", "0", "--plain-port", "0"])
        emulators["androidtv"] = try await EmulatorProcess.androidTV()
        emulators["firetv"] = try await EmulatorProcess.start(["firetv", "--port", "0"])
        emulators["appletv"] = try await EmulatorProcess.start(["appletv", "--port", "0", "--pin", "4826"])
        for (brand, emulator) in emulators { try await pair(brand, emulator, home: home) }

        let daemon = try e2e.photon(home, ["serve", "--json", "--http", "127.0.0.1:0"])
        defer { daemon.terminate() }
        try await daemon.waitFor("\"event\":\"ready\"")
        let ready = try #require(daemon.standardOutput.split(separator: "\n").first { $0.contains("\"ready\"") })
        let url = try #require((try JSONSerialization.jsonObject(with: Data(ready.utf8)) as? [String: Any])?["http"] as? String)
        #expect(url.hasPrefix("http://127.0.0.1:"))
        let shown = try await e2e.finished(home, ["web", "show", "--json"])
        #expect(shown.standardOutput.contains(url), "\(shown.status.map(String.init) ?? "?"): \(shown.standardOutput) \(shown.standardError)")
        // On loopback no phone can open the door, and `web pair` says so (newcomer #25).
        let onLoopback = try await e2e.finished(home, ["web", "pair"])
        #expect(onLoopback.standardOutput.contains("a phone cannot open it"), "\(onLoopback.standardOutput)")
        let paired = try await e2e.finished(home, ["web", "pair", "--json"])
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(paired.standardOutput.utf8)) as? [String: Any])
        #expect(answer["reachableFromOtherDevices"] as? Bool == false)
        let code = try #require(answer["code"] as? String)

        // Roku last: the gestures go to it.
        let order = ["samsung", "lg", "androidtv", "firetv", "appletv", "roku"]
        let browser = try TestProcess(python, [TestEnvironment.peerScript("web_remote_browser.py"), url, code, order.joined(separator: ",")])
        defer { browser.terminate() }
        do {
            try await browser.waitFor("\"step\": \"ready-for-revoke\"", timeout: .seconds(120))
        } catch {
            throw TestFailure("the browser run failed: \(browser.standardOutput)\n\(browser.standardError.suffix(3000))")
        }
        let steps = browser.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        func step(_ name: String) -> [String: Any]? { steps.first { $0["step"] as? String == name } }
        #expect((step("listed")?["tvs"] as? [String]) == order.sorted())
        #expect((step("live-status")?["status"] as? String)?.lowercased().contains("youtube") == true)
        // The status line is merged state, never a raw event (newcomer #8); keys a brand lacks
        // are disabled with the reason (newcomer #9); the page's script never failed.
        let pressed = steps.filter { $0["step"] as? String == "pressed" }
        for step in pressed {
            let status = step["status"] as? String ?? ""
            #expect(!status.contains("{") && !status.contains("null"), "\(step)")
        }
        let appleTV = pressed.first { $0["tv"] as? String == "appletv" }?["disabled"] as? [String: String] ?? [:]
        #expect(appleTV["mute"] == "This TV has no such key", "\(appleTV)")
        let roku = pressed.first { $0["tv"] as? String == "roku" }?["disabled"] as? [String: String] ?? [:]
        #expect(roku["home"] == nil && roku["select"] == nil, "\(roku)")
        #expect((step("script-errors")?["errors"] as? [String]) == [], "\(step("script-errors") ?? [:])")
        #expect(emulators["lg"]!.events("launch").count == 1, "\(emulators["lg"]!.process.standardOutput.suffix(2000))")
        for brand in order {
            let keys = emulators[brand]!.events("key").compactMap { ($0["key"] ?? $0["code"]).map { "\($0)" } }
            #expect(!keys.isEmpty, "\(brand) got no key")
            #expect(keys.contains(Self.home[brand]!), "\(brand) got \(keys)")
        }
        // Gestures: nothing unarmed, right and (after rest) down while armed; nothing without
        // rest, after release, after blur or after expiry.
        let rokuKeys = emulators["roku"]!.events("key").compactMap { $0["key"] as? String }
        #expect(rokuKeys == ["Home", "Right", "Down"], "\(rokuKeys); \(browser.standardOutput)")
        for name in ["unarmed-flick", "flick-without-rest", "released-flick", "blurred-flick", "expired-flick", "quick-tap-flick"] {
            let note = step(name)?["note"] as? String ?? ""
            #expect(!note.hasPrefix("Sent left") && !(name != "flick-without-rest" && note.hasPrefix("Sent right")), "\(name): \(note)")
        }
        // A 50 ms tap under 1.5 s of latency: the session the daemon opened is ended, not armed.
        #expect(step("quick-tap-flick")?["note"] as? String == "Released before arming: hold the button.", "\(step("quick-tap-flick") ?? [:])")
        #expect(step("quick-tap-flick")?["armed"] is NSNull || step("quick-tap-flick")?["armed"] == nil)
        #expect(step("gesture-power")?["status"] as? Int == 403)
        #expect(step("gesture-power")?["code"] as? String == "gesture-forbidden")
        #expect(!emulators["roku"]!.events("key").contains { $0["key"] as? String == "Power" || $0["key"] as? String == "PowerOff" })

        let revoked = try await e2e.finished(home, ["web", "revoke", "chromium"])
        #expect(revoked.process.terminationStatus == 0, "\(revoked.standardError)")
        browser.writeToStandardInput("revoked\n")
        let status = await browser.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "\(browser.standardOutput)\n\(browser.standardError.suffix(3000))")
        #expect(browser.standardOutput.contains("refused-after-revoke"))
        let clients = try await e2e.finished(home, ["web", "clients", "--json"])
        #expect(clients.standardOutput.contains("\"clients\":[]"), "\(clients.standardOutput)")
    }

    /// The web remote's microphone: Chromium's fake microphone plays "open netflix" (espeak-ng)
    /// while the hold-to-talk button is held. The Roku gets it as a launch (recognised in the
    /// daemon), the Android TV as live audio; revoking the client cuts its open microphone,
    /// and the page's next voice stream is refused.
    @Test func theMicrophoneReachesRokuAsALaunchAndAndroidTVAsLiveAudio() async throws {
        let python = try TestEnvironment.python
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
        else {
            throw TestFailure("headless Chromium is not installed: run scripts/setup.sh test (chromium, chromium-driver)")
        }
        let home = try await TestEnvironment.home("photon-web-voice")
        let roku = try await EmulatorProcess.start(["roku", "--port", "0"])
        defer { roku.process.terminate() }
        let androidTV = try await EmulatorProcess.androidTV()
        defer { androidTV.process.terminate() }
        try await pair("roku", roku, home: home)
        try await pair("androidtv", androidTV, home: home)

        // Half a second of silence on each side of the words, as a person pauses.
        let spoken = try WAVFile.parse([UInt8](try Data(contentsOf: try await Speaker.say("open netflix", in: home))))
        let silence = [Int16](repeating: 0, count: spoken.sampleRate / 2)
        let samples = silence + spoken.samples16Mono(at: spoken.sampleRate) + silence
        let wav = home.appendingPathComponent("open-netflix.wav")
        try Data(WAVFile.encode(samples: samples, sampleRate: spoken.sampleRate)).write(to: wav)
        let seconds = Double(samples.count) / Double(spoken.sampleRate) + 0.3

        let daemon = try e2e.photon(home, ["serve", "--json", "--http", "127.0.0.1:0"])
        defer { daemon.terminate() }
        try await daemon.waitFor("\"event\":\"ready\"")
        let ready = try #require(daemon.standardOutput.split(separator: "\n").first { $0.contains("\"ready\"") })
        let url = try #require((try JSONSerialization.jsonObject(with: Data(ready.utf8)) as? [String: Any])?["http"] as? String)
        let paired = try await e2e.finished(home, ["web", "pair", "--json"])
        let code = try #require((try JSONSerialization.jsonObject(with: Data(paired.standardOutput.utf8)) as? [String: Any])?["code"] as? String)

        let browser = try TestProcess(
            python, [TestEnvironment.peerScript("web_remote_voice.py"), url, code, wav.path, String(seconds), "roku,androidtv"])
        defer { browser.terminate() }
        do {
            try await browser.waitFor("\"step\": \"ready-for-revoke\"", timeout: .seconds(120))
        } catch {
            throw TestFailure("the browser run failed: \(browser.standardOutput)\n\(browser.standardError.suffix(3000))")
        }
        let steps = {
            browser.standardOutput.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        let spoke = steps().filter { $0["step"] as? String == "spoke" }
        #expect(steps().first?["voice_shown"] as? Bool == true)
        #expect(spoke.count == 2, "\(browser.standardOutput)")
        for step in spoke {
            #expect((step["live_note"] as? String)?.contains("Microphone on") == true, "\(step)")
            #expect(step["off_after_release"] as? Bool == true, "\(step)")
        }
        // The Roku: recognised here, sure, launched (Netflix is channel 12 on the emulated Roku).
        #expect((spoke.first?["note"] as? String)?.hasPrefix("Sent") == true, "\(spoke)")
        #expect(roku.events("launch").compactMap { $0["app"] as? String } == ["12"], "\(daemon.standardError.suffix(2000))")
        // The Android TV: the audio itself, streamed while the button was held.
        #expect((spoke.last?["note"] as? String)?.hasPrefix("Sent to the TV") == true, "\(spoke)")
        let audio = androidTV.events("voice")
        #expect(!audio.isEmpty, "\(androidTV.process.standardOutput.suffix(2000))")
        #expect(!androidTV.events("voice_chunk").isEmpty)

        let revoked = try await e2e.finished(home, ["web", "revoke", "chromium"])
        #expect(revoked.process.terminationStatus == 0, "\(revoked.standardError)")
        browser.writeToStandardInput("revoked\n")
        let status = await browser.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "\(browser.standardOutput)\n\(browser.standardError.suffix(3000))")
        let after = steps().first { $0["step"] as? String == "revoked" }
        #expect((after?["note"] as? String)?.contains("no longer paired") == true, "\(browser.standardOutput)")
        #expect(after?["reopened"] as? String != "opened", "\(browser.standardOutput)")
        #expect(roku.events("launch").count == 1 && roku.events("search").isEmpty)
    }
}
