import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonTestSupport
import SonyEmulator
import Testing

@testable import Sony

/// The Sony adapter against the emulated Bravia: what is Sony's own — PIN and pre-shared
/// key pairing, the cookie renewed unasked, the case of the IRCC path, IRCC's nap, the
/// serial check, and the JSON-RPC calls behind volume, inputs, apps and sound.
@Suite(.serialized) struct SonyFlowTests {
    func start(_ configure: (inout EmulatedSony.Configuration) -> Void = { _ in }) throws -> (EmulatedSony, Locked<[EmulatorEvent]>) {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedSony.Configuration()
        configuration.port = 0
        configuration.pin = "4826"
        configure(&configuration)
        return (try EmulatedSony.start(configuration) { event in events.withLock { $0.append(event) } }, events)
    }

    func context(renewed: Locked<[DeviceSecrets]> = Locked([])) throws -> AdapterContext {
        AdapterContext(
            connector: NetConnector(), clientIdentity: try TestEnvironment.sharedClientIdentity, timeout: .seconds(3),
            secretsChanged: { _, updated in renewed.withLock { $0.append(updated) } })
    }

    /// Consents to plain HTTP and types `pin` when asked.
    struct User: PairingResponder {
        var pin = "4826"
        let asked = Locked<[PairingChallenge]>([])
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
            asked.withLock { $0.append(challenge) }
            switch challenge {
            case .allowUnencrypted: return .trust(true)
            case .enterCode: return .code(pin)
            default: return .wait
            }
        }
    }

    func pair(_ tv: EmulatedSony, _ ctx: AdapterContext, user: User = User(), psk: String? = nil) async throws -> PairedTV {
        var options = AdapterOptionValues()
        if let psk { options.texts["psk"] = psk }
        return try await SonyAdapter().pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: options, context: ctx).run(
            responder: user)
    }

    func keys(_ events: Locked<[EmulatorEvent]>) -> [String] {
        events.withLock { $0.filter { $0.name == "key" }.compactMap { $0["key"]?.string } }
    }

    @Test func aPINPairingStoresTheCookieAndThePINAndAWrongPINExitsFour() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let ctx = try context()
        let user = User()
        let paired = try await pair(tv, ctx, user: user)
        #expect(paired.device.id == "sony-7000123")
        #expect(paired.device.mac?.lowercased() == "02:00:00:53:4f:4e")
        #expect(paired.secrets[SonyAdapter.cookieSecret] != nil && paired.secrets[SonyAdapter.pinSecret] == "4826")
        #expect(paired.secrets[SonyAdapter.pskSecret] == nil)
        // Consent to plain HTTP came first, then the PIN the TV showed.
        let asked = user.asked.withLock { $0 }
        guard case .allowUnencrypted = asked.first, case .enterCode(4, .decimal) = asked.last else {
            Issue.record("asked \(asked)")
            return
        }
        #expect(events.withLock { $0.filter { $0.name == "pin" }.count } == 1)

        let wrong = await #expect(throws: PhotonError.self) { _ = try await pair(tv, ctx, user: User(pin: "1111")) }
        #expect(wrong?.code == .pairingRefused && wrong?.exitCode == 4)
    }

    @Test func aRefusedConsentSendsNothing() async throws {
        struct Refuses: PairingResponder {
            func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer { .trust(false) }
        }
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let flow = SonyAdapter().pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(), context: try context())
        await #expect(throws: PhotonError.self) { _ = try await flow.run(responder: Refuses()) }
        #expect(events.withLock { $0.filter { $0.name != "ready" } }.isEmpty)
    }

    @Test func aPreSharedKeyPairsAndAWrongOneExitsFour() async throws {
        let (tv, events) = try start { $0.psk = "sony-psk-1" }
        defer { Task { await tv.stop() } }
        let ctx = try context()
        let paired = try await pair(tv, ctx, psk: "sony-psk-1")
        #expect(paired.secrets.values == [SonyAdapter.pskSecret: "sony-psk-1"])
        let session = try await SonyAdapter().openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        try await session.send(.key(.key(.home), .press))
        await session.close()
        #expect(keys(events) == ["Home"])
        let wrong = await #expect(throws: PhotonError.self) { _ = try await pair(tv, ctx, psk: "guess") }
        #expect(wrong?.exitCode == 4, "\(String(describing: wrong))")
    }

    /// The cookie is gone (14 days passed, or the TV rebooted): the next command registers
    /// again with the stored PIN, is carried out, and the new cookie is handed over to be
    /// stored. A TV that forgot Photon refuses that too: exit 4, nothing sent.
    @Test func anExpiredCookieIsRenewedWithoutAskingAndAForgottenPairingExitsFour() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let renewed = Locked<[DeviceSecrets]>([])
        let ctx = try context(renewed: renewed)
        let paired = try await pair(tv, ctx)
        tv.reboot()
        let session = try await SonyAdapter(pollInterval: .seconds(60)).openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        try await session.send(.key(.key(.home), .press))
        #expect(keys(events) == ["Home"])
        let stored = try #require(renewed.withLock { $0.last })
        #expect(stored[SonyAdapter.cookieSecret] != paired.secrets[SonyAdapter.cookieSecret])
        #expect(stored[SonyAdapter.pinSecret] == "4826")
        await session.close()

        tv.forgetRegistrations()
        let forgotten = await #expect(throws: PhotonError.self) {
            let again = try await SonyAdapter().openSession(device: paired.device, secrets: stored, context: ctx)
            try await again.send(.key(.key(.home), .press))
        }
        #expect(forgotten?.exitCode == 4, "\(String(describing: forgotten))")
        #expect(keys(events) == ["Home"])
    }

    /// Bravias whose IRCC path is upper case, and IRCC that naps: keys still arrive, each once.
    @Test func keysReachATVWithAnUpperCaseIRCCPathThatNaps() async throws {
        let (tv, events) = try start {
            $0.irccPath = "IRCC"
            $0.irccNap = 0.2
        }
        defer { Task { await tv.stop() } }
        let ctx = try context()
        let paired = try await pair(tv, ctx)
        let session = try await SonyAdapter(pollInterval: .seconds(60)).openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        defer { Task { await session.close() } }
        try await session.send(.key(.key(.up), .press))
        try await session.send(.key(.raw("Netflix"), .press))
        #expect(keys(events) == ["Up", "Netflix"])
        #expect(events.withLock { $0.filter { $0.name == "ignored" } }.isEmpty)
        let unknown = await #expect(throws: PhotonError.self) { try await session.send(.key(.raw("NoSuchKey"), .press)) }
        #expect(unknown?.code == .unsupported)
        #expect(keys(events) == ["Up", "Netflix"])
    }

    @Test func anotherTVAtTheAddressGetsNothing() async throws {
        let (tv, _) = try start()
        let ctx = try context()
        let paired = try await pair(tv, ctx)
        let port = tv.port
        await tv.stop()
        let (other, events) = try start {
            $0.port = port
            $0.serial = "7000999"
            $0.psk = "shared"
        }
        defer { Task { await other.stop() } }
        var secrets = DeviceSecrets()
        secrets[SonyAdapter.pskSecret] = "shared"
        let error = await #expect(throws: PhotonError.self) {
            _ = try await SonyAdapter().openSession(device: paired.device, secrets: secrets, context: ctx)
        }
        #expect(error?.code == .pinMismatch && error?.exitCode == 5)
        #expect(keys(events).isEmpty)
    }

    @Test func volumePowerSoundAndTheStateTheTVReports() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let ctx = try context()
        let paired = try await pair(tv, ctx)
        let session = try await SonyAdapter(pollInterval: .milliseconds(50)).openSession(device: paired.device, secrets: paired.secrets, context: ctx)
        defer { Task { await session.close() } }
        try await session.send(.setVolume(31))
        #expect(events.withLock { $0.last { $0.name == "volume" }?["level"]?.int } == 31)
        let outputs = try await TVListKind.soundOutputs.items(on: session)
        #expect(outputs.map(\.name) == ["speaker", "arc", "speaker_hdmi"])
        #expect(outputs.first { $0.active == true }?.name == "speaker")
        try await session.send(.sound("arc"))
        #expect(events.withLock { $0.last { $0.name == "sound" }?["output"]?.string } == "audioSystem")
        // The poller reports what the TV says: the volume, then the output.
        let seen = try await withTimeout(.seconds(5), "the reports") { () -> (VolumeState?, String?) in
            var volume: VolumeState?
            var sound: String?
            for await event in session.events {
                if case .volume(let v) = event { volume = v }
                if case .setting("sound", let value) = event { sound = value }
                if volume?.level == 31, sound == "arc" { break }
            }
            return (volume, sound)
        }
        #expect(seen.0?.level == 31 && seen.1 == "arc")
        try await session.send(.key(.key(.powerOff), .press))
        #expect(events.withLock { $0.last { $0.name == "power" }?["power"]?.string } == "standby")
        let standby = try await withTimeout(.seconds(5), "standby") { () -> Bool in
            for await event in session.events { if case .powerState(.standby, _) = event { return true } }
            return false
        }
        #expect(standby)
        try await session.send(.key(.key(.powerOn), .press))
        #expect(events.withLock { $0.last { $0.name == "power" }?["power"]?.string } == "on")
    }

    /// A session opened for a command sends it before asking the TV's power (no command
    /// needs it, and the kept-alive connection takes one request at a time); the first
    /// poll asks right after, and the session still reports it. One opened for nothing
    /// asks while opening.
    @Test func aSessionOpenedForAKeySendsItBeforeAskingThePower() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let ctx = try context()
        let paired = try await pair(tv, ctx)
        func reads() -> [String] { events.withLock { $0.filter { $0.name == "read" }.compactMap { $0["method"]?.string } } }
        events.withLock { $0.removeAll() }
        var forAKey = ctx
        forAKey.expectedCommand = .key(.key(.up), .press)
        let session = try await SonyAdapter(pollInterval: .seconds(60)).openSession(
            device: paired.device, secrets: paired.secrets, context: forAKey)
        #expect(reads() == ["getSystemInformation", "getRemoteControllerInfo"])
        try await session.send(.key(.key(.up), .press))
        #expect(keys(events) == ["Up"])
        let power = try await withTimeout(.seconds(5), "the power report") { () -> Bool? in
            for await event in session.events { if case .power(let isOn) = event { return isOn } }
            return nil
        }
        #expect(power == true)
        #expect(reads().prefix(3) == ["getSystemInformation", "getRemoteControllerInfo", "getPowerStatus"], "\(reads())")
        await session.close()

        events.withLock { $0.removeAll() }
        let unprompted = try await SonyAdapter(pollInterval: .seconds(60)).openSession(
            device: paired.device, secrets: paired.secrets, context: ctx)
        #expect(reads().prefix(3) == ["getSystemInformation", "getRemoteControllerInfo", "getPowerStatus"], "\(reads())")
        #expect(keys(events).isEmpty)
        await unprompted.close()
    }
}
