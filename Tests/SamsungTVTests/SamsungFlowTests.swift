import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet
import PhotonTestSupport
import PhotonTesting
import SamsungTVEmulator
import Testing

@testable import SamsungTV

final class Events: Sendable {
    private let list = Locked<[EmulatorEvent]>([])
    var handler: @Sendable (EmulatorEvent) -> Void { { [list] e in list.withLock { $0.append(e) } } }
    func named(_ name: String) -> [EmulatorEvent] { list.withLock { $0.filter { $0.name == name } } }
    func wait(for name: String, count: Int = 1) async throws {
        for _ in 0..<1000 {
            if named(name).count >= count { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("no \(name) event")
    }
}

struct Trusting: PairingResponder {
    var trust = true
    func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
        if case .trustCertificate = challenge { return .trust(trust) }
        return .wait
    }
}

/// Secrets the adapter asked the host to store.
final class SavedSecrets: Sendable {
    let latest = Locked<DeviceSecrets?>(nil)
}

func startSamsung(_ configure: (inout EmulatedSamsungTV.Configuration) -> Void = { _ in }) async throws -> (EmulatedSamsungTV, Events) {
    let events = Events()
    var configuration = EmulatedSamsungTV.Configuration()
    configuration.port = 0
    configuration.restPort = 0
    configure(&configuration)
    return (try await EmulatedSamsungTV.start(configuration, onEvent: events.handler), events)
}

func samsungContext(_ saved: SavedSecrets = SavedSecrets(), timeout: Duration = .seconds(5)) throws -> AdapterContext {
    AdapterContext(
        connector: NetConnector(), clientIdentity: try TestEnvironment.sharedClientIdentity, clientName: "Photon tests",
        timeout: timeout, secretsChanged: { _, s in saved.latest.withLock { $0 = s } })
}

@Suite struct SamsungFlowTests {
    let adapter = SamsungTVAdapter(keyPacing: .zero, acceptTimeout: .seconds(3))

    func pair(_ tv: EmulatedSamsungTV, context: AdapterContext, trust: Bool = true) async throws -> PairedTV {
        try await adapter.pairing(
            with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(ports: ["rest": tv.restPort]), context: context
        ).run(responder: Trusting(trust: trust))
    }

    @Test func pairsReconnectsWithoutPromptAndControls() async throws {
        // With every kind of noise a TV sends before connecting.
        let (tv, events) = try await startSamsung { $0.touchEnableBeforeConnect = true }
        defer { Task { await tv.stop() } }
        let ctx = try samsungContext()
        let paired = try await pair(tv, context: ctx)
        let token = try #require(paired.secrets["token"])
        #expect(tv.tokens == [token])
        #expect(paired.secrets.pin == tv.fingerprint)
        #expect(paired.device.mac == "02:00:00:5A:4D:53")
        #expect(paired.device.id == "samsung-0200005a4d53")
        #expect(events.named("prompt").count == 1)

        let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        try await session.send(.key(.key(.home), .press))
        try await session.send(.longPress(.key(.volumeUp), milliseconds: 50))
        try await session.send(.text("the expanse"))
        try await session.send(.launch("111299001912"))
        try await events.wait(for: "launch")
        await session.close()
        // Reconnecting with the token showed no second prompt.
        #expect(events.named("prompt").count == 1)
        let keys = events.named("key").map { "\($0["key"]!.string!)/\($0["cmd"]!.string!)" }
        #expect(keys == ["KEY_HOME/Click", "KEY_VOLUP/Press", "KEY_VOLUP/Release"])
        #expect(events.named("text").first?["text"]?.string == "the expanse")
        #expect(events.named("text_end").count == 1)
        #expect(events.named("launch").first?["via"]?.string == "websocket")
    }

    @Test func deniedIsExitFour() async throws {
        let (tv, _) = try await startSamsung { $0.accept = .deny }
        defer { Task { await tv.stop() } }
        do {
            _ = try await pair(tv, context: try samsungContext())
            Issue.record("a denied pairing succeeded")
        } catch let error as PhotonError {
            #expect(error.exitCode == 4)
            #expect(error.hint?.contains("Device List") == true)
        }
    }

    @Test func unansweredPromptTimesOutWithTheHint() async throws {
        let (tv, _) = try await startSamsung {
            $0.accept = .timeout
            $0.promptTimeout = .milliseconds(300)
        }
        defer { Task { await tv.stop() } }
        do {
            _ = try await pair(tv, context: try samsungContext())
            Issue.record("an unanswered prompt paired")
        } catch let error as PhotonError {
            #expect(error.code == .timeout)
            #expect(error.exitCode == 3)
            #expect(error.hint?.contains("30 s") == true)
        }
    }

    @Test func silentPromptIsBoundedByOurOwnTimeout() async throws {
        // The TV never answers at all: our accept timeout (3 s here) ends it.
        let (tv, _) = try await startSamsung {
            $0.accept = .timeout
            $0.promptTimeout = .seconds(30)
        }
        defer { Task { await tv.stop() } }
        let start = ContinuousClock.now
        await #expect(throws: PhotonError.self) { try await pair(tv, context: try samsungContext()) }
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func rotatedTokenIsSavedAtOnce() async throws {
        let (tv, _) = try await startSamsung()
        defer { Task { await tv.stop() } }
        let saved = SavedSecrets()
        let ctx = try samsungContext(saved)
        let paired = try await pair(tv, context: ctx)
        tv.rotateTokenOnNextConnect()
        let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        await session.close()
        let newToken = try #require(saved.latest.withLock { $0?["token"] })
        #expect(newToken != paired.secrets["token"])
        #expect(tv.tokens.contains(newToken))
        #expect(saved.latest.withLock { $0?.pin } == paired.secrets.pin)
    }

    @Test func revokedTokenOnADenyingTVIsPairAgain() async throws {
        let (tv, _) = try await startSamsung()
        defer { Task { await tv.stop() } }
        let ctx = try samsungContext()
        let paired = try await pair(tv, context: ctx)
        tv.revokeTokens()
        // Now the TV asks again; with nobody there, the session gives up after its timeout.
        let impatient = try samsungContext(timeout: .seconds(1))
        let (denying, _) = try await startSamsung { $0.accept = .deny }
        defer { Task { await denying.stop() } }
        var device = paired.device
        device.port = denying.port
        device.ports["rest"] = denying.restPort
        var secrets = paired.secrets
        secrets.pin = denying.fingerprint
        do {
            _ = try await adapter.openSession(device: device, secrets: secrets, context: impatient)
            Issue.record("an unknown token opened a session on a denying TV")
        } catch let error as PhotonError {
            #expect(error.code == .authenticationRefused)
            #expect(error.exitCode == 4)
        }
    }

    @Test(arguments: [EmulatedSamsungTV.Misbehaviour.oversizeFrame, .close1005, .drop, .invalidFrame])
    func hostileOrDroppedChannelsEndCleanly(_ m: EmulatedSamsungTV.Misbehaviour) async throws {
        let (tv, _) = try await startSamsung()
        defer { Task { await tv.stop() } }
        let ctx = try samsungContext()
        let paired = try await pair(tv, context: ctx)
        let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        await tv.misbehave(m)
        if m == .invalidFrame {
            // Invalid JSON is skipped; the session stays usable.
            try await Task.sleep(for: .milliseconds(100))
            try await session.send(.key(.key(.home), .press))
            await session.close()
            return
        }
        var ended = false
        let watcher = Task {
            for await event in session.events { if case .disconnected = event { return true } }
            return true
        }
        ended = try await withTimeout(.seconds(5), "the session end") { await watcher.value }
        #expect(ended)
        await #expect(throws: PhotonError.self) { try await session.send(.key(.key(.home), .press)) }
    }

    @Test func plainChannelOnATokenTVIsUnauthorized() async throws {
        let (tv, _) = try await startSamsung()
        defer { Task { await tv.stop() } }
        do {
            _ = try await adapter.pairing(
                with: Endpoint(host: "127.0.0.1", port: tv.restPort), options: AdapterOptionValues(ports: ["rest": tv.restPort]),
                context: try samsungContext()
            ).run(responder: Trusting())
            Issue.record("a plain channel paired with a token TV")
        } catch let error as PhotonError {
            #expect(error.exitCode == 4)
        }
    }

    @Test func powerKeysFollowTheReportedState() async throws {
        let (tv, events) = try await startSamsung { $0.powerState = "standby" }
        defer { Task { await tv.stop() } }
        let ctx = try samsungContext()
        let paired = try await pair(tv, context: ctx)
        let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        // In standby already: power-off sends nothing; power-on is KEY_POWER, since the set
        // says it is in standby (it toggles it on), and then nothing more.
        try await session.send(.key(.key(.powerOff), .press))
        try await session.send(.key(.key(.powerOn), .press))
        try await events.wait(for: "key")
        try await session.send(.key(.key(.powerOn), .press))
        try await session.send(.key(.key(.powerOff), .press))
        try await events.wait(for: "key", count: 2)
        #expect(events.named("key").map { $0["key"]!.string! } == ["KEY_POWER", "KEY_POWER"])
        await session.close()
    }

    /// The power state is read again while the session lasts (newcomer #4: through the daemon
    /// a set that went to standby stayed "on" for 30 s and more).
    @Test func aSetThatGoesToStandbyIsReportedSoWithinThePoll() async throws {
        let (tv, _) = try await startSamsung()
        defer { Task { await tv.stop() } }
        let clock = ManualClock()
        let ctx = AdapterContext(
            connector: NetConnector(), clientIdentity: try TestEnvironment.sharedClientIdentity, clientName: "Photon tests", timeout: .seconds(5),
            clock: clock)
        let paired = try await pair(tv, context: ctx)
        let session = try await SamsungTVAdapter(powerPoll: .seconds(5)).openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        defer { Task { await session.close() } }
        let seen = Locked<[PowerState]>([])
        let reader = Task {
            for await event in session.events { if case .powerState(let state, _) = event { seen.withLock { $0.append(state) } } }
        }
        defer { reader.cancel() }
        try await clock.waitForSleepers()
        try await withTimeout(.seconds(5), "the first report") {
            while seen.withLock({ $0 }) != [.on] { try await Task.sleep(for: .milliseconds(5)) }
        }
        tv.setPowerState("standby")
        clock.advance(by: .seconds(5))
        try await withTimeout(.seconds(5), "the standby report") {
            while seen.withLock({ $0 }) != [.on, .standby] { try await Task.sleep(for: .milliseconds(5)) }
        }
        // Nothing new: nothing reported again.
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(5))
        try await clock.waitForSleepers()
        #expect(seen.withLock { $0 } == [.on, .standby])
    }

    @Test func installedAppsAnswerOrTimeOut() async throws {
        let (tv, _) = try await startSamsung()
        defer { Task { await tv.stop() } }
        let ctx = try samsungContext()
        let paired = try await pair(tv, context: ctx)
        let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx) as! SamsungSession
        #expect(try await session.installedApps().map(\.name) == ["YouTube", "Netflix"])
        await session.close()

        let (quiet, _) = try await startSamsung { $0.answersAppList = false }
        defer { Task { await quiet.stop() } }
        let quietPaired = try await pair(quiet, context: ctx)
        let quietSession = try await adapter.openSession(device: quietPaired.device, secrets: quietPaired.secrets, context: ctx) as! SamsungSession
        await #expect(throws: PhotonError.self) { try await quietSession.installedApps(timeout: .milliseconds(300)) }
        await quietSession.close()
    }
}
