import AndroidKeys
import AndroidTVEmulator
import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet
import PhotonTestSupport
import Testing

@testable import AndroidTV

/// Collects an emulator's events so tests can wait for them.
final class EventLog: Sendable {
    private let events = Locked<[EmulatorEvent]>([])
    var handler: @Sendable (EmulatorEvent) -> Void { { [events] e in events.withLock { $0.append(e) } } }
    var all: [EmulatorEvent] { events.withLock { $0 } }
    func named(_ name: String) -> [EmulatorEvent] { all.filter { $0.name == name } }

    func wait(for name: String, count: Int = 1, timeout: Duration = .seconds(10)) async throws -> EmulatorEvent {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            let found = named(name)
            if found.count >= count { return found[count - 1] }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("no '\(name)' event; saw: \(all.map(\.name))")
    }
}

/// Answers challenges from the emulator's own events (the code it "shows").
struct EmulatorResponder: PairingResponder {
    let log: EventLog
    var trust = true
    var codeOverride: String?

    func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
        switch challenge {
        case .trustCertificate: return .trust(trust)
        case .enterCode:
            if let codeOverride { return .code(codeOverride) }
            let count = log.named("pairing_code").count
            let event = try await log.wait(for: "pairing_code", count: max(count, 1))
            return .code(event["code"]!.string!)
        case .confirmOnTV: return .wait
        case .allowUnencrypted: return .trust(false)
        }
    }
}

func startTV(_ configure: (inout EmulatedAndroidTV.Configuration) -> Void = { _ in }) async throws -> (EmulatedAndroidTV, EventLog) {
    let log = EventLog()
    var configuration = EmulatedAndroidTV.Configuration()
    configuration.remotePort = 0
    configuration.pingInterval = .milliseconds(200)
    configure(&configuration)
    let tv = try await EmulatedAndroidTV.start(configuration, onEvent: log.handler)
    return (tv, log)
}

let sharedIdentity = Result { try IdentityFactory.makeClientIdentity(commonName: "Photon test client") }

func context(identity: ClientIdentity? = nil) throws -> AdapterContext {
    AdapterContext(connector: NetConnector(), clientIdentity: try identity ?? sharedIdentity.get(), clientName: "Photon tests", timeout: .seconds(5))
}

@Suite struct EmulatorFlowTests {
    func pair(_ tv: EmulatedAndroidTV, _ log: EventLog, context: AdapterContext) async throws -> PairedTV {
        let flow = AndroidTVAdapter().pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.remotePort), options: AdapterOptionValues(ports: ["pairing": tv.pairingPort]), context: context
        )
        return try await flow.run(responder: EmulatorResponder(log: log))
    }

    @Test func pairsAndControls() async throws {
        let (tv, log) = try await startTV()
        defer { Task { await tv.stop() } }
        let ctx = try context()
        let paired = try await pair(tv, log, context: ctx)
        #expect(paired.secrets.pin == tv.fingerprint)
        #expect(paired.device.mac == "02:00:00:AA:BB:CC")
        #expect(paired.device.name == "Photon Emulated TV")
        #expect(paired.device.id == "androidtv-020000aabbcc")
        _ = try await log.wait(for: "paired")

        let session = try await AndroidTVAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        try await session.send(.key(.key(.home), .press))
        try await session.send(.key(.raw("KEYCODE_TV_INPUT"), .press))
        try await session.send(.longPress(.key(.select), milliseconds: 50))
        try await session.send(.text("hello"))
        try await session.send(.launch("https://www.youtube.com"))
        try await session.send(.voice(pcm: [UInt8](repeating: 1, count: 30000), sampleRate: 8000))
        _ = try await log.wait(for: "voice")
        let keys = log.named("key").map { "\($0["key"]!.string!)/\($0["direction"]!.string!)" }
        #expect(
            Array(keys.prefix(4)) == [
                "KEYCODE_HOME/SHORT", "KEYCODE_TV_INPUT/SHORT", "KEYCODE_DPAD_CENTER/START_LONG", "KEYCODE_DPAD_CENTER/END_LONG",
            ])
        #expect(log.named("text").first?["text"]?.string == "hello")
        #expect(log.named("launch").first?["app"]?.string == "https://www.youtube.com")
        // 30000 bytes → 20480 + 9520 (the last at least 8192).
        #expect(log.named("voice").first?["bytes"]?.int == 30000)
        await session.close()
    }
}

@Suite struct AndroidTVSecurityTests {
    func pairedSetup(_ configure: (inout EmulatedAndroidTV.Configuration) -> Void = { _ in }) async throws
        -> (EmulatedAndroidTV, EventLog, PairedTV, AdapterContext)
    {
        let (tv, log) = try await startTV(configure)
        let ctx = try context()
        let flow = AndroidTVAdapter().pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.remotePort), options: AdapterOptionValues(ports: ["pairing": tv.pairingPort]), context: ctx)
        let paired = try await flow.run(responder: EmulatorResponder(log: log))
        return (tv, log, paired, ctx)
    }

    @Test func unpairedClientIsRejected() async throws {
        let (tv, log, paired, _) = try await pairedSetup()
        defer { Task { await tv.stop() } }
        // Another installation with its own identity, never paired.
        let stranger = try context(identity: try IdentityFactory.makeClientIdentity(commonName: "stranger"))
        do {
            _ = try await AndroidTVAdapter().openSession(device: paired.device, secrets: paired.secrets, context: stranger)
            Issue.record("an unpaired client got a session")
        } catch let error as PhotonError {
            #expect(error.code == .authenticationRefused)
            #expect(error.exitCode == 4)
            #expect(error.hint?.contains("pair again") == true)
        }
        _ = try await log.wait(for: "client_rejected")
        #expect(log.named("key").isEmpty)
    }

    /// A connection cut during the TLS handshake (a network fault, a TV restarting) is
    /// not the TV refusing us: it is retryable (exit 3), so a warm daemon reconnects;
    /// only a TLS alert means "pair again" (above).
    @Test func aCutDuringTheHandshakeIsNotARefusal() async throws {
        let (_, _, paired, _) = try await pairedSetup()
        let cutter = try TCPListener()
        defer { cutter.close() }
        let cutting = Task {
            while let stream = try? await cutter.accept() {
                // Read the ClientHello, then hang up without a word.
                _ = try? await stream.read(maxLength: 4096, timeout: .seconds(2))
                await stream.close()
            }
        }
        defer { cutting.cancel() }
        var device = paired.device
        device.port = cutter.port
        let error = await #expect(throws: PhotonError.self) {
            _ = try await AndroidTVAdapter().openSession(device: device, secrets: paired.secrets, context: try context())
        }
        #expect(error?.code == .connectionClosed, "\(String(describing: error))")
        #expect(error?.exitCode == 3)
        #expect(error?.hint?.contains("pair again") == true)
    }

    @Test func wrongCodeIsRefused() async throws {
        let (tv, log) = try await startTV()
        defer { Task { await tv.stop() } }
        let flow = AndroidTVAdapter().pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.remotePort), options: AdapterOptionValues(ports: ["pairing": tv.pairingPort]),
            context: try context())
        // A code with a valid-looking shape whose check byte is wrong: caught locally, three times.
        do {
            _ = try await flow.run(responder: EmulatorResponder(log: log, codeOverride: "000000"))
            Issue.record("a wrong code paired")
        } catch let error as PhotonError {
            #expect(error.code == .pairingRefused)
            #expect(error.exitCode == 4)
        }
        #expect(log.named("paired").isEmpty)
        #expect(tv.pairedClients.isEmpty)
    }

    @Test func refusedConsentSendsNothing() async throws {
        let (tv, log) = try await startTV()
        defer { Task { await tv.stop() } }
        let flow = AndroidTVAdapter().pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.remotePort), options: AdapterOptionValues(ports: ["pairing": tv.pairingPort]),
            context: try context())
        do {
            _ = try await flow.run(responder: EmulatorResponder(log: log, trust: false))
            Issue.record("pairing went on without consent")
        } catch let error as PhotonError {
            #expect(error.code == .untrustedCertificate)
            #expect(error.exitCode == 5)
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(log.named("pairing_code").isEmpty)
    }

    @Test func tvWithoutKeyFeatureSaysUnsupported() async throws {
        let (tv, log, paired, ctx) = try await pairedSetup { $0.features = 637 }
        defer { Task { await tv.stop() } }
        let session = try await AndroidTVAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        #expect(!session.capabilities.contains(.keys))
        do {
            try await session.send(.key(.key(.home), .press))
            Issue.record("a key went to a TV without KEY")
        } catch let error as PhotonError {
            #expect(error.code == .unsupported)
            #expect(error.hint?.contains("clear the storage") == true)
        }
        #expect(log.named("key").isEmpty)
        await session.close()
    }

    /// A TV that takes SEARCH but opens no voice session (its assistant is off) is told
    /// apart within the command's network wait, with no audio sent.
    @Test func voiceToATVThatOpensNoVoiceSessionIsUnsupported() async throws {
        let (tv, log, paired, _) = try await pairedSetup { $0.startsVoice = false }
        defer { Task { await tv.stop() } }
        var ctx = try context()
        ctx.timeout = .seconds(1)
        let quick = try await AndroidTVAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        do {
            try await quick.send(.voice(pcm: [UInt8](repeating: 1, count: 3000), sampleRate: 8000))
            Issue.record("voice went to a TV that opened no voice session")
        } catch let error as PhotonError {
            #expect(error.code == .unsupported)
            #expect(error.message.contains("did not start a voice session"))
        }
        #expect(log.named("key").contains { $0["key"]?.string == "KEYCODE_SEARCH" })
        #expect(log.named("voice_begin").isEmpty && log.named("voice_chunk").isEmpty)
        await quick.close()
    }

    @Test func pingsAreAnsweredAndEventsArrive() async throws {
        let (tv, _, paired, ctx) = try await pairedSetup()
        defer { Task { await tv.stop() } }
        let session = try await AndroidTVAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        var power: Bool?
        var volume: VolumeState?
        var app: String?
        let collector = Task {
            var seen: [TVEvent] = []
            // Until power, volume and the app have each been reported (the power state
            // comes as `powerState` and `power`).
            for await event in session.events {
                seen.append(event)
                let kinds = Set(seen.map(ReportedKind.init))
                if kinds.isSuperset(of: [.power, .volume, .app]) { break }
            }
            return seen
        }
        try await session.send(.volume(.up))
        for event in await collector.value {
            switch event {
            case .power(let on): power = on
            case .volume(let v): volume = v
            case .currentApp(let a): app = a
            default: break
            }
        }
        #expect(power == true)
        #expect(volume?.maximum == 100)
        #expect(app == "com.google.android.tvlauncher")
        // Several ping intervals later the session is still alive (pings answered).
        try await Task.sleep(for: .milliseconds(700))
        try await session.send(.key(.key(.back), .press))
        await session.close()
    }

    @Test func silentTVIsNoticedByTheWatchdog() async throws {
        // The default sits in the 15–20 s band the protocol notes recommend.
        #expect(AndroidTVSession.defaultIdleLimit >= .seconds(15) && AndroidTVSession.defaultIdleLimit <= .seconds(20))
        let (tv, _, paired, ctx) = try await pairedSetup()
        defer { Task { await tv.stop() } }
        let session = try await AndroidTVAdapter(idleLimit: .milliseconds(600))
            .openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        tv.setMisbehaviour(.silent)
        let start = ContinuousClock.now
        var reason: PhotonError?
        for await event in session.events {
            if case .disconnected(let r) = event { reason = r }
        }
        #expect(reason?.code == .timeout)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func stateDirectoryKeepsIdentityAndPairings() async throws {
        let dir = try TestEnvironment.temporaryDirectory("atv-state")
        let (tv, log, paired, ctx) = try await pairedSetup { $0.stateDirectory = dir }
        let fingerprint = tv.fingerprint
        let ports = (tv.remotePort, tv.pairingPort)
        await tv.stop()
        _ = log
        // The same TV again: same certificate, and it still knows this client.
        let (again, _) = try await startTV {
            $0.stateDirectory = dir
            $0.remotePort = ports.0
            $0.pairingPort = ports.1
        }
        defer { Task { await again.stop() } }
        #expect(again.fingerprint == fingerprint)
        let session = try await AndroidTVAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        try await session.send(.key(.key(.home), .press))
        await session.close()
    }

    @Test func voiceChunking() {
        #expect(VoiceChunker.chunks(of: [UInt8](repeating: 1, count: 80000)).map(\.count) == [20480, 20480, 20480, 18560])
        #expect(VoiceChunker.chunks(of: [UInt8](repeating: 1, count: 100)).map(\.count) == [8192])
    }

    @Test func certificateSubjects() {
        let a = AndroidTVCertificateSubject.parse(commonName: "atvremote/darcy/darcy/SHIELD Android TV/aa:bb:cc:dd:ee:ff", subject: "")
        #expect(a.name == "SHIELD Android TV" && a.mac == "AA:BB:CC:DD:EE:FF")
        let b = AndroidTVCertificateSubject.parse(
            commonName: "atvremote/A8-71-16-A2-31-1D", subject: "dnQualifier=fugu/fugu/Nexus Player,CN=atvremote/A8-71-16-A2-31-1D")
        #expect(b.name == "Nexus Player" && b.mac == "A8:71:16:A2:31:1D")
        #expect(AndroidTVCertificateSubject.parse(commonName: "Home Assistant", subject: "").mac == nil)
        #expect(AndroidTVCertificateSubject.normalizedMAC("not a mac") == nil)
    }

    @Test func recognisesDiscoveredServices() {
        let adapter = AndroidTVAdapter()
        let v2 = adapter.recognise(
            DiscoveredService(
                name: "Living Room\u{1B}[2J", type: "_androidtvremote2._tcp", host: "android-2.local", addresses: ["127.0.0.1"], port: 6466,
                txt: ["bt": "a8:71:16:a2:31:1d"]))
        #expect(v2?.name == "Living Room?[2J")
        #expect(v2?.mac == "A8:71:16:A2:31:1D" && v2?.id == "androidtv-a87116a2311d")
        #expect(v2?.ports == ["remote": 6466, "pairing": 6467] && v2?.unsupportedReason == nil)
        let v1 = adapter.recognise(
            DiscoveredService(
                name: "Old Box", type: "_androidtvremote._tcp", host: "h", addresses: ["127.0.0.1"], port: 6466, txt: [:]))
        #expect(v1?.unsupportedReason?.contains("legacy") == true)
        #expect(adapter.recognise(DiscoveredService(name: "x", type: "_http._tcp", host: "h", addresses: [], port: 80, txt: [:])) == nil)
    }

    @Test func keyTable() throws {
        #expect(try AndroidKeyCodes.resolve(.key(.select)) == 23)
        #expect(try AndroidKeyCodes.resolve(.raw("keycode_tv_input")) == 178)
        #expect(try AndroidKeyCodes.resolve(.raw("TV_INPUT_HDMI_1")) == 243)
        #expect(try AndroidKeyCodes.resolve(.raw("304")) == 304)
        #expect(throws: PhotonError.self) { try AndroidKeyCodes.resolve(.raw("305")) }
        #expect(throws: PhotonError.self) { try AndroidKeyCodes.resolve(.raw("KEYCODE_NOPE")) }
        #expect(AndroidKeyCodes.names.count == 305)
        #expect(AndroidKeyCodes.keyTable.count == RemoteKey.allCases.count)
    }
}

/// The kind of a TV event, for waiting until each has been reported.
private enum ReportedKind: Hashable {
    case power, volume, app, other
    init(_ event: TVEvent) {
        switch event {
        case .power: self = .power
        case .volume: self = .volume
        case .currentApp: self = .app
        default: self = .other
        }
    }
}
