import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet
import PhotonStore
import PhotonTesting

/// Why a conformance check failed: which check, and what was seen.
public struct ConformanceFailure: Error, CustomStringConvertible, Sendable {
    public let check: String
    public let message: String
    public var description: String { "\(check): \(message)" }
}

/// One brand's adapter against its emulated TV, on loopback: what every conformance
/// check runs with.
public final class ConformanceHarness: Sendable {
    public let plugin: BrandPlugin
    public let emulator: any TVEmulator
    public let tv: any RunningEmulator
    public let log = Locked<[EmulatorEvent]>([])
    /// How far the check got on the client's side (pairing, opening, closing), for the
    /// message of a check that is stuck.
    public let steps = Locked<[String]>([])
    public let context: AdapterContext
    public let route: ConformanceRoute
    let check: String
    /// The home of a control route (the store its door reads), made on first use.
    private let home = Locked<URL?>(nil)
    /// The name the paired TV has in a control route's store.
    public static let storedName = "conformance-tv"

    public var adapter: any TVAdapter { plugin.adapter }

    static let identity = Result { try IdentityFactory.makeClientIdentity(commonName: "Photon conformance") }

    public init(_ plugin: BrandPlugin, check: String = "conformance", route: ConformanceRoute = .adapter, stateDirectory: URL? = nil)
        async throws
    {
        guard let emulator = plugin.emulator else {
            throw ConformanceFailure(check: check, message: "\(plugin.adapter.id) registers no emulated TV")
        }
        self.plugin = plugin
        self.emulator = emulator
        self.check = check
        self.route = route
        let log = self.log
        var settings = EmulatorSettings.ephemeral(for: emulator, name: "Conformance TV")
        settings.stateDirectory = stateDirectory
        tv = try await emulator.start(settings) { event in log.withLock { $0.append(event) } }
        context = AdapterContext(
            connector: NetConnector(), clientIdentity: try Self.identity.get(), clientName: "Photon conformance", timeout: .seconds(5),
            // A brand's own rules of time (key pacing, polling) run 50 times faster: the
            // checks are about the protocol, and the brand's tests check the timing.
            clock: FastClock(speedup: 50))
    }

    public func stop() async {
        await tv.stop()
        if let home = home.withLock({ $0 }) { try? FileManager.default.removeItem(at: home) }
    }

    public func events(_ name: String) -> [EmulatorEvent] { log.withLock { $0.filter { $0.name == name } } }

    /// Throws unless `condition` holds.
    public func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw ConformanceFailure(check: "\(adapter.id) \(check)", message: message()) }
    }

    /// Throws unless `body` throws a `PhotonError`; returns it.
    public func requireError(_ what: String, _ body: () async throws -> Void) async throws -> PhotonError {
        do {
            try await body()
        } catch {
            return PhotonError.wrap(error)
        }
        throw ConformanceFailure(check: "\(adapter.id) \(check)", message: "\(what) did not fail")
    }

    public func waitFor(_ name: String, count: Int = 1, within limit: Duration = .seconds(10)) async throws {
        let end = ContinuousClock.now + limit
        while events(name).count < count {
            try require(ContinuousClock.now < end, "\(events(name).count) '\(name)' events, wanted \(count)")
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    public var endpoint: Endpoint { Endpoint(host: "127.0.0.1", port: tv.ports[adapter.descriptor.ports.mainName] ?? adapter.descriptor.ports.main) }

    /// The adapter's port options set to the emulator's ports (`pairing-port` …).
    public var pairingOptions: AdapterOptionValues {
        var values = AdapterOptionValues()
        for option in adapter.descriptor.pairing.options {
            if case .port(let name) = option.value, let port = tv.ports[name] { values.ports[name] = port }
        }
        return values
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
                guard let name = harness.tv.pairingCodeEvent else {
                    throw ConformanceFailure(check: harness.check, message: "a code was asked for, but the TV shows none")
                }
                try await harness.waitFor(name)
                return .code(harness.events(name).last?["code"]?.string ?? "")
            case .confirmOnTV: return .wait
            // A brand without TLS at all (ADB) is used only with this consent; a brand whose
            // TV offers TLS must never fall back to plain text.
            case .allowUnencrypted: return .trust(harness.tv.certificateFingerprint == nil)
            }
        }
    }

    public func pair(code: String? = nil) async throws -> PairedTV {
        step("pairing")
        defer { step("pairing ended") }
        return try await adapter.pairing(with: endpoint, options: pairingOptions, context: context).run(
            responder: Responder(harness: self, code: code))
    }

    /// Notes a step the client took.
    public func step(_ name: String) { steps.withLock { $0.append(name) } }

    /// How far things got: the TV's last events (with their fields) and the client's last
    /// steps, for a failure's message.
    public var trail: String {
        let seen = log.withLock { $0.suffix(12).map(\.description) }
        let done = steps.withLock { $0.suffix(8) }
        return
            "the TV's last events: \(seen.isEmpty ? "none" : seen.joined(separator: ", ")); the client's last steps: \(done.isEmpty ? "none" : done.joined(separator: ", "))"
    }

    /// A session to the paired TV by this harness's route: the adapter's own, or a door's
    /// controller session over a store that holds `paired` (stored again each call, so a
    /// check's second session sees the same pairing).
    public func openSession(_ paired: PairedTV) async throws -> any ConformanceSession {
        step("opening a session")
        defer { step("opening ended") }
        switch route {
        case .adapter:
            return AdapterRouteSession(
                session: try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context), harness: self)
        case .control(_, let make):
            let paths = try await store(paired)
            let control = try await make(paths, AdapterRegistry([adapter]), context.clock)
            do {
                let session = ControlRouteSession(control: control, session: try await control.open(Self.storedName, source: .cli), harness: self)
                step("settling")
                await session.settle()
                return session
            } catch {
                await control.close()
                throw error
            }
        }
    }

    /// Writes `paired` (as `storedName`) and the identity it was paired with into the
    /// control route's home.
    private func store(_ paired: PairedTV) async throws -> StorePaths {
        let directory = home.withLock { home -> URL in
            if let home { return home }
            let made = FileManager.default.temporaryDirectory.appendingPathComponent("photon-conformance-\(UUID().uuidString)")
            home = made
            return made
        }
        let paths = StorePaths(home: directory)
        let store = Store(paths: paths)
        var named = paired
        named.device.nickname = Self.storedName
        try await store.save(named, replacing: true)
        let identity = context.clientIdentity
        try await store.update { _, secrets in
            secrets.identity = StoredIdentity(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
        }
        return paths
    }
}
