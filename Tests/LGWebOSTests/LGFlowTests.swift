import Foundation
import LGWebOSEmulator
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet
import PhotonTestSupport
import Testing

@testable import LGWebOS

final class Events: Sendable {
    private let list = Locked<[EmulatorEvent]>([])
    var handler: @Sendable (EmulatorEvent) -> Void { { [list] e in list.withLock { $0.append(e) } } }
    var all: [EmulatorEvent] { list.withLock { $0 } }
    func named(_ name: String) -> [EmulatorEvent] { list.withLock { $0.filter { $0.name == name } } }
    func wait(for name: String, count: Int = 1) async throws {
        for _ in 0..<1000 {
            if named(name).count >= count { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("no \(name) event (have \(all.map(\.name)))")
    }
}

/// Answers as a user would: trust (or not) the certificate, consent (or not) to plain.
struct User: PairingResponder {
    var trust = true
    var allowPlain = false
    func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
        switch challenge {
        case .trustCertificate: return .trust(trust)
        case .allowUnencrypted: return .trust(allowPlain)
        default: return .wait
        }
    }
}

/// Every debug line a context logged.
final class LogLines: Sendable {
    let lines = Locked<[String]>([])
    var log: PhotonLog { PhotonLog { [lines] line in lines.withLock { $0.append(line) } } }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}

func startLG(_ configure: (inout EmulatedLGTV.Configuration) -> Void = { _ in }) async throws -> (EmulatedLGTV, Events) {
    let events = Events()
    var configuration = EmulatedLGTV.Configuration()
    configuration.port = 0
    configuration.plainPort = 0
    configure(&configuration)
    return (try await EmulatedLGTV.start(configuration, onEvent: events.handler), events)
}

func lgContext(timeout: Duration = .seconds(5), log: LogLines = LogLines()) throws -> AdapterContext {
    AdapterContext(connector: NetConnector(), clientIdentity: try TestEnvironment.sharedClientIdentity, timeout: timeout, log: log.log)
}

@Suite struct LGFlowTests {
    let adapter = LGWebOSAdapter(acceptTimeout: .seconds(3), keepAlive: .zero)

    func pair(_ tv: EmulatedLGTV, _ ctx: AdapterContext, user: User = User(), port: UInt16? = nil, adapter: LGWebOSAdapter? = nil) async throws
        -> PairedTV
    {
        try await (adapter ?? self.adapter).pairing(
            with: Endpoint(host: "127.0.0.1", port: port ?? tv.port ?? 1), options: AdapterOptionValues(ports: ["ws": tv.plainPort ?? 1]),
            context: ctx
        ).run(responder: user)
    }

    /// LG TVs may share one certificate, so the pin alone does not tell them apart: a TV
    /// with the paired certificate but another UUID in its hello gets no client key.
    @Test func anotherTVWithTheSameCertificateGetsNoClientKey() async throws {
        let state = try TestEnvironment.temporaryDirectory("lg-shared-cert")
        let (first, _) = try await startLG { $0.stateDirectory = state }
        let ctx = try lgContext()
        let paired = try await pair(first, ctx)
        let port = try #require(first.port)
        await first.stop()
        // The same identity (state directory), the same port, another TV.
        let (other, otherEvents) = try await startLG {
            $0.stateDirectory = state
            $0.port = port
            $0.uuid = "0f0e0d0c-0b0a-4909-8807-060504030201"
        }
        defer { Task { await other.stop() } }
        let error = await #expect(throws: PhotonError.self) {
            _ = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        }
        #expect(error?.code == .pinMismatch && error?.exitCode == 5, "\(String(describing: error))")
        #expect(otherEvents.named("register_received").isEmpty)
    }

    @Test func pairsOverTLSThenReconnectsWithoutAPromptAndDrivesTheTV() async throws {
        let (tv, events) = try await startLG()
        defer { Task { await tv.stop() } }
        let log = LogLines()
        let ctx = try lgContext(log: log)
        let paired = try await pair(tv, ctx)
        let key = try #require(paired.secrets[LGWebOSAdapter.clientKeySecret])
        #expect(tv.clientKeys == [key])
        #expect(paired.secrets.pin == tv.fingerprint)
        #expect(paired.device.id == "lg-1f2e3d4c5b6a")
        #expect(paired.device.model == "OLED65C25LB (webOS 23.20.56)")
        // Both MACs, for waking on whichever interface the TV uses.
        #expect(paired.device.wakeMACs == ["02:00:00:4C:47:01", "02:00:00:4C:47:02"])
        #expect(paired.device.unencrypted == nil)
        #expect(events.named("prompt").count == 1 && events.named("prompt")[0]["signed"] == .bool(false))

        let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        try await session.send(.key(.key(.home), .press))
        try await session.send(.key(.raw("netflix"), .press))
        try await session.send(.volume(.up))
        try await session.send(.text("the expanse\n"))
        try await session.send(.launch("youtube.leanback.v4"))
        try await session.send(.launch("https://example.com/a?b=c"))
        try await session.send(.setVolume(23))
        try await events.wait(for: "key", count: 3)
        #expect(events.named("key").map { $0["key"]?.string } == ["HOME", "NETFLIX", "VOLUMEUP"])
        #expect(events.named("text").first?["text"]?.string == "the expanse")
        #expect(events.named("enter").count == 1)
        #expect(events.named("launch").first?["app"]?.string == "youtube.leanback.v4")
        #expect(events.named("open").first?["url"]?.string == "https://example.com/a?b=c")
        #expect(events.named("volume").first?["level"]?.int == 23)
        // The registration used the stored key: still one prompt, and one pointer socket.
        #expect(events.named("prompt").count == 1 && events.named("registered").count == 1)
        #expect(events.named("pointer_connected").count == 1)

        let apps = try #require(session as? any AppListing)
        #expect(try await apps.installedApps().contains(TVApp(id: "netflix", name: "Netflix")))
        await session.close()
        // The key never reached a log line.
        #expect(!log.text.contains(key))
        #expect(log.text.contains("register"))
    }

    /// A session opened for a button connects the pointer socket's TCP and TLS while it
    /// registers, and the press uses that connection; opened for anything else, or for
    /// nothing, it makes no second connection; one left unused is closed with the session.
    @Test func aSessionOpenedForAButtonConnectsItsPointerSocketWhileItRegisters() async throws {
        let (tv, events) = try await startLG()
        defer { Task { await tv.stop() } }
        var ctx = try lgContext()
        let paired = try await pair(tv, ctx)
        let afterPairing = events.named("connection_accepted").count

        ctx.expectedCommand = .key(.key(.home), .press)
        let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        // Nothing pressed yet, and the second connection is there.
        try await events.wait(for: "connection_accepted", count: afterPairing + 2)
        #expect(events.named("pointer_connected").isEmpty)
        try await session.send(.key(.key(.home), .press))
        try await events.wait(for: "key")
        #expect(events.named("pointer_connected").count == 1)
        #expect(events.named("connection_accepted").count == afterPairing + 2, "the press opened a connection of its own")
        await session.close()

        for expected in [RemoteCommand.launch("netflix"), .key(.key(.power), .press)] {
            let before = events.named("connection_accepted").count
            ctx.expectedCommand = expected
            let other = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
            try await other.send(.launch("netflix"))
            #expect(events.named("connection_accepted").count == before + 1, "a second connection for \(expected)")
            await other.close()
        }

        // Opened for a button that never comes: its connection closes with the session.
        ctx.expectedCommand = .key(.key(.home), .press)
        let closedBefore = events.named("connection_closed").count
        let before = events.named("connection_accepted").count
        let unused = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        try await events.wait(for: "connection_accepted", count: before + 2)
        await unused.close()
        try await events.wait(for: "connection_closed", count: closedBefore + 2)
    }

    @Test func subscriptionsFeedPowerAppVolumeAndPlayback() async throws {
        let (tv, emulated) = try await startLG()
        defer { Task { await tv.stop() } }
        let lines = LogLines()
        let ctx = try lgContext(log: lines)
        let paired = try await pair(tv, ctx)
        let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        let seen = Locked<[TVEvent]>([])
        let watcher = Task { for await event in session.events { seen.withLock { $0.append(event) } } }
        func wait(_ what: String, _ found: @escaping ([TVEvent]) -> Bool) async throws {
            for _ in 0..<500 where !found(seen.withLock { $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            // A failure says what the TV saw and did, and what the adapter logged.
            if !found(seen.withLock { $0 }) {
                throw TestFailure(
                    "no \(what) in \(seen.withLock { $0 }); the TV's events: \(emulated.all.map(\.name)); log:\n\(lines.text)")
            }
        }
        try await wait("state") { events in
            events.contains(.power(isOn: true)) && events.contains(.currentApp("com.webos.app.home"))
                && events.contains(.volume(VolumeState(level: 12, maximum: 100, muted: false)))
                && events.contains(.playback(PlaybackState(state: "playing")))
        }
        // Changes are pushed: launching, volume, power off.
        try await session.send(.launch("netflix"))
        try await session.send(.setVolume(30))
        try await wait("pushed changes") {
            $0.contains(.currentApp("netflix")) && $0.contains(.volume(VolumeState(level: 30, maximum: 100, muted: false)))
        }
        // Playing: play/pause sends PAUSE; power goes through turnOff while on.
        try await session.send(.key(.key(.playPause), .press))
        try await session.send(.key(.key(.power), .press))
        try await wait("power off") { $0.contains(.power(isOn: false)) }
        // Off: a second power key is not sent (turnOff toggles on real sets).
        try await session.send(.key(.key(.powerOff), .press))
        await session.close()
        watcher.cancel()
        let error = await #expect(throws: PhotonError.self) { try await session.send(.key(.key(.powerOn), .press)) }
        #expect(error?.code == .connectionClosed)
    }

    @Test func declinedIsExitFourAndAnUnansweredPromptExitThree() async throws {
        let (denying, _) = try await startLG { $0.accept = .deny }
        defer { Task { await denying.stop() } }
        let declined = await #expect(throws: PhotonError.self) { _ = try await pair(denying, try lgContext()) }
        #expect(declined?.exitCode == 4)
        #expect(declined?.hint?.contains("Accept") == true)

        let (silent, _) = try await startLG { $0.accept = .timeout }
        defer { Task { await silent.stop() } }
        let fast = LGWebOSAdapter(acceptTimeout: .milliseconds(500), keepAlive: .zero)
        let unanswered = await #expect(throws: PhotonError.self) { _ = try await pair(silent, try lgContext(), adapter: fast) }
        #expect(unanswered?.exitCode == 3)
        #expect(unanswered?.hint?.contains("in time") == true)

        // The TV's own expiry (403 cancelled after its prompt times out) is a refusal.
        let (expiring, _) = try await startLG {
            $0.accept = .timeout
            $0.promptTimeout = .milliseconds(200)
        }
        defer { Task { await expiring.stop() } }
        let expired = await #expect(throws: PhotonError.self) { _ = try await pair(expiring, try lgContext()) }
        #expect(expired?.exitCode == 4)
    }

    @Test func aBlacklistingTVRefusesSignedManifestsAndStillPairsPhoton() async throws {
        let (tv, events) = try await startLG { $0.blacklistSigned = true }
        defer { Task { await tv.stop() } }
        // What every client sent before 2026: a manifest with a signed block.
        let channel = try await NetConnector().openMessageStream(
            MessageStreamRequest(
                endpoint: Endpoint(host: "127.0.0.1", port: tv.port!), target: "/", security: .tls(TLSClientOptions(trust: .captureForFirstUse))),
            timeout: .seconds(5))
        try await channel.send(
            .text(
                #"{"type":"register","id":"register_0","payload":{"pairingType":"PROMPT","manifest":{"manifestVersion":1,"signed":{"appId":"com.lge.test","permissions":["TEST_SECURE"]},"signatures":[{"signatureVersion":1,"signature":"eyJ"}],"permissions":["LAUNCH"]}}}"#
            ))
        guard case .text(let text)? = try await channel.receive(timeout: .seconds(5)) else { throw TestFailure("no answer") }
        #expect(text.contains("403 Pairing rejected: blacklisted certificate detected"))
        await channel.close(code: 1000, reason: "")
        // Photon's unsigned manifest is not refused.
        let paired = try await pair(tv, try lgContext())
        #expect(paired.secrets[LGWebOSAdapter.clientKeySecret] != nil)
        #expect(events.named("client_rejected").count == 1)
    }

    @Test func permissionsTheTVWithholdsAreUnsupportedNotFailures() async throws {
        let (tv, _) = try await startLG { $0.withheld = ["CONTROL_INPUT_TEXT", "CONTROL_MOUSE_AND_KEYBOARD"] }
        defer { Task { await tv.stop() } }
        let ctx = try lgContext()
        let paired = try await pair(tv, ctx)
        let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        let text = await #expect(throws: PhotonError.self) { try await session.send(.text("abc")) }
        #expect(text?.code == .unsupported && text?.message.contains("not available on this pairing") == true)
        let key = await #expect(throws: PhotonError.self) { try await session.send(.key(.key(.home), .press)) }
        #expect(key?.code == .unsupported)
        // The session is still up: what is granted works.
        try await session.send(.setVolume(5))
        await session.close()
    }

    @Test func aPlainOnlyTVNeedsConsentAndItIsStored() async throws {
        let (tv, events) = try await startLG { $0.port = nil }
        defer { Task { await tv.stop() } }
        // Asked for TLS on a closed port: offered plain, refused without consent.
        let closed = try TCPListener(host: "127.0.0.1", port: 0)
        let closedPort = closed.port
        closed.close()
        let refused = await #expect(throws: PhotonError.self) { _ = try await pair(tv, try lgContext(), port: closedPort) }
        #expect(refused?.exitCode == 5)
        #expect(events.named("hello").isEmpty)

        let ctx = try lgContext()
        let paired = try await pair(tv, ctx, user: User(allowPlain: true), port: closedPort)
        #expect(paired.device.unencrypted == true && paired.secrets.pin == nil && paired.device.port == tv.plainPort)
        let session = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        try await session.send(.key(.key(.back), .press))
        try await events.wait(for: "key")
        await session.close()

        // Without the stored consent the key is never sent in clear.
        var unconsented = paired.device
        unconsented.unencrypted = nil
        let error = await #expect(throws: PhotonError.self) {
            _ = try await adapter.openSession(device: unconsented, secrets: paired.secrets, context: ctx)
        }
        #expect(error?.code == .notPaired)
        #expect(events.named("registered").count == 1)
    }

    @Test func aForgottenKeyMeansPairAgain() async throws {
        let (tv, events) = try await startLG()
        defer { Task { await tv.stop() } }
        let ctx = try lgContext()
        let paired = try await pair(tv, ctx)
        tv.forgetKeys()
        let error = await #expect(throws: PhotonError.self) {
            _ = try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        }
        #expect(error?.exitCode == 4 && error?.hint?.contains("pair again") == true)
        #expect(events.named("key").isEmpty)
    }

    @Test func aSilentTVEndsTheSessionAndANoisyOneIsIgnored() async throws {
        let (tv, events) = try await startLG()
        defer { Task { await tv.stop() } }
        let ctx = try lgContext()
        let paired = try await pair(tv, ctx)
        tv.setMisbehaviour(.noisy)
        let keeping = LGWebOSAdapter(keepAlive: .milliseconds(200))
        let session = try await keeping.openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        try await session.send(.setVolume(7))
        try await session.send(.key(.key(.up), .press))
        try await events.wait(for: "key")
        tv.setMisbehaviour(.silent)
        let ended = try await withTimeout(.seconds(5), "the session to end") { () -> PhotonError? in
            for await event in session.events { if case .disconnected(let reason) = event { return reason } }
            return nil
        }
        #expect(ended?.code == .timeout)
        await session.close()
    }

    @Test func probeReadsHelloAndSystemInfoWithoutPairing() async throws {
        let (tv, events) = try await startLG()
        defer { Task { await tv.stop() } }
        let candidate = try #require(
            try await adapter.probe(host: "127.0.0.1", ports: ["wss": tv.port!, "ws": tv.plainPort!], context: try lgContext()))
        #expect(candidate.brand == "lg" && candidate.id == "lg-1f2e3d4c5b6a" && candidate.endpoint.port == tv.port)
        #expect(candidate.model == "OLED65C25LB (webOS 23.20.56)")
        #expect(events.named("prompt").isEmpty)

        let (old, _) = try await startLG {
            $0.port = nil
            $0.pairingTypes = ["PIN"]
        }
        defer { Task { await old.stop() } }
        let closed = try TCPListener(host: "127.0.0.1", port: 0)
        let closedPort = closed.port
        closed.close()
        let plain = try #require(
            try await adapter.probe(host: "127.0.0.1", ports: ["wss": closedPort, "ws": old.plainPort!], context: try lgContext()))
        #expect(plain.endpoint.port == old.plainPort && plain.remarks.first?.contains("--allow-unencrypted") == true)
        #expect(plain.unsupportedReason?.contains("PIN") == true)
    }

    @Test func anOriginHeaderIsRefusedAsSomeFirmwareDoes() async throws {
        let (tv, _) = try await startLG()
        defer { Task { await tv.stop() } }
        let channel = try await NetConnector().openMessageStream(
            MessageStreamRequest(
                endpoint: Endpoint(host: "127.0.0.1", port: tv.port!), target: "/", security: .tls(TLSClientOptions(trust: .captureForFirstUse)),
                headers: ["Origin": "https://example.com"]),
            timeout: .seconds(5))
        #expect(try await channel.receive(timeout: .seconds(5)) == nil)
        #expect(await channel.closeCode == 1008)
    }
}
