import FireTV
import FireTVEmulator
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet
import PhotonTestSupport
import Testing

/// The adapter against the emulated device in process, and the shell commands it builds
/// checked against the emulated shell.
@Suite(.serialized) struct FireTVAdapterTests {
    func context(_ timeout: Duration = .seconds(5)) throws -> AdapterContext {
        AdapterContext(connector: NetConnector(), clientIdentity: try TestEnvironment.sharedClientIdentity, timeout: timeout)
    }

    /// The emulated device on a free port, and the `field` of every `event` it reports.
    func startTV(recording event: String, _ field: String) throws -> (EmulatedFireTV, Locked<[String]>) {
        var configuration = EmulatedFireTV.Configuration()
        configuration.port = 0
        let seen = Locked<[String]>([])
        let tv = try EmulatedFireTV.start(configuration) { reported in
            if reported.name == event, let value = reported[field]?.string { seen.withLock { $0.append(value) } }
        }
        return (tv, seen)
    }

    struct Consenting: PairingResponder {
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
            if case .allowUnencrypted = challenge { return .trust(true) }
            return .wait
        }
    }

    /// Round 4, M2: ADB signs whatever token the device sends, so it signs with a key of
    /// its own (a secret of the pairing), never the TLS identity other brands trust. A
    /// pairing from before gets a new key, stored, and one more "Allow USB debugging?".
    @Test func adbSignsWithAKeyOfItsOwnAndAnOldPairingMigratesOnce() async throws {
        let (tv, prompts) = try startTV(recording: "allow_prompt", "fingerprint")
        defer { Task { await tv.stop() } }
        let context = try context()
        func fingerprint(_ pem: String) throws -> String { ADBPublicKey.fingerprint(try ADBPublicKey.encode(try RSAKey(pem: pem), comment: "x")) }
        let identity = try fingerprint(context.clientIdentity.privateKeyPEM)
        let paired = try await FireTVAdapter().pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: .init(), context: context)
            .run(responder: Consenting())
        let adbKey = try fingerprint(try #require(paired.secrets.values[FireTVAdapter.adbKeySecret]))
        #expect(adbKey != identity)
        #expect(prompts.withLock { $0 } == [adbKey])
        // Sessions sign with it: no new prompt.
        let session = try await FireTVAdapter(pollInterval: .zero).openSession(device: paired.device, secrets: paired.secrets, context: context)
        await session.close()
        #expect(prompts.withLock { $0 }.count == 1)
        // A pairing from before ADB had its own key: a new one, stored, allowed once.
        let stored = Locked<DeviceSecrets?>(nil)
        var migrating = context
        migrating.secretsChanged = { _, updated in stored.withLock { $0 = updated } }
        let migrated = try await FireTVAdapter(pollInterval: .zero).openSession(device: paired.device, secrets: DeviceSecrets(), context: migrating)
        await migrated.close()
        let newKey = try fingerprint(try #require(stored.withLock { $0 }?.values[FireTVAdapter.adbKeySecret]))
        #expect(prompts.withLock { $0 } == [adbKey, newKey] && newKey != identity)
    }

    /// A session opened for a command runs it before its own state reads (each a
    /// `dumpsys` the device would run beside the key); one opened for nothing reads at once.
    @Test func aSessionOpenedForAKeyRunsItBeforeItsStateReads() async throws {
        let (tv, shells) = try startTV(recording: "shell", "command")
        defer { Task { await tv.stop() } }
        let paired = try await FireTVAdapter().pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: .init(), context: try context())
            .run(responder: Consenting())
        func waitForDumpsys(_ count: Int) async throws {
            for _ in 0..<500 where shells.withLock({ $0.filter { $0.hasPrefix("dumpsys") }.count }) < count {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        shells.withLock { $0.removeAll() }
        var forAKey = try context()
        forAKey.expectedCommand = .key(.key(.home), .press)
        let session = try await FireTVAdapter(pollInterval: .seconds(30)).openSession(
            device: paired.device, secrets: paired.secrets, context: forAKey)
        try await Task.sleep(for: .milliseconds(200))
        #expect(!shells.withLock { $0 }.contains { $0.hasPrefix("dumpsys") }, "\(shells.withLock { $0 })")
        try await session.send(.key(.key(.home), .press))
        try await waitForDumpsys(2)
        let afterIdentity = shells.withLock { $0 }.drop { $0.hasPrefix("getprop") }
        #expect(afterIdentity.first?.hasPrefix("input keyevent") == true, "\(shells.withLock { $0 })")
        #expect(afterIdentity.dropFirst().filter { $0.hasPrefix("dumpsys") }.count == 2)
        await session.close()

        shells.withLock { $0.removeAll() }
        let unprompted = try await FireTVAdapter(pollInterval: .seconds(30)).openSession(
            device: paired.device, secrets: paired.secrets, context: try context())
        try await waitForDumpsys(2)
        #expect(shells.withLock { $0 }.filter { $0.hasPrefix("dumpsys") }.count == 2)
        await unprompted.close()
    }

    @Test func anUnansweredPromptEndsInATimeoutThatSaysWhatToDo() async throws {
        var configuration = EmulatedFireTV.Configuration()
        configuration.port = 0
        configuration.accept = .timeout
        let tv = try EmulatedFireTV.start(configuration) { _ in }
        defer { Task { await tv.stop() } }
        let started = ContinuousClock.now
        let adapter = FireTVAdapter(acceptTimeout: .milliseconds(600))
        let error = try await #require(throws: PhotonError.self) {
            _ = try await adapter.pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: .init(), context: try context())
                .run(responder: Consenting())
        }
        #expect(error.code == .timeout && error.exitCode == 3, "\(error)")
        #expect(error.hint?.contains("Allow") == true)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func aDeviceThatNeverAnswersACommandFailsItInTime() async throws {
        var configuration = EmulatedFireTV.Configuration()
        configuration.port = 0
        configuration.misbehaviour = .silent
        let tv = try EmulatedFireTV.start(configuration) { _ in }
        defer { Task { await tv.stop() } }
        let adapter = FireTVAdapter(pollInterval: .zero)
        let context = try context(.seconds(1))
        // Pairing reads the serial through a command: a silent device fails it, bounded.
        let started = ContinuousClock.now
        let error = try await #require(throws: PhotonError.self) {
            _ = try await adapter.pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: .init(), context: context)
                .run(responder: Consenting())
        }
        #expect(error.code == .timeout, "\(error)")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func theProbeTellsAnADBDeviceFromAnythingElse() async throws {
        var configuration = EmulatedFireTV.Configuration()
        configuration.port = 0
        let tv = try EmulatedFireTV.start(configuration) { _ in }
        defer { Task { await tv.stop() } }
        let candidate = try await FireTVAdapter().probe(host: "127.0.0.1", ports: ["adb": tv.port], context: try context())
        #expect(candidate?.brand == "firetv")
        #expect(candidate?.remarks.first?.contains("Allow USB debugging") == true)
        // A TCP server that speaks something else is not ADB.
        let other = try TCPListener(host: "127.0.0.1", port: 0)
        defer { other.close() }
        let answering = Task {
            if let stream = try? await other.accept() {
                try? await stream.write(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8), timeout: .seconds(1))
                await stream.close()
            }
        }
        defer { answering.cancel() }
        #expect(try await FireTVAdapter().probe(host: "127.0.0.1", ports: ["adb": other.port], context: try context()) == nil)
    }

    @Test func everyBuiltCommandParsesBackToItsLiteralWords() throws {
        let texts = ["it's", "a b", "$(x)", "`x`", "a;b", "\\", "\"", "50%s", "%", "%%s", "~/*?[]{}<>|&#!"]
        for text in texts {
            let commands = try ADBShellCommands.typing(text)
            let parsed = try EmulatedShell.parse(commands.joined(separator: "; "))
            let typed = parsed.map { command -> String in
                #expect(Array(command.words.prefix(2)) == ["input", "text"], "\(command.words)")
                return EmulatedShell.typed(command.words[2])
            }.joined()
            #expect(typed == text, "typed \(typed) for \(text)")
        }
        #expect(throws: PhotonError.self) { try ADBShellCommands.typing("naïve") }
        #expect(throws: PhotonError.self) { try ADBShellCommands.typing("bell\u{7}") }
        #expect(try ADBShellCommands.typing("a\nb") == ["input text 'a'", "input keyevent 'KEYCODE_ENTER'", "input text 'b'"])

        #expect(try ADBShellCommands.launch("com.netflix.ninja") == "monkey -p 'com.netflix.ninja' -c android.intent.category.LAUNCHER 1")
        let link = try ADBShellCommands.launch("https://x.example/?a=1&b='2'")
        #expect(try EmulatedShell.parse(link).first?.words.last == "https://x.example/?a=1&b='2'")
        #expect(throws: PhotonError.self) { try ADBShellCommands.launch("com.x; reboot") }
        #expect(throws: PhotonError.self) { try ADBShellCommands.launch("not a package") }
    }

    @Test func theEmulatedShellRefusesWhatAShellWouldRun() {
        for line in ["echo $(id)", "echo `id`", "a > b", "a & b", "echo ${X}", "echo *", "echo 'open", "a || b"] {
            #expect(throws: EmulatedShell.ShellRefusal.self, "\(line)") { try EmulatedShell.parse(line) }
        }
        #expect(
            (try? EmulatedShell.parse("a 'b c' \"d e\" f\\ g; h && i | j")) == [
                .init(words: ["a", "b c", "d e", "f g"], pipesIntoNext: false), .init(words: ["h"], pipesIntoNext: false),
                .init(words: ["i"], pipesIntoNext: true), .init(words: ["j"], pipesIntoNext: false),
            ])
    }

    @Test func dumpsysAnswersBecomePowerAndTheForegroundApp() {
        #expect(FireTVStateParsing.power("  mWakefulness=Awake\n")?.0 == .on)
        #expect(FireTVStateParsing.power("mWakefulness=Asleep")?.0 == .standby)
        #expect(FireTVStateParsing.power("mWakefulness=Dreaming")?.1?.contains("screen saver") == true)
        #expect(FireTVStateParsing.power("nothing here") == nil)
        #expect(
            FireTVStateParsing.foreground("  mCurrentFocus=Window{5e2a1b u0 com.netflix.ninja/com.netflix.ninja.MainActivity}") == "com.netflix.ninja"
        )
        #expect(FireTVStateParsing.foreground("  mCurrentFocus=null") == nil)
    }
}
