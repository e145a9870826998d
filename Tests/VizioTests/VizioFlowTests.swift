import Foundation
import PhotonCore
import PhotonEmulatorSupport
import PhotonNet
import PhotonTestSupport
import Testing
import VizioEmulator

@testable import Vizio

/// The Vizio adapter against the emulated SmartCast TV: what is Vizio's own — PIN pairing
/// that never leaves the TV blocked, the certificate pinned with consent, settings changed
/// by HASHVAL, answers in either case, both firmware generations, and the state it reports.
@Suite(.serialized) struct VizioFlowTests {
    func start(_ configure: (inout EmulatedVizio.Configuration) -> Void = { _ in }) throws -> (EmulatedVizio, Locked<[EmulatorEvent]>) {
        let events = Locked<[EmulatorEvent]>([])
        var configuration = EmulatedVizio.Configuration()
        configuration.port = 0
        configuration.pin = "4826"
        configure(&configuration)
        return (try EmulatedVizio.start(configuration) { event in events.withLock { $0.append(event) } }, events)
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

    func pair(_ tv: EmulatedVizio, pin: String = "4826") async throws -> PairedTV {
        try await VizioAdapter().pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(), context: try context())
            .run(responder: User(fingerprint: tv.fingerprint, pin: pin))
    }

    func names(_ events: Locked<[EmulatorEvent]>, _ name: String, _ field: String) -> [String] {
        events.withLock { $0.filter { $0.name == name }.compactMap { $0[field]?.string } }
    }

    @Test func aPINPairingPinsTheCertificateAndAWrongPINLeavesTheTVNotBlocked() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let wrong = await #expect(throws: PhotonError.self) { _ = try await pair(tv, pin: "1111") }
        #expect(wrong?.code == .pairingRefused && wrong?.exitCode == 4)
        #expect(events.withLock { $0.filter { $0.name == "pairing_cancelled" }.count } == 1)
        #expect(!tv.isBlocked)
        let paired = try await pair(tv)
        #expect(paired.device.id == "vizio-lwzqphoton01" && paired.device.model == "P65Q9-J01")
        #expect(paired.secrets.pin == tv.fingerprint && paired.secrets[VizioAdapter.tokenSecret] != nil)
        #expect(!tv.isBlocked)
    }

    @Test func anUntrustedCertificateSendsNothing() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let flow = VizioAdapter().pairing(with: Endpoint(host: "127.0.0.1", port: tv.port), options: AdapterOptionValues(), context: try context())
        let stranger = try CertificateFingerprint(bytes: [UInt8](repeating: 0, count: 32))
        let refused = await #expect(throws: PhotonError.self) { _ = try await flow.run(responder: User(fingerprint: stranger)) }
        #expect(refused?.exitCode == 5, "\(String(describing: refused))")
        #expect(events.withLock { $0.filter { $0.name == "pin" } }.isEmpty)
    }

    /// A session opened for a command sends it before its own state reads (SmartCast takes
    /// one request at a time, so the key would wait behind them); one opened for nothing
    /// reads at once. Only the power read that opening does comes first.
    @Test func aSessionOpenedForAKeySendsItBeforeItsStateReads() async throws {
        let (tv, events) = try start()
        defer { Task { await tv.stop() } }
        let paired = try await pair(tv)
        var forAKey = try context()
        forAKey.expectedCommand = .key(.key(.home), .press)
        let session = try await VizioAdapter(pollInterval: .seconds(30)).openSession(device: paired.device, secrets: paired.secrets, context: forAKey)
        try await Task.sleep(for: .milliseconds(200))
        #expect(names(events, "read", "path") == [VizioPaths.power], "read before the key: \(names(events, "read", "path"))")
        try await session.send(.key(.key(.home), .press))
        try await waitFor(events) { $0.filter { $0.name == "read" }.count >= 3 }
        let order = events.withLock { $0.filter { $0.name == "read" || $0.name == "key" }.map(\.name) }
        #expect(order.prefix(2) == ["read", "key"], "\(order)")
        await session.close()

        events.withLock { $0.removeAll() }
        let unprompted = try await VizioAdapter(pollInterval: .seconds(30)).openSession(
            device: paired.device, secrets: paired.secrets, context: try context())
        try await waitFor(events) { $0.filter { $0.name == "read" }.count >= 3 }
        #expect(!events.withLock { $0.contains { $0.name == "key" } })
        await unprompted.close()
    }

    func waitFor(_ events: Locked<[EmulatorEvent]>, _ found: @escaping ([EmulatorEvent]) -> Bool) async throws {
        for _ in 0..<500 where !found(events.withLock { $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(found(events.withLock { $0 }), "\(events.withLock { $0.map(\.name) })")
    }

    @Test func settingsChangeByHashvalInEitherCaseAndBothFirmwareGenerations() async throws {
        for (legacy, lowercase) in [(false, false), (true, true)] {
            let (tv, events) = try start {
                $0.legacy = legacy
                $0.lowercase = lowercase
            }
            defer { Task { await tv.stop() } }
            let paired = try await pair(tv)
            let session = try await VizioAdapter(pollInterval: .milliseconds(50)).openSession(
                device: paired.device, secrets: paired.secrets, context: try context())
            defer { Task { await session.close() } }
            try await session.send(.setVolume(33))
            #expect(events.withLock { $0.last { $0.name == "volume" }?["level"]?.int } == 33)
            try await session.send(.input(.hdmi(3)))
            try await session.send(.input(.label("playstation")))
            #expect(names(events, "input", "input") == ["hdmi3", "hdmi2"], "legacy \(legacy)")
            let inputs = try await TVListKind.inputs.items(on: session)
            #expect(inputs.first { $0.active == true }?.name == "PlayStation")
            let modes = try await TVListKind.pictureModes.items(on: session)
            #expect(modes.contains { $0.name == "cinema" && $0.id == "Calibrated" })
            try await session.send(.picture("cinema"))
            try await session.send(.picture("Calibrated Dark"))
            #expect(names(events, "picture", "mode") == ["Calibrated", "Calibrated Dark"])
            try await session.send(.launch("3:1"))
            try await session.send(.key(.key(.up), .holdStart))
            try await session.send(.key(.key(.up), .holdEnd))
            #expect(events.withLock { $0.filter { $0.name == "key" }.compactMap { $0["action"]?.string } } == ["KEYDOWN", "KEYUP"])
            let seen = try await withTimeout(.seconds(5), "the reports") { () -> (Int?, String?, String?) in
                var volume: Int?
                var app: String?
                var picture: String?
                for await event in session.events {
                    if case .volume(let v) = event { volume = v.level }
                    if case .currentApp(let a) = event { app = a }
                    if case .setting("picture", let value) = event { picture = value }
                    if volume == 33, app?.hasPrefix("Netflix") == true, picture == "Calibrated Dark" { break }
                }
                return (volume, app, picture)
            }
            #expect(seen.0 == 33 && seen.1 == "Netflix (3:1)" && seen.2 == "Calibrated Dark", "\(seen)")
        }
    }

    @Test func aBlockedTVSaysToRestartIt() async throws {
        let (tv, _) = try start()
        defer { Task { await tv.stop() } }
        // A client that started pairing and walked away, then another start: blocked.
        let (first, second) = (try await pairStart(tv), try await pairStart(tv))
        #expect(first == "SUCCESS" && second == "BLOCKED")
        let blocked = await #expect(throws: PhotonError.self) { _ = try await pair(tv) }
        #expect(blocked?.code == .pairingRefused && blocked?.hint?.contains("restart the TV") == true, "\(String(describing: blocked))")
    }

    func pairStart(_ tv: EmulatedVizio) async throws -> String {
        let api = VizioAPI(
            endpoint: Endpoint(host: "127.0.0.1", port: tv.port), connector: NetConnector(), pin: tv.fingerprint, token: nil, timeout: .seconds(3))
        defer { Task { await api.client.drop() } }
        let (_, status) = try await api.exchange("PUT", VizioPaths.startPairing, body: .object([("DEVICE_ID", "walked-away"), ("DEVICE_NAME", "x")]))
        return status.result
    }
}
