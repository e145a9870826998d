import AndroidTVEmulator
import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonStore
import PhotonTestSupport
import Testing

/// The `photon` binary against emulated Android TVs over real TLS: the
/// `photon-emulator` binary for the full flow, an in-process emulator where a test needs
/// to make the TV misbehave.
@Suite(.serialized) struct AndroidTVEndToEndTests {
    static func binary(_ name: String) throws -> String {
        let path = TestEnvironment.repositoryRoot.appendingPathComponent(".build/debug/\(name)").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestFailure("no \(path): run `make test` (it builds before testing)")
        }
        return path
    }

    typealias Emulator = EmulatorProcess

    func photon(_ home: URL, _ arguments: [String]) throws -> TestProcess {
        try TestProcess(try Self.binary("photon"), arguments + ["--home", home.path])
    }

    /// `photon ARGUMENTS --home HOME` run to its end, with `input` on its standard input.
    func finished(_ home: URL, _ arguments: [String], input: String? = nil) async throws -> TestProcess {
        let p = try photon(home, arguments)
        if let input { p.writeToStandardInput(input) }
        p.closeStandardInput()
        _ = await p.waitForExit()
        return p
    }

    /// Pairs through the CLI, typing the code the emulator shows into stdin.
    func pair(_ emulator: Emulator, home: URL, name: String = "living-room") async throws -> TestProcess {
        // Codes shown before this pairing do not count.
        let shown = emulator.events("pairing_code").count
        let process = try photon(
            home,
            [
                "pair", "127.0.0.1:\(emulator.port)", "--pairing-port", String(emulator.pairingPort), "--trust", emulator.fingerprint,
                "--name", name, "--json",
            ])
        let end = ContinuousClock.now + .seconds(15)
        while emulator.events("pairing_code").count == shown {
            guard ContinuousClock.now < end else { throw TestFailure("the emulator showed no pairing code: \(process.standardError)") }
            try await Task.sleep(for: .milliseconds(10))
        }
        let code = emulator.events("pairing_code").last!["code"] as! String
        process.writeToStandardInput(code + "\n")
        process.closeStandardInput()
        return process
    }

    @Test func pairThenControlThroughTheCLI() async throws {
        let emulator = try await Emulator.androidTV()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-e2e")
        let pairing = try await pair(emulator, home: home)
        #expect(await pairing.waitForExit() == 0, "\(pairing.standardError)")
        #expect(pairing.standardOutput.contains("\"nickname\":\"living-room\""))
        #expect(pairing.standardError.contains(emulator.fingerprint))

        func run(_ arguments: [String]) async throws -> TestProcess {
            let p = try photon(home, arguments)
            p.closeStandardInput()
            #expect(await p.waitForExit() == 0, "\(arguments): \(p.standardError)")
            return p
        }
        _ = try await run(["key", "living-room", "home", "up", "up", "select", "--delay", "0"])
        _ = try await run(["key", "living-room", "select", "--long", "--hold", "100"])
        _ = try await run(["key", "127.0.0.1", "--raw", "KEYCODE_TV_INPUT_HDMI_1"])
        _ = try await run(["text", "living-room", "the expanse"])
        _ = try await run(["launch", "living-room", "https://www.youtube.com"])
        _ = try await run(["volume", "living-room", "up"])
        let status = try await run(["status", "living-room", "--json"])
        #expect(status.standardOutput.contains("\"power\":\"on\""))
        #expect(status.standardOutput.contains("\"max\":100"))
        #expect(status.standardOutput.contains("\"app\":\"https://www.youtube.com\""))
        // The app catalog: a name becomes Android TV's link; status and apps name it.
        _ = try await run(["launch", "living-room", "Netflix"])
        #expect(emulator.events("launch").last?["app"] as? String == "https://www.netflix.com/title")
        let named = try await run(["status", "living-room", "--json"])
        #expect(named.standardOutput.contains(#""app_name":"Netflix""#), "\(named.standardOutput)")
        let apps = try await run(["apps", "living-room", "--json"])
        #expect(
            apps.standardOutput.contains(#"{"id":"https://www.netflix.com/title","name":"Netflix","source":"catalog"}"#), "\(apps.standardOutput)")
        #expect(apps.standardError.contains("catalog apps"), "\(apps.standardError)")

        // A 0.5 s, 16 kHz stereo WAV is converted to 8 kHz mono 16-bit: 4000 samples.
        let wav = home.appendingPathComponent("query.wav")
        try makeWAV(seconds: 0.5, rate: 16000, channels: 2).write(to: wav)
        _ = try await run(["voice", "living-room", wav.path])

        try await Task.sleep(for: .milliseconds(200))
        let keys = emulator.events("key").map { "\($0["key"]!)/\($0["direction"]!)" }
        #expect(
            keys.starts(with: [
                "KEYCODE_HOME/SHORT", "KEYCODE_DPAD_UP/SHORT", "KEYCODE_DPAD_UP/SHORT", "KEYCODE_DPAD_CENTER/SHORT",
                "KEYCODE_DPAD_CENTER/START_LONG", "KEYCODE_DPAD_CENTER/END_LONG", "KEYCODE_TV_INPUT_HDMI_1/SHORT",
                "KEYCODE_VOLUME_UP/SHORT",
            ]), "\(keys)")
        #expect(emulator.events("text").first?["text"] as? String == "the expanse")
        #expect(emulator.events("launch").first?["app"] as? String == "https://www.youtube.com")
        // 4000 samples × 2 bytes, padded to the 8192-byte minimum chunk.
        #expect(emulator.events("voice").first?["bytes"] as? Int == 8192)
        // Every event carries a monotonic timestamp.
        #expect(emulator.events("key").allSatisfy { $0["t"] is Double })

        // The pin and client key stay in the 0600 secret store, never in output.
        let secrets = StorePaths(home: home).secretsFile
        var st = stat()
        stat(secrets.path, &st)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(!pairing.standardOutput.contains("PRIVATE KEY"))
    }

    @Test func noConsentMeansExitFiveAndNothingSent() async throws {
        let emulator = try await Emulator.androidTV()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-e2e")
        let p = try photon(home, ["pair", "127.0.0.1:\(emulator.port)", "--pairing-port", String(emulator.pairingPort)])
        p.closeStandardInput()
        #expect(await p.waitForExit() == 5)
        #expect(p.standardError.contains(emulator.fingerprint))
        #expect(p.standardError.contains("--trust"))
        #expect(emulator.events("pairing_code").isEmpty)
        // A fingerprint that is not the TV's is refused too.
        let wrong = try photon(
            home,
            [
                "pair", "127.0.0.1:\(emulator.port)", "--pairing-port", String(emulator.pairingPort),
                "--trust", String(repeating: "ab", count: 32),
            ])
        wrong.closeStandardInput()
        #expect(await wrong.waitForExit() == 5)
        #expect(emulator.events("pairing_code").isEmpty)
    }

    @Test func wrongCodeIsExitFour() async throws {
        let emulator = try await Emulator.androidTV()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-e2e")
        let p = try photon(
            home,
            [
                "pair", "127.0.0.1:\(emulator.port)", "--pairing-port", String(emulator.pairingPort),
                "--trust", emulator.fingerprint,
            ])
        try await emulator.process.waitFor("pairing_code")
        let code = emulator.events("pairing_code").last!["code"] as! String
        // Right check byte, wrong nonce: passes the local check, the TV refuses it.
        let wrongNonce = String(code.prefix(2)) + (code.hasSuffix("0000") ? "0001" : "0000")
        p.writeToStandardInput(wrongNonce + "\n")
        p.closeStandardInput()
        let status = await p.waitForExit()
        // Either caught locally (check byte) or refused by the TV: both are exit 4.
        #expect(status == 4, "\(p.standardError)")
        #expect(emulator.events("paired").isEmpty)
    }

    @Test func certificateChangeIsExitFiveAndNothingIsSent() async throws {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedAndroidTV.Configuration()
        configuration.remotePort = 0
        let tv = try await EmulatedAndroidTV.start(configuration) { e in events.withLock { $0.append(e) } }
        defer { Task { await tv.stop() } }
        let home = try await TestEnvironment.home("photon-e2e")
        let p = try photon(
            home,
            [
                "pair", "127.0.0.1:\(tv.remotePort)", "--pairing-port", String(tv.pairingPort),
                "--trust", tv.fingerprint.description,
            ])
        var code: String?
        for _ in 0..<500 where code == nil {
            code = events.withLock { $0.first { $0.name == "pairing_code" }?["code"]?.string }
            try await Task.sleep(for: .milliseconds(10))
        }
        p.writeToStandardInput((code ?? "") + "\n")
        p.closeStandardInput()
        #expect(await p.waitForExit() == 0, "\(p.standardError)")

        try await tv.rotateCertificate()
        let key = try photon(home, ["key", "127.0.0.1", "home"])
        key.closeStandardInput()
        #expect(await key.waitForExit() == 5)
        #expect(key.standardError.contains("certificate changed"))
        try await Task.sleep(for: .milliseconds(100))
        #expect(events.withLock { $0.filter { $0.name == "key" || $0.name == "session_ready" } }.isEmpty)

        // Unreachable TV: exit 3 quickly.
        await tv.stop()
        let gone = try photon(home, ["key", "127.0.0.1", "home", "--timeout", "2"])
        gone.closeStandardInput()
        #expect(await gone.waitForExit() == 3)
    }

    func makeWAV(seconds: Double, rate: Int, channels: Int) -> Data {
        let frames = Int(Double(rate) * seconds)
        var pcm = Data()
        for i in 0..<frames {
            let sample = Int16(sin(Double(i) * 2 * .pi * 440 / Double(rate)) * 12000)
            for _ in 0..<channels { withUnsafeBytes(of: sample.littleEndian) { pcm.append(contentsOf: $0) } }
        }
        func le32(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(v).littleEndian) { Array($0) } }
        func le16(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt16(v).littleEndian) { Array($0) } }
        var header: [UInt8] = Array("RIFF".utf8)
        header += le32(36 + pcm.count)
        header += Array("WAVEfmt ".utf8)
        header += le32(16)
        header += le16(1)
        header += le16(channels)
        header += le32(rate)
        header += le32(rate * channels * 2)
        header += le16(channels * 2)
        header += le16(16)
        header += Array("data".utf8)
        header += le32(pcm.count)
        return Data(header) + pcm
    }
}

/// `photon key TV power --wake`: a TV that does not answer is woken (to loopback only)
/// and the command waits for it to come up.
@Suite(.serialized) struct WakeOnPowerTests {
    @Test func powerKeyWakesASleepingTV() async throws {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedAndroidTV.Configuration()
        configuration.remotePort = 0
        let tv = try await EmulatedAndroidTV.start(configuration) { e in events.withLock { $0.append(e) } }
        let home = try await TestEnvironment.home("photon-wake")
        let binary = try AndroidTVEndToEndTests.binary("photon")
        let pairing = try TestProcess(
            binary,
            [
                "pair", "127.0.0.1:\(tv.remotePort)", "--pairing-port", String(tv.pairingPort),
                "--trust", tv.fingerprint.description, "--name", "den", "--home", home.path,
            ])
        var code: String?
        for _ in 0..<500 where code == nil {
            code = events.withLock { $0.first { $0.name == "pairing_code" }?["code"]?.string }
            try await Task.sleep(for: .milliseconds(10))
        }
        pairing.writeToStandardInput((code ?? "") + "\n")
        pairing.closeStandardInput()
        #expect(await pairing.waitForExit() == 0, "\(pairing.standardError)")

        // The TV "sleeps"; a listener on 127.0.0.1:9 stands in for its network card.
        await tv.stop()
        let card = try UDPReceiverForTests(port: 9)
        defer { card.close() }
        let key = try TestProcess(binary, ["key", "den", "power", "--wake", "--broadcast", "127.0.0.1", "--timeout", "1", "--home", home.path])
        key.closeStandardInput()
        let packet = try await card.receive()
        #expect(packet.count == 102)
        #expect(Array(packet[6..<12]) == [0x02, 0x00, 0x00, 0xAA, 0xBB, 0xCC])
        // It wakes up: the same TV on the same ports.
        try await tv.restart()
        defer { Task { await tv.stop() } }
        #expect(await key.waitForExit(timeout: .seconds(30)) == 0, "\(key.standardError)")
        #expect(key.standardError.contains("The TV is awake"))
        // Without --wake and without a terminal, it only says how.
        await tv.stop()
        let plain = try TestProcess(binary, ["key", "den", "power", "--timeout", "1", "--home", home.path])
        plain.closeStandardInput()
        #expect(await plain.waitForExit() == 3)
        #expect(plain.standardError.contains("--wake"))
    }
}

/// `photon status TV --watch` streams changes as the TV reports them.
@Suite(.serialized) struct StatusWatchTests {
    @Test func watchPrintsChangesAsTheyHappen() async throws {
        let emulator = try await EmulatorProcess.androidTV()
        defer { emulator.process.terminate() }
        let home = try await TestEnvironment.home("photon-watch")
        let binary = try AndroidTVEndToEndTests.binary("photon")
        let pairing = try TestProcess(
            binary,
            [
                "pair", "127.0.0.1:\(emulator.port)", "--pairing-port", String(emulator.pairingPort), "--trust", emulator.fingerprint,
                "--name", "tv", "--home", home.path,
            ])
        try await emulator.process.waitFor("pairing_code")
        pairing.writeToStandardInput((emulator.events("pairing_code").last!["code"] as! String) + "\n")
        pairing.closeStandardInput()
        #expect(await pairing.waitForExit() == 0, "\(pairing.standardError)")

        let watch = try TestProcess(binary, ["status", "tv", "--watch", "--json", "--home", home.path])
        defer { watch.terminate() }
        try await watch.waitFor(#""level":10"#)
        let key = try TestProcess(binary, ["volume", "tv", "up", "--home", home.path])
        key.closeStandardInput()
        #expect(await key.waitForExit() == 0)
        // The watching session sees the new level the TV reports.
        try await watch.waitFor(#""level":11"#)
        #expect(watch.standardOutput.contains(#""power":"on""#))
        #expect(watch.standardOutput.contains(#""power_state":"on""#))
        // An app launched from another client shows too (newcomer #15), and no report is
        // printed twice without a change.
        let launch = try TestProcess(binary, ["launch", "tv", "com.netflix.ninja", "--home", home.path])
        launch.closeStandardInput()
        #expect(await launch.waitForExit() == 0, "\(launch.standardError)")
        try await watch.waitFor("com.netflix.ninja")
        let lines = watch.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains(#""level":11"#) }.count == 1, "\(lines)")
        #expect(Set(lines).count == lines.count, "a line was printed twice: \(lines)")
        #expect(watch.process.isRunning)
    }
}
