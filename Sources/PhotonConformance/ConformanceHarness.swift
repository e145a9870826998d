import Foundation
import PhotonCore
import PhotonCrypto
import PhotonEmulatorSupport
import PhotonNet

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
    public let context: AdapterContext
    let check: String

    public var adapter: any TVAdapter { plugin.adapter }

    static let identity = Result { try IdentityFactory.makeClientIdentity(commonName: "Photon conformance") }

    public init(_ plugin: BrandPlugin, check: String = "conformance", stateDirectory: URL? = nil) async throws {
        guard let emulator = plugin.emulator else {
            throw ConformanceFailure(check: check, message: "\(plugin.adapter.id) registers no emulated TV")
        }
        self.plugin = plugin
        self.emulator = emulator
        self.check = check
        let log = self.log
        var settings = EmulatorSettings.ephemeral(for: emulator, name: "Conformance TV")
        settings.stateDirectory = stateDirectory
        tv = try await emulator.start(settings) { event in log.withLock { $0.append(event) } }
        context = AdapterContext(
            connector: NetConnector(), clientIdentity: try Self.identity.get(), clientName: "Photon conformance", timeout: .seconds(5))
    }

    public func stop() async { await tv.stop() }

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

    public var endpoint: Endpoint { Endpoint(host: "127.0.0.1", port: tv.ports[adapter.mainPortName] ?? adapter.defaultPort) }

    /// The adapter's options that name the emulator's ports (`pairing-port` …).
    public var pairingOptions: [String: String] {
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
                guard let name = harness.tv.pairingCodeEvent else {
                    throw ConformanceFailure(check: harness.check, message: "a code was asked for, but the TV shows none")
                }
                try await harness.waitFor(name)
                return .code(harness.events(name).last?["code"]?.string ?? "")
            case .confirmOnTV: return .wait
            case .allowUnencrypted: return .trust(false)
            }
        }
    }

    public func pair(code: String? = nil) async throws -> PairedTV {
        try await adapter.pairing(with: endpoint, options: pairingOptions, context: context).run(responder: Responder(harness: self, code: code))
    }

    public func openSession(_ paired: PairedTV) async throws -> any RemoteSession {
        try await adapter.openSession(device: paired.device, secrets: paired.secrets, context: context)
    }

    /// Whether the session reported its end within `limit`, and with what error.
    public static func disconnection(of session: any RemoteSession, within limit: Duration = .seconds(10)) async
        -> (ended: Bool, reason: PhotonError?)
    {
        let outcome = try? await withTimeout(limit, "waiting for the session to end") { () -> (Bool, PhotonError?) in
            for await event in session.events { if case .disconnected(let reason) = event { return (true, reason) } }
            return (true, nil)
        }
        return outcome.map { (ended: $0.0, reason: $0.1) } ?? (false, nil)
    }
}
