import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet
import PhotonTestSupport
import RokuEmulator
import Testing

@testable import Roku

/// The Roku adapter against the emulated Roku: what is truly Roku's — the network-access
/// modes, the serial check, keep-alive, and misbehaving sets.
@Suite(.serialized) struct RokuFlowTests {
    func start(_ configure: (inout EmulatedRoku.Configuration) -> Void = { _ in }) throws -> (EmulatedRoku, Locked<[EmulatorEvent]>) {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedRoku.Configuration()
        configuration.port = 0
        configure(&configuration)
        return (try EmulatedRoku.start(configuration) { event in events.withLock { $0.append(event) } }, events)
    }

    func context(timeout: Duration = .seconds(3)) throws -> AdapterContext {
        AdapterContext(connector: NetConnector(), clientIdentity: try TestEnvironment.sharedClientIdentity, timeout: timeout)
    }

    struct NoQuestions: PairingResponder {
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer { .wait }
    }

    func pair(_ tv: EmulatedRoku, _ ctx: AdapterContext) async throws -> PairedTV {
        try await RokuAdapter().pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(), context: ctx).run(
            responder: NoQuestions())
    }

    /// Another Roku at the address of a warm session: every new connection shows its
    /// serial before it carries a request, so neither a command on a reopened connection
    /// nor the poller reaches it; the session ends with pin_mismatch (exit 5).
    @Test func aRokuSwappedUnderAWarmSessionGetsNothing() async throws {
        let (first, _) = try start()
        let port = first.port
        let ctx = try context()
        let paired = try await pair(first, ctx)
        let session = try await RokuAdapter(pollInterval: .seconds(60)).openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        defer { Task { await session.close() } }
        // The poller's first round done (it reports the app last), so that it is not
        // caught mid-round by the swap.
        _ = try await withTimeout(.seconds(5), "the first poll") { () -> Bool in
            for await event in session.events { if case .currentApp = event { return true } }
            return false
        }
        try await session.send(.key(.key(.home), .press))
        await first.stop()
        let (other, otherEvents) = try start {
            $0.port = port
            $0.serial = "YN00OTHER999"
        }
        defer { Task { await other.stop() } }
        var refusals: [PhotonError] = []
        for _ in 0..<3 {
            do {
                try await session.send(.key(.key(.up), .press))
            } catch {
                refusals.append(PhotonError.wrap(error))
            }
        }
        #expect(refusals.count == 3)
        #expect(refusals.contains { $0.code == .pinMismatch && $0.exitCode == 5 }, "\(refusals.map(\.message))")
        #expect(otherEvents.withLock { $0 }.filter { $0.name == "key" }.isEmpty)
    }

    /// Text is one request per character: a text cut short says how much the TV has,
    /// not that nothing was sent.
    @Test func aTextCutShortSaysHowMuchWasTyped() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let ctx = try context()
        let paired = try await pair(tv, ctx)
        let session = try await RokuAdapter(pollInterval: .seconds(60)).openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        defer { Task { await session.close() } }
        tv.cutText(after: 3)
        let error = await #expect(throws: PhotonError.self) { try await session.send(.text("photon")) }
        #expect(error?.message.contains("typed 3 of 6 characters") == true, "\(String(describing: error?.message))")
        #expect(events.withLock { $0 }.filter { $0.name == "text" }.last?["text"]?.string == "pho")
    }

    @Test func limitedAndDisabledGiveExitFourWithTheSetting() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let ctx = try context()
        let paired = try await pair(tv, ctx)
        let session = try await RokuAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        defer { Task { await session.close() } }
        tv.setAccess(.limited)
        for command: RemoteCommand in [.key(.key(.home), .press), .launch("12")] {
            let error = await #expect(throws: PhotonError.self) { try await session.send(command) }
            #expect(error?.exitCode == 4)
            #expect(error?.message.contains("Limited") == true)
            #expect(error?.hint?.contains("Control by mobile apps > Network access") == true)
        }
        #expect(events.withLock { $0.filter { $0.name == "key" || $0.name == "launch" } }.isEmpty)
        // Pairing and probing report it up front.
        let refusal = await #expect(throws: PhotonError.self) { _ = try await pair(tv, ctx) }
        #expect(refusal?.exitCode == 4)
        let probed = try await RokuAdapter().probe(host: "127.0.0.1", ports: ["ecp": tv.port], context: ctx)
        #expect(probed?.remarks.first?.contains("limited") == true)
        tv.setAccess(.disabled)
        let disabled = await #expect(throws: PhotonError.self) {
            _ = try await RokuAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        }
        #expect(disabled?.exitCode == 4)
        #expect(disabled?.message.contains("Disabled") == true)
    }

    @Test func anotherRokuAtTheStoredAddressIsRefused() async throws {
        let (tv, events) = try start()
        let ctx = try context()
        let paired = try await pair(tv, ctx)
        let port = tv.port
        await tv.stop()
        let (other, otherEvents) = try start {
            $0.port = port
            $0.serial = "ZZ99OTHER000"
        }
        defer { Task { await other.stop() } }
        let error = await #expect(throws: PhotonError.self) {
            let session = try await RokuAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
            try await session.send(.key(.key(.home), .press))
        }
        #expect(error?.code == .pinMismatch)
        #expect(error?.exitCode == 5)
        #expect(otherEvents.withLock { $0.filter { $0.name == "key" } }.isEmpty)
        _ = events
    }

    @Test func keysShareOneKeptAliveConnection() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let ctx = try context()
        let paired = try await pair(tv, ctx)
        let before = events.withLock { $0.filter { $0.name == "client_connected" }.count }
        let session = try await RokuAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        for _ in 0..<20 { try await session.send(.key(.key(.down), .press)) }
        try await session.send(.longPress(.key(.select), milliseconds: 50))
        try await session.send(.search("the expanse & more"))
        await session.close()
        #expect(events.withLock { $0.filter { $0.name == "search" } }.first?["keyword"]?.string == "the expanse & more")
        let keys = events.withLock { $0.filter { $0.name == "key" } }
        #expect(keys.count == 22)
        #expect(keys.suffix(2).map { $0["action"]?.string } == ["keydown", "keyup"])
        #expect(events.withLock { $0.filter { $0.name == "client_connected" }.count } - before == 1)
    }

    @Test(arguments: [EmulatedRoku.Misbehaviour.slow, .garbage, .huge, .close])
    func misbehavingSetsEndWithinTheTimeoutWithAClearError(_ misbehaviour: EmulatedRoku.Misbehaviour) async throws {
        let (tv, _) = try start()
        defer { Task { await tv.stop() } }
        let ctx = try context(timeout: .seconds(1))
        let paired = try await pair(tv, ctx)
        tv.misbehave(misbehaviour)
        let started = ContinuousClock.now
        let error = await #expect(throws: PhotonError.self) {
            _ = try await RokuAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        }
        let expected: [PhotonError.Code] =
            switch misbehaviour {
            case .slow: [.timeout]
            case .garbage: [.protocolViolation]
            case .huge: [.messageTooLarge]
            default: [.connectionClosed, .unreachable]
            }
        #expect(error.map { expected.contains($0.code) } == true, "\(error?.code.rawValue ?? ""): \(error?.message ?? "")")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func ssdpSearchOnLoopbackFindsTheEmulatedRoku() async throws {
        let probe = try UDPReceiver(host: "127.0.0.1", port: 0)
        let ssdpPort = probe.port
        probe.close()
        let (tv, _) = try start { $0.ssdpPort = ssdpPort }
        defer { Task { await tv.stop() } }
        let answers = try await SSDPSearcher.search(targets: ["roku:ecp"], host: "127.0.0.1", port: ssdpPort, timeout: .milliseconds(800))
        let candidate = answers.lazy.compactMap { RokuAdapter().recognise(SSDP.service($0)) }.first
        #expect(candidate?.id == "roku-yn00photon01")
        #expect(candidate?.endpoint.port == tv.port)
    }
}

/// rokuecp 0.19.5 (pinned in the test venv) drives the emulated Roku: it must answer as
/// real sets do, not only as our own client expects.
@Suite struct RokuInteropTests {
    @Test func rokuecpUpdatesPressesTypesAndLaunches() async throws {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedRoku.Configuration()
        configuration.port = 0
        configuration.name = "Interop Den"
        let tv = try EmulatedRoku.start(configuration) { event in events.withLock { $0.append(event) } }
        defer { Task { await tv.stop() } }
        let client = try TestProcess(try TestEnvironment.python, [TestEnvironment.peerScript("roku_client.py"), String(tv.port)])
        defer { client.terminate() }
        try await client.waitFor("DONE", timeout: .seconds(30))
        #expect(await client.waitForExit() == 0, "\(client.standardError)")
        #expect(client.standardOutput.contains(#""name": "Interop Den""#), "\(client.standardOutput)")
        #expect(client.standardOutput.contains(#""serial": "YN00PHOTON01""#))
        #expect(client.standardOutput.contains(#""standby": false"#))
        #expect(client.standardOutput.contains(#""Netflix""#))
        #expect(client.standardOutput.contains(#"{"active": "Netflix"}"#))
        let seen = events.withLock { $0 }
        #expect(seen.filter { $0.name == "key" }.map { $0["key"]?.string } == ["Home"])
        #expect(seen.filter { $0.name == "text" }.last?["text"]?.string == "hi")
        let launch = seen.first { $0.name == "launch" }
        #expect(launch?["app"]?.string == "12")
        #expect(launch?["params"]?.string?.contains("contentId=80057281") == true)
        // The TV's channels as rokuecp reads them (the hidden one too: it lists them all),
        // its tuning and its input launch.
        #expect(client.standardOutput.contains(#""channels": ["7.1", "7.2", "9.1", "11.1"]"#), "\(client.standardOutput)")
        #expect(seen.filter { $0.name == "channel" }.map { $0["number"]?.string } == ["9.1"])
        #expect(seen.filter { $0.name == "input" }.map { $0["input"]?.string } == ["tv", "hdmi2"], "tuning is the tuner input too")
    }
}

extension RokuFlowTests {
    /// Status polls power, the foreground app and what its player does: the media player in
    /// a channel app, the tuner's channel on live TV.
    @Test func statusReportsTheAppAndItsPlayback() async throws {
        let (tv, _) = try start()
        defer { Task { await tv.stop() } }
        let ctx = try context()
        let paired = try await pair(tv, ctx)
        let session = try await RokuAdapter(pollInterval: .milliseconds(100)).openSession(
            device: paired.device, secrets: paired.secrets, context: ctx)
        defer { Task { await session.close() } }
        let seen = Locked<[TVEvent]>([])
        let reader = Task { for await event in session.events { seen.withLock { $0.append(event) } } }
        defer { reader.cancel() }
        func waitFor(_ condition: @escaping ([TVEvent]) -> Bool) async throws {
            for _ in 0..<300 where !condition(seen.withLock { $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        }
        try await waitFor { $0.contains(.currentApp("Roku")) }
        try await session.send(.launch("12"))
        try await waitFor { $0.contains(.playback(PlaybackState(state: "play", positionMilliseconds: 139051))) }
        try await session.send(.launch("tvinput.dtv"))
        try await waitFor { $0.contains(.playback(PlaybackState(state: "live", channel: "7.1 Photon News"))) }
        let events = seen.withLock { $0 }
        #expect(events.contains(.power(isOn: true)))
        #expect(events.contains(.currentApp("Netflix (12)")))
        #expect(events.contains(.playback(PlaybackState(state: "play", positionMilliseconds: 139051))))
        #expect(events.contains(.currentApp("Live TV (tvinput.dtv)")))
        #expect(events.contains(.playback(PlaybackState(state: "live", channel: "7.1 Photon News"))))
        #expect(
            try RokuPlayback.mediaPlayer(Array(#"<player error="false" state="pause"><position>12 ms</position></player>"#.utf8))
                == PlaybackState(state: "pause", positionMilliseconds: 12))
        #expect(throws: PhotonError.self) { try RokuPlayback.activeChannel(Array("<player/>".utf8)) }
    }
}
