import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet
import PhotonPlugins
import PhotonTestSupport

/// One registered brand's adapter against its emulated TV, on loopback: what the
/// conformance suite runs every test with. A brand gets the suite by registering.
final class ConformanceHarness: Sendable {
    let plugin: BrandPlugin
    let emulator: any TVEmulator
    let tv: any RunningEmulator
    let log = Locked<[EmulatorEvent]>([])
    let context: AdapterContext

    var adapter: any TVAdapter { plugin.adapter }

    /// The brands with an emulated TV, by id: the suite's arguments.
    static var brands: [String] { BuiltInPlugins.all.filter { $0.emulator != nil }.map(\.adapter.id) }

    static let identity = Result { try IdentityFactory.makeClientIdentity(commonName: "Photon conformance") }

    init(_ brand: String, stateDirectory: URL? = nil) async throws {
        guard let plugin = BuiltInPlugins.all.first(where: { $0.adapter.id == brand }), let emulator = plugin.emulator else {
            throw TestFailure("no emulated TV for \(brand)")
        }
        self.plugin = plugin
        self.emulator = emulator
        let log = self.log
        var settings = EmulatorSettings.ephemeral(for: emulator, name: "Conformance TV")
        settings.stateDirectory = stateDirectory
        tv = try await emulator.start(settings) { event in
            log.withLock { $0.append(event) }
        }
        context = AdapterContext(
            connector: NetConnector(), clientIdentity: try Self.identity.get(), clientName: "Photon conformance", timeout: .seconds(5))
    }

    func stop() async { await tv.stop() }

    func events(_ name: String) -> [EmulatorEvent] { log.withLock { $0.filter { $0.name == name } } }

    func waitFor(_ name: String, count: Int = 1, within limit: Duration = .seconds(10)) async throws {
        let end = ContinuousClock.now + limit
        while events(name).count < count {
            guard ContinuousClock.now < end else { throw TestFailure("\(adapter.id): \(events(name).count) '\(name)' events, wanted \(count)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    var endpoint: Endpoint { Endpoint(host: "127.0.0.1", port: tv.ports[adapter.mainPortName] ?? adapter.defaultPort) }

    /// The adapter's options that name the emulator's ports (`pairing-port` …).
    var pairingOptions: [String: String] {
        var options: [String: String] = [:]
        for option in adapter.options {
            if case .port(let name) = option.value, let port = tv.ports[name] { options[option.name] = String(port) }
        }
        return options
    }

    /// Answers pairing as a user would: trusts the emulator's certificate, types the code it
    /// shows (or `code`), waits for the prompt to be accepted.
    struct Responder: PairingResponder {
        let harness: ConformanceHarness
        var code: String?
        func answer(_ challenge: PairingChallenge) async throws -> PairingAnswer {
            switch challenge {
            case .trustCertificate(let info): return .trust(info.fingerprint == harness.tv.certificateFingerprint)
            case .enterCode:
                if let code { return .code(code) }
                guard let name = harness.tv.pairingCodeEvent else { throw TestFailure("a code was asked for, but the TV shows none") }
                try await harness.waitFor(name)
                return .code(harness.events(name).last?["code"]?.string ?? "")
            case .confirmOnTV: return .wait
            }
        }
    }

    func pair(code: String? = nil) async throws -> PairedTV {
        try await adapter.pairing(with: endpoint, options: pairingOptions, context: context).run(responder: Responder(harness: self, code: code))
    }

    func openSession(_ paired: PairedTV) async throws -> any RemoteSession {
        try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context)
    }

    /// Whether the session reported its end within `limit`, and with what error.
    static func disconnection(of session: any RemoteSession, within limit: Duration = .seconds(10)) async -> (ended: Bool, reason: PhotonError?) {
        let outcome = try? await withTimeout(limit, "waiting for the session to end") { () -> (Bool, PhotonError?) in
            for await event in session.events { if case .disconnected(let reason) = event { return (true, reason) } }
            return (true, nil)
        }
        return outcome.map { (ended: $0.0, reason: $0.1) } ?? (false, nil)
    }
}
