import Foundation
import PhilipsEmulator
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonTestSupport
import Testing

@testable import Philips

/// The Philips adapter against the emulated JointSpace TV: what is Philips's own — the
/// certificate pinned before anything is sent, PIN pairing signed with the shared key,
/// Digest on every call, `system` on either port, state pushed by `notifychange`, Ambilight,
/// and a TV in standby with and without its network.
@Suite(.serialized) struct PhilipsFlowTests {
    func start(_ configure: (inout EmulatedPhilips.Configuration) -> Void = { _ in }) throws -> (EmulatedPhilips, Locked<[EmulatorEvent]>) {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedPhilips.Configuration()
        configuration.httpsPort = 0
        configuration.httpPort = 0
        configuration.pin = "4826"
        configuration.notifyHold = .seconds(5)
        configure(&configuration)
        return (try EmulatedPhilips.start(configuration) { event in events.withLock { $0.append(event) } }, events)
    }

    func context() throws -> AdapterContext {
        AdapterContext(connector: NetConnector(), clientIdentity: try TestEnvironment.sharedClientIdentity, timeout: .seconds(3))
    }

    /// Trusts `fingerprint` and types `pin`.
    struct User: PairingResponder {
        let fingerprint: CertificateFingerprint
        var pin = "4826"
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
            switch challenge {
            case .trustCertificate(let info): return .trust(info.fingerprint == fingerprint)
            case .enterCode: return .code(pin)
            default: return .wait
            }
        }
    }

    func pair(_ tv: EmulatedPhilips, pin: String = "4826", trusting: CertificateFingerprint? = nil) async throws -> PairedTV {
        var options = AdapterOptionValues()
        options.ports["http"] = tv.httpPort
        return try await PhilipsAdapter().pairing(with: Endpoint(host: "127.0.0.1", port: tv.httpsPort), options: options, context: try context())
            .run(responder: User(fingerprint: trusting ?? tv.fingerprint, pin: pin))
    }

    func count(_ events: Locked<[EmulatorEvent]>, _ name: String) -> Int { events.withLock { $0.filter { $0.name == name }.count } }

    @Test(arguments: [false, true])
    func aPINPairingPinsTheCertificateAndAWrongPINIsExitFour(systemOnHTTPSOnly: Bool) async throws {
        let (tv, events) = try start { $0.systemOnHTTPSOnly = systemOnHTTPSOnly }
        defer { Task { await tv.stop() } }
        let wrong = await #expect(throws: PhotonError.self) { _ = try await pair(tv, pin: "1111") }
        #expect(wrong?.code == .pairingRefused && wrong?.exitCode == 4, "\(String(describing: wrong))")
        #expect(count(events, "pin_refused") == 1)
        let paired = try await pair(tv)
        #expect(paired.device.id == "philips-fz1a2345678901" && paired.device.model == "65OLED855/12")
        #expect(paired.device.ports["http"] == tv.httpPort)
        #expect(paired.secrets.pin == tv.fingerprint && paired.secrets[PhilipsAdapter.authKeySecret]?.count == 64)
        #expect(paired.secrets[PhilipsAdapter.deviceIDSecret]?.count == 32)
        let probed = try await PhilipsAdapter().probe(host: "127.0.0.1", ports: tv.ports, context: try context())
        #expect(probed?.brand == "philips" && probed?.model == "65OLED855/12")
    }

    /// A session opened for a command sends it before its own state reads (the TV answers
    /// the command connection's requests one at a time); one opened for nothing reads at
    /// once. Only the power read that opening does comes first.
    @Test func aSessionOpenedForAKeySendsItBeforeItsStateReads() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let paired = try await pair(tv)
        func reads() -> [String] { events.withLock { $0.filter { $0.name == "read" }.compactMap { $0["path"]?.string } } }
        func waitForReads(_ count: Int) async throws {
            for _ in 0..<500 where reads().count < count { try await Task.sleep(for: .milliseconds(10)) }
        }
        var forAKey = try context()
        forAKey.expectedCommand = .key(.key(.home), .press)
        let session = try await PhilipsAdapter().openSession(device: paired.device, secrets: paired.secrets, context: forAKey)
        try await Task.sleep(for: .milliseconds(200))
        #expect(reads() == ["powerstate"])
        try await session.send(.key(.key(.home), .press))
        try await waitForReads(3)
        let order = events.withLock { $0.filter { $0.name == "read" || $0.name == "key" }.map(\.name) }
        #expect(order.prefix(3) == ["read", "key", "read"], "\(order)")
        await session.close()

        events.withLock { $0.removeAll() }
        let unprompted = try await PhilipsAdapter().openSession(device: paired.device, secrets: paired.secrets, context: try context())
        try await waitForReads(3)
        #expect(reads().count >= 3 && !events.withLock { $0.contains { $0.name == "key" } })
        await unprompted.close()
    }

    @Test func anUntrustedCertificateSendsNothing() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let stranger = try CertificateFingerprint(bytes: [UInt8](repeating: 0, count: 32))
        let refused = await #expect(throws: PhotonError.self) { _ = try await pair(tv, trusting: stranger) }
        #expect(refused?.exitCode == 5, "\(String(describing: refused))")
        #expect(count(events, "pin") == 0)
    }

    @Test func everyCallIsDigestAuthenticatedAndTheTVPushesWhatChanged() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let paired = try await pair(tv)
        let session = try await PhilipsAdapter(notifyHold: .seconds(5)).openSession(
            device: paired.device, secrets: paired.secrets, context: try context())
        defer { Task { await session.close() } }
        try await session.send(.key(.key(.up), .press))
        try await session.send(.setVolume(33))
        try await session.send(.launch("Netflix"))
        #expect(events.withLock { $0.last { $0.name == "volume" }?["level"]?.int } == 33)
        #expect(events.withLock { $0.last { $0.name == "launch" }?["app"]?.string } == "com.netflix.ninja")
        let overRange = await #expect(throws: PhotonError.self) { try await session.send(.setVolume(99)) }
        #expect(overRange?.code == .usage && overRange?.message.contains("0 to 60") == true)
        // The TV turns to standby by its own remote: the session hears it through notifychange.
        tv.setPower(on: false)
        let seen = try await withTimeout(.seconds(5), "the pushed state") { () -> (PowerState?, Int?, String?) in
            var power: PowerState?
            var volume: Int?
            var app: String?
            for await event in session.events {
                if case .powerState(let p, _) = event { power = p }
                if case .volume(let v) = event { volume = v.level }
                if case .currentApp(let a) = event { app = a }
                if power == .standby, volume == 33, app == "Netflix (com.netflix.ninja)" { break }
            }
            return (power, volume, app)
        }
        #expect(seen.0 == .standby && seen.1 == 33 && seen.2 == "Netflix (com.netflix.ninja)", "\(seen)")
        #expect(count(events, "refused") == 0)
        try await session.send(.key(.key(.powerOn), .press))
        #expect(events.withLock { $0.last { $0.name == "power" }?["state"]?.string } == "on")
    }

    @Test func ambilightSwitchesStylesAndReportsTheOneInUse() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let paired = try await pair(tv)
        let session = try await PhilipsAdapter().openSession(device: paired.device, secrets: paired.secrets, context: try context())
        defer { Task { await session.close() } }
        let styles = try await TVListKind.ambilightStyles.items(on: session)
        #expect(styles.first == TVListItem(id: "FOLLOW_VIDEO/STANDARD", name: "follow-video", active: true))
        #expect(styles.contains { $0.name == "lounge" && $0.id == "Lounge light/HOT_LAVA" })
        try await session.send(.ambilight("follow-audio"))
        try await session.send(.ambilight("FOLLOW_VIDEO/game"))
        try await session.send(.ambilight("off"))
        try await session.send(.ambilight("on"))
        let sent = events.withLock { $0.filter { $0.name == "ambilight" }.map { ($0["style"]?.string ?? "") + ($0["power"]?.string ?? "") } }
        #expect(sent == ["FOLLOW_AUDIO", "FOLLOW_VIDEO", "off", "on"], "\(sent)")
        let missing = await #expect(throws: PhotonError.self) { try await session.send(.ambilight("disco")) }
        #expect(missing?.code == .notFound && missing?.hint?.contains("FOLLOW_AUDIO/VU_METER") == true)
        let reported = try await withTimeout(.seconds(5), "the Ambilight state") { () -> [String] in
            var values: [String] = []
            for await event in session.events {
                if case .setting("ambilight", let value) = event { values.append(value) }
                if values.last == "follow-video", values.contains("off") { break }
            }
            return values
        }
        #expect(reported.suffix(2) == ["off", "follow-video"], "\(reported)")
    }

    /// (A TV that keeps its network in standby wakes by the API: the test above.)
    @Test func aTVInStandbyWithoutItsNetworkAnswersNothing() async throws {
        let (asleep, _) = try start { $0.networkInStandby = false }
        defer { Task { await asleep.stop() } }
        let paired = try await pair(asleep)
        asleep.setPower(on: false)
        let silent = await #expect(throws: PhotonError.self) {
            _ = try await PhilipsAdapter().openSession(device: paired.device, secrets: paired.secrets, context: try context())
        }
        #expect(silent?.code == .connectionClosed, "\(String(describing: silent))")
    }
}
